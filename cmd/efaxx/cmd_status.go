package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"efaxx/harness"
	"efaxx/lineerr"
	"efaxx/results"
	"efaxx/results/record"
	"efaxx/slurm"
)

func newStatusCommand() *cli.Command {
	return &cli.Command{
		Name:      "status",
		Usage:     "show submitted jobs and their steps, syncing them first",
		ArgsUsage: "[SWEEP|SESSION|JOB...]",
		Description: `Asks Slurm how the jobs stand (sacct, else squeue, scontrol show job, and the
markers the job scripts leave), stores the results of every step that has
started or ended (as efaxx sync does), and prints one row per job and one
per step. Without arguments it shows the most recent jobs. --watch repeats
until every job has ended and is stored.

A job whose session directory is gone is settled as failed once Slurm says
it has ended (efaxx cancel ends it), its steps never stored shown as lost.

Exit status 3 when a step's run ended failed, partial, timeout or cancelled,
or was lost, or when the arguments name no job in the store.

Example:
   efaxx status
   efaxx status --watch sweeps/demo.toml
   efaxx status 4711 --format json

` + exitStatus(""),
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "watch", Usage: "refresh until every job has ended and is stored"},
			&cli.DurationFlag{Name: "interval", Value: 2 * time.Second, Usage: "time between refreshes with --watch"},
			&cli.BoolFlag{Name: "no-sync", Usage: "show what the database holds; ask Slurm nothing"},
			&cli.IntFlag{Name: "limit", Value: 20, Usage: "without arguments, the most recent jobs to show (0: all)"},
			formatFlag,
		},
		Action: func(c *cli.Context) error {
			return runStatus(c.Context, statusOptions{db: c.String("db"), workdir: c.String("workdir"),
				names: c.Args().Slice(), watch: c.Bool("watch"), interval: c.Duration("interval"),
				noSync: c.Bool("no-sync"), limit: c.Int("limit"), format: c.String("format"),
				stdout: c.App.Writer, stderr: c.App.ErrWriter})
		},
	}
}

type statusOptions struct {
	db, workdir, format string
	names               []string
	watch, noSync       bool
	interval            time.Duration
	limit               int
	stdout, stderr      io.Writer
}

func runStatus(ctx context.Context, o statusOptions) error {
	if err := checkFormat(o.format); err != nil {
		return err
	}
	if err := atLeast("limit", o.limit, 0, "0 (all) or more"); err != nil {
		return err
	}
	if o.interval <= 0 {
		return &usageError{msg: fmt.Sprintf("--interval %v: want a positive duration", o.interval), hint: "--interval 2s"}
	}
	f, err := jobFilter(o.names)
	if err != nil {
		return err
	}
	if len(o.names) == 0 {
		f.Limit = o.limit
	}
	env, err := openSlurm(ctx, o.db, o.workdir, false)
	if err != nil {
		return err
	}
	defer env.close()
	env.x.Progress = o.stderr
	if err := env.requireJobs(ctx, "status", o.names, f); err != nil {
		return err
	}
	var views []harness.JobView
	switch {
	case o.watch:
		err = env.x.Watch(ctx, f, o.interval, watchPrinter(o.stderr, &views))
	case o.noSync:
		views, err = env.x.Jobs(ctx, f)
	default:
		var rep *harness.SyncReport
		rep, err = env.x.Sync(ctx, f)
		printNotes(o.stderr, rep) // on an error too: the jobs before it are stored (reportSync)
		if err == nil {
			views, err = env.x.Jobs(ctx, f)
		}
	}
	if err != nil {
		return err
	}
	if err := writeStatus(o.stdout, o.format, views); err != nil {
		return err
	}
	return stepsProblem(views)
}

// watchPrinter returns what status --watch does with each refresh: keep
// the views, print the notes, the warnings and a progress line. A note or
// a warning is printed once per watch: a source that fails (sacct without
// accounting) fails alike at every refresh, and a step still running is
// read again, its bad lines with it.
func watchPrinter(w io.Writer, views *[]harness.JobView) func([]harness.JobView, *harness.SyncReport) error {
	seen, seenProblem := map[string]bool{}, map[string]bool{}
	return func(v []harness.JobView, rep *harness.SyncReport) error {
		*views = v
		var fresh []string
		for _, n := range rep.Notes {
			if !seen[n] {
				seen[n] = true
				fresh = append(fresh, n)
			}
		}
		rep.Notes = fresh
		var freshProblems []*lineerr.Error
		for _, p := range rep.Problems {
			if !seenProblem[p.Error()] {
				seenProblem[p.Error()] = true
				freshProblems = append(freshProblems, p)
			}
		}
		rep.Problems = freshProblems
		printNotes(w, rep)
		fmt.Fprintf(w, "%s %s\n", time.Now().Format("15:04:05"), progressLine(v))
		return nil
	}
}

// printNotes says which sources of job state failed, and what ingest
// skipped.
func printNotes(w io.Writer, rep *harness.SyncReport) {
	if rep == nil {
		return
	}
	// Notes and problems quote what Slurm and the run directories said:
	// escaped, as every stored string printed is.
	for _, n := range rep.Notes {
		fmt.Fprintln(w, "note:", printable(n))
	}
	for _, p := range rep.Problems {
		fmt.Fprintln(w, "warning:", printable(fmt.Sprint(p)))
	}
}

// progressLine sums up jobs in one line: "2 jobs: 1 RUNNING, 1 PENDING; steps: 3 ok, 1 running, 4 pending".
func progressLine(views []harness.JobView) string {
	states, steps := map[string]int{}, map[string]int{}
	for i := range views {
		states[views[i].Job.State]++
		for s, n := range views[i].Counts() {
			steps[s] += n
		}
	}
	return fmt.Sprintf("%s: %s; steps: %s", quantity(len(views), "job"), countList(states), countList(steps))
}

// countList writes counts as "3 ok, 1 failed", largest first.
func countList(n map[string]int) string {
	keys := make([]string, 0, len(n))
	for k := range n {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if n[keys[i]] != n[keys[j]] {
			return n[keys[i]] > n[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d %s", n[k], k)
	}
	return strings.Join(parts, ", ")
}

func writeStatus(w io.Writer, format string, views []harness.JobView) error {
	if views == nil {
		views = []harness.JobView{}
	}
	jobs := &table{header: []string{"JOB", "SWEEP", "SESSION", "SHAPE", "STATE", "SOURCE", "NODES", "STEPS", "REASON"},
		records: views}
	steps := &table{header: []string{"JOB", "STEP", "POINT", "STATUS", "RUN", "SAMPLES", "NODES", "REASON"}}
	for _, v := range views {
		j := v.Job
		jobs.add(j.JobID, j.Sweep, j.Session, j.Shape, j.State, dash(j.Source), dash(j.NodeList), countList(v.Counts()), dash(jobReason(j)))
		for _, s := range v.Steps {
			steps.add(stepRow(j, s)...)
		}
	}
	if format != "table" {
		if format == "csv" {
			return writeTable(w, format, steps)
		}
		return writeTable(w, format, jobs)
	}
	if err := writeTable(w, format, jobs); err != nil {
		return err
	}
	fmt.Fprintln(w)
	return writeTable(w, format, steps)
}

// jobReason says why a job is in its state, as Slurm says it: "exit code
// 1:0, NonZeroExitCode", "by 0", "Resources".
func jobReason(j results.Job) string {
	js := slurm.JobState{State: slurm.State(j.State), Reason: j.Reason, ExitCode: j.ExitCode}
	return strings.Trim(strings.TrimPrefix(js.Describe(), j.State), " ()")
}

func stepRow(j results.Job, s harness.StepView) []string {
	row := []string{j.JobID, "-", fmt.Sprintf("%d %s", s.PointIndex, s.Label), s.Status, "-", "-", "-", "-"}
	if r := s.Run; r != nil {
		row[1], row[4], row[5], row[6], row[7] = dash(r.Step), fmt.Sprint(r.ID), fmt.Sprint(r.Samples), dash(r.NodeList), dash(r.Reason)
	}
	return row
}

// stepsProblem returns errReported when a step's run ended other than ok.
func stepsProblem(views []harness.JobView) error {
	for _, v := range views {
		for _, s := range v.Steps {
			switch s.Status {
			case harness.StepPending, record.StatusRunning, record.StatusOK:
			default:
				return errReported
			}
		}
	}
	return nil
}

// quoteAll quotes each name, for a message that names what was asked.
func quoteAll(names []string) []string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return q
}
