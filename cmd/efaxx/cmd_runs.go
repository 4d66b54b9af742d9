package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"efaxx/harness"
	"efaxx/results"
	"efaxx/slurm"
)

func newRunsCommand() *cli.Command {
	return &cli.Command{
		Name:  "runs",
		Usage: "list stored runs, newest first",
		Description: `Lists the runs in the database with their status, point, where they ran
and their tags. Every filter narrows the list further.

Example:
   efaxx runs --benchmark write --since now-7d --status ok
   efaxx runs --tag cluster=p5 --host node0042 --param provider=efa
   efaxx runs --format json

` + exitStatus(""),
		Flags: append(filterFlags(),
			&cli.IntFlag{Name: "limit", Value: 50, Usage: "at most this many runs (0: all)"},
			&cli.BoolFlag{Name: "no-sync", Usage: "do not sync submitted jobs first"},
			formatFlag,
		),
		Action: func(c *cli.Context) error {
			if err := maxArgs(c, 0); err != nil {
				return err
			}
			f, err := runFilter(c, time.Now())
			if err != nil {
				return err
			}
			f.Limit = c.Int("limit")
			sync := ""
			if !c.Bool("no-sync") {
				sync = c.String("workdir")
			}
			return runRuns(c.Context, c.App.Writer, c.App.ErrWriter, c.String("db"), sync, c.String("format"), f)
		},
	}
}

// runRuns lists runs; unless syncWorkdir is "", it syncs submitted jobs
// first.
func runRuns(ctx context.Context, w, stderr io.Writer, dbPath, syncWorkdir, format string, f results.RunFilter) error {
	if err := checkFormat(format); err != nil {
		return err
	}
	db, err := openStore(ctx, dbPath)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := harness.CheckFilter(ctx, db, f); err != nil {
		return err
	}
	if syncWorkdir != "" {
		syncFirst(ctx, stderr, db, syncWorkdir)
	}
	runs, err := db.Runs(ctx, f)
	if err != nil {
		return err
	}
	if runs == nil {
		runs = []results.Run{} // JSON: [], not null
	}
	t := &table{header: []string{"RUN", "STARTED", "SWEEP", "POINT", "STATUS", "RANKS", "PROVIDER", "HOSTS", "SAMPLES", "TAGS"},
		records: runs}
	for _, r := range runs {
		t.add(fmt.Sprint(r.ID), r.Started.Local().Format("2006-01-02 15:04:05"), r.Sweep, runLabel(r), r.Status,
			fmt.Sprint(r.Ranks), dash(r.Provider), hostList(r.Hosts), fmt.Sprint(r.Samples), tagList(r.Tags))
	}
	return writeTable(w, format, t)
}

// syncFirst syncs the jobs not yet settled, so the list is current. A
// store without such jobs asks Slurm nothing; a failure is a warning, as
// the stored runs can still be listed.
func syncFirst(ctx context.Context, stderr io.Writer, db *results.DB, workdir string) {
	x := &harness.SlurmExecutor{Client: slurm.NewClient(), DB: db, Workdir: workdir}
	rep, err := x.Sync(ctx, results.JobFilter{})
	if err != nil {
		fmt.Fprintf(stderr, "warning: sync: %v (efaxx runs --no-sync skips it)\n", err)
		return
	}
	printNotes(stderr, rep)
}

// runLabel names a run by its benchmark and the provider it asked for.
func runLabel(r results.Run) string {
	if p, ok := r.Params["provider"]; ok {
		return fmt.Sprintf("%s provider=%v", r.Benchmark, p)
	}
	return r.Benchmark
}

// maxHosts is how many hosts a runs row names before it counts the rest:
// a run on 1,000 nodes would otherwise fill the screen.
const maxHosts = 3

// hostList formats hosts for a table cell.
func hostList(hosts []string) string {
	if len(hosts) > maxHosts {
		return fmt.Sprintf("%s,+%d", strings.Join(hosts[:maxHosts], ","), len(hosts)-maxHosts)
	}
	return dash(strings.Join(hosts, ","))
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// parseWhen reads a time bound: "" (none), now-<duration> with d for days,
// a date, or RFC 3339.
func parseWhen(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if rest, ok := strings.CutPrefix(s, "now-"); ok {
		d, err := parseAgo(rest)
		if err != nil {
			return time.Time{}, &usageError{msg: fmt.Sprintf("time %q: %v", s, err), hint: "now-7d, now-12h or 2026-11-01"}
		}
		return now.Add(-d), nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	return time.Time{}, &usageError{msg: fmt.Sprintf("time %q: not now-<duration>, a date or RFC 3339", s),
		hint: "now-7d, now-12h or 2026-11-01"}
}

func parseAgo(s string) (time.Duration, error) {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		var n int
		if _, err := fmt.Sscanf(days, "%d", &n); err != nil || n < 0 || fmt.Sprint(n) != days {
			return 0, fmt.Errorf("bad day count %q", days)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	return time.ParseDuration(s)
}
