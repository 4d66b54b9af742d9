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
	"efaxx/results/record"
)

func newShowCommand() *cli.Command {
	return &cli.Command{
		Name:      "show",
		Usage:     "show one run: its point, where it ran, and its numbers per message size",
		ArgsUsage: "RUN",
		Description: `Prints a run's status, parameters and fingerprint, then one row per message
size and variant: the p50 latency (one-way) and the benchmark's own metric
across the run's ranks (Gbps for the network benchmarks, GB/s for ipc,
million commands per second for the queue, the busbw nccl-tests printed,
in GB/s, for its collectives), and where the run measured a
floor or reference beside it (queue: floor, ipc: memcpy, proxy: cpu, a
network benchmark on GPU memory: cudaMemcpy), each variant over it.
The fingerprint is what the ranks said of where they ran (host, provider,
libfabric, MPI, efaxx's version and commit, ...): each field's value, or
where the ranks differ, each value with the ranks that have it. An
imported run (efaxx import nccl-tests) shows instead what its file says
of the tool (its version, NCCL's, busbw over algbw, ...) and of the ranks.
The table and the JSON say a run's status; the CSV holds the numbers
alone, so a run that did not end ok is named with its reason on stderr.

With --ranks, shows instead how the ranks spread for --metric: per size the
median, the worst and best sample and the slowest rank, then the slowest
ranks and hosts, over the samples of the benchmark itself (not the floor
or reference measured beside it). A rank's speed is its value over the size's median
(inverted for times): 1.00 is typical, 0.80 is 20% slower.

Example:
   efaxx show 3
   efaxx show --format csv 3
   efaxx show --ranks --top 20 3

` + exitStatus(""),
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "ranks", Usage: "show the spread across ranks and the slowest ranks and hosts"},
			&cli.StringFlag{Name: "metric", Value: "gbps", Usage: "the metric of --ranks"},
			&cli.IntFlag{Name: "top", Value: 10, Usage: "how many slowest ranks and hosts --ranks names"},
			formatFlag,
		},
		Action: func(c *cli.Context) error {
			a := c.Args().Slice()
			if len(a) != 1 {
				return &usageError{msg: "show needs one run id", hint: "efaxx runs"}
			}
			id, err := runID(a[0])
			if err != nil {
				return err
			}
			if c.Bool("ranks") {
				m, err := metricFlag(c.String("metric"))
				if err != nil {
					return err
				}
				if err := atLeast("top", c.Int("top"), 1, "1 or more"); err != nil {
					return err
				}
				return runShowRanks(c.Context, c.App.Writer, c.App.ErrWriter, c.String("db"), c.String("format"), id, m, c.Int("top"))
			}
			return runShow(c.Context, c.App.Writer, c.App.ErrWriter, c.String("db"), c.String("format"), id)
		},
	}
}

func runID(arg string) (int64, error) {
	id, err := strconv.ParseInt(arg, 10, 64)
	if err != nil || id <= 0 {
		return 0, badRunID(arg)
	}
	return id, nil
}

// badRunID is the usage error of a run id that is not a positive number.
func badRunID(arg string) error {
	return &usageError{msg: fmt.Sprintf("run id %q: want a positive number", arg), hint: "efaxx runs"}
}

type showRecord struct {
	Run         *results.Run               `json:"run"`
	Fingerprint *results.Fingerprint       `json:"fingerprint"`
	Tool        map[string]json.RawMessage `json:"tool,omitempty"` // an imported run's tool, as its file said
	Sizes       []results.SizeStat         `json:"sizes"`
	AllToAll    []allToAllRecord           `json:"all2all,omitempty"`
}

// allToAllRecord is an ipc-all2all run's aggregate against the sum of its
// pairs alone, at one size and method, with their ratio.
type allToAllRecord struct {
	results.AllToAllStat
	Ratio float64 `json:"ratio"`
}

func runShow(ctx context.Context, w, stderr io.Writer, dbPath, format string, id int64) error {
	if err := checkFormat(format); err != nil {
		return err
	}
	db, err := openStore(ctx, dbPath)
	if err != nil {
		return err
	}
	defer db.Close()
	r, err := db.Run(ctx, id)
	if err != nil {
		return err
	}
	fp, err := db.Fingerprint(ctx, id)
	if err != nil {
		return err
	}
	tool, err := db.ToolFingerprint(ctx, id)
	if err != nil {
		return err
	}
	stats, err := db.SizeStats(ctx, id)
	if err != nil {
		return err
	}
	if stats == nil {
		stats = []results.SizeStat{}
	}
	st, err := newSizeTable(r.Benchmark, [][]results.SizeStat{stats})
	if err != nil {
		return err
	}
	a2a, err := db.AllToAllStats(ctx, id)
	if err != nil {
		return err
	}
	rec := showRecord{Run: r, Fingerprint: fp, Tool: tool, Sizes: stats}
	for _, s := range a2a {
		rec.AllToAll = append(rec.AllToAll, allToAllRecord{s, s.Ratio()})
	}
	t := &table{header: st.header(), records: rec}
	for _, row := range st.rows(stats) {
		t.add(row...)
	}
	if format == "table" {
		if err := printRunHeader(ctx, w, db, r); err != nil {
			return err
		}
		if tool != nil {
			printTool(w, tool)
			fp = importedRanks(fp)
		}
		printFingerprint(w, fp)
	}
	if err := writeTable(w, format, t); err != nil {
		return err
	}
	if format != "table" {
		noteRunNotOK(stderr, format, r)
		return nil
	}
	fmt.Fprintln(w, st.note())
	size, pairs, err := db.PairStats(ctx, id)
	if err != nil {
		return err
	}
	printPairs(w, st.metric.Unit, size, pairs)
	printAllToAll(w, r.Params["schedule"], a2a)
	return nil
}

// noteRunNotOK names on stderr a run that did not end ok, where the
// output does not: CSV holds the numbers alone, and a failed run's would
// read as a measurement of its point. The table's header and the JSON
// say the status.
func noteRunNotOK(stderr io.Writer, format string, r *results.Run) {
	if format == "csv" && r.Status != record.StatusOK {
		fmt.Fprintf(stderr, "note: run %d did not end ok: %s (%s)\n", r.ID, r.Status, printable(dash(r.Reason)))
	}
}

func printRunHeader(ctx context.Context, w io.Writer, db *results.DB, r *results.Run) error {
	labels, err := labelsFor(ctx, db, []results.Run{*r})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "run %d  %s  %s\n", r.ID, printable(labels.label(*r)), strings.ToUpper(r.Status))
	if r.Reason != "" {
		fmt.Fprintf(w, "  reason:   %s\n", printable(r.Reason))
	}
	fmt.Fprintf(w, "  sweep:    %s (point %s)\n", printable(r.Sweep), r.Point)
	fmt.Fprintf(w, "  params:   %s\n", printable(paramList(r.Params)))
	if len(r.Tags) > 0 {
		fmt.Fprintf(w, "  tags:     %s\n", printable(tagList(r.Tags)))
	}
	fmt.Fprintf(w, "  ran:      %s on %s, provider %s, %s executor\n", quantity(r.Ranks, "rank"), printable(dash(strings.Join(r.Hosts, ","))),
		printable(dash(r.Provider)), r.Executor)
	fmt.Fprintf(w, "  started:  %s", r.Started.Local().Format("2006-01-02 15:04:05"))
	// An import knows when the tool started, not how long it took.
	if r.Finished.After(r.Started) {
		fmt.Fprintf(w, ", took %s", r.Finished.Sub(r.Started).Round(1e6))
	}
	fmt.Fprintf(w, "\n  dir:      %s\n", printable(r.Dir))
	return nil
}

// maxValues is how many values of one fingerprint field show prints
// before it counts the rest.
const maxValues = 4

// printFingerprint prints each field of fp: its value, or when the ranks
// differ, each value with the ranks that have it, the commonest first.
func printFingerprint(w io.Writer, fp *results.Fingerprint) {
	fmt.Fprintf(w, "  fingerprint of %s", quantity(fp.Ranks, "rank"))
	if fp.None != "" {
		fmt.Fprintf(w, " (none from ranks %s)", fp.None)
	}
	fmt.Fprintln(w, ":")
	for _, f := range fp.Fields {
		var parts []string
		for i, v := range f.Values {
			if i == maxValues {
				parts = append(parts, fmt.Sprintf("and %d more values", len(f.Values)-maxValues))
				break
			}
			text := strings.Trim(string(v.Value), `"`)
			if len(f.Values) > 1 {
				text += fmt.Sprintf(" (%s %s)", plural(v.Count, "rank", "ranks"), v.Ranks)
			}
			parts = append(parts, text)
		}
		fmt.Fprintf(w, "    %-16s %s\n", f.Key, printable(strings.Join(parts, "; ")))
	}
	fmt.Fprintln(w)
}

// printTool prints what an imported run's file said of the tool that
// measured it: its version is the tool's, not efaxx's, which never ran.
func printTool(w io.Writer, tool map[string]json.RawMessage) {
	fmt.Fprintln(w, "  imported; the tool that measured it, as its file says:")
	keys := make([]string, 0, len(tool))
	for k := range tool {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		var list []json.RawMessage
		text := strings.Trim(string(tool[k]), `"`)
		if json.Unmarshal(tool[k], &list) == nil && len(list) > 1 {
			text = fmt.Sprintf("%d of them (show --format json lists them)", len(list))
		}
		fmt.Fprintf(w, "    %-22s %s\n", k, printable(text))
	}
}

// importedRanks keeps, of an imported run's rank fingerprints, the fields
// the file gave a value. An importer fills only a few fields of a rank's
// record; the rest are zeros that no one measured, and runs imported
// before nccltests.Result.Ranks left it empty hold the tool's version in
// efaxx_version.
func importedRanks(fp *results.Fingerprint) *results.Fingerprint {
	out := *fp
	out.Fields = nil
	for _, f := range fp.Fields {
		if f.Key == "efaxx_version" || f.Key == "efaxx_commit" {
			continue
		}
		if len(f.Values) == 1 {
			switch string(f.Values[0].Value) {
			case `""`, "0", "false", "null", "[]", "{}":
				continue
			}
		}
		out.Fields = append(out.Fields, f)
	}
	return &out
}

func paramList(params map[string]any) string {
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + results.ParamText(params[k])
	}
	return strings.Join(parts, " ")
}
