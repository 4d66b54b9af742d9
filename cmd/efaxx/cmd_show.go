package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"efaxx/results"
)

func newShowCommand() *cli.Command {
	return &cli.Command{
		Name:      "show",
		Usage:     "show one run: its point, where it ran, and its numbers per message size",
		ArgsUsage: "RUN",
		Description: `Prints a run's status, parameters and fingerprint, then one row per message
size: the p50 latency (one-way) and the bandwidth across the run's ranks.

Example:
   efaxx show 3
   efaxx show 3 --format csv

` + exitCodesHelp,
		Flags: []cli.Flag{formatFlag},
		Action: func(c *cli.Context) error {
			id, err := runID(c.Args().First())
			if err != nil {
				return err
			}
			return runShow(c.Context, c.App.Writer, c.String("db"), c.String("format"), id)
		},
	}
}

func runID(arg string) (int64, error) {
	id, err := strconv.ParseInt(arg, 10, 64)
	if err != nil || id <= 0 {
		return 0, &usageError{msg: fmt.Sprintf("run id %q: want a positive number", arg), hint: "efaxx runs"}
	}
	return id, nil
}

type showRecord struct {
	Run   *results.Run       `json:"run"`
	Sizes []results.SizeStat `json:"sizes"`
}

func runShow(ctx context.Context, w io.Writer, dbPath, format string, id int64) error {
	if err := checkFormat(format); err != nil {
		return err
	}
	db, err := results.Open(ctx, dbPath)
	if err != nil {
		return err
	}
	defer db.Close()
	r, err := db.Run(ctx, id)
	if err != nil {
		return fmt.Errorf("run %d: %w", id, err)
	}
	stats, err := db.SizeStats(ctx, id)
	if err != nil {
		return err
	}
	t := &table{header: sizeHeader(), records: showRecord{Run: r, Sizes: stats}}
	for _, st := range stats {
		t.add(sizeCells(st)...)
	}
	if format == "table" {
		printRunHeader(w, r)
	}
	return writeTable(w, format, t)
}

func printRunHeader(w io.Writer, r *results.Run) {
	fmt.Fprintf(w, "run %d  %s  %s\n", r.ID, runLabel(*r), strings.ToUpper(r.Status))
	if r.Reason != "" {
		fmt.Fprintf(w, "  reason:   %s\n", r.Reason)
	}
	fmt.Fprintf(w, "  sweep:    %s (point %s)\n", r.Sweep, r.Point)
	fmt.Fprintf(w, "  params:   %s\n", paramList(r.Params))
	fmt.Fprintf(w, "  ran:      %d ranks on %s, provider %s, %s executor\n", r.Ranks, dash(strings.Join(r.Hosts, ",")),
		dash(r.Provider), r.Executor)
	fmt.Fprintf(w, "  started:  %s", r.Started.Local().Format("2006-01-02 15:04:05"))
	if !r.Finished.IsZero() {
		fmt.Fprintf(w, ", took %s", r.Finished.Sub(r.Started).Round(1e6))
	}
	fmt.Fprintf(w, "\n  dir:      %s\n\n", r.Dir)
}

func paramList(params map[string]any) string {
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		v, _ := json.Marshal(params[k])
		parts[i] = k + "=" + strings.Trim(string(v), `"`)
	}
	return strings.Join(parts, " ")
}
