package main

import (
	"context"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"efaxx/harness"
	"efaxx/results/record"
)

func newSyncCommand() *cli.Command {
	return &cli.Command{
		Name:      "sync",
		Usage:     "store the results of submitted jobs (idempotent)",
		ArgsUsage: "[SWEEP|SESSION|JOB...]",
		Description: `Asks Slurm how each submitted job that is not yet stored for good stands,
and ingests every step that has started or ended: its ranks' samples, and
its status, ok, partial, failed, timeout or cancelled, with the scheduler's
reason. A job that has ended with every step stored is settled and left
alone after, so syncing again adds nothing. A job whose submit was killed
after sbatch answered, before it recorded the job, is found in Slurm by
its directory and recorded first. efaxx status and efaxx runs sync first
unless given --no-sync.

Exit status 3 when a run it stored ended failed, partial, timeout or
cancelled, or when the arguments name no job in the store.

Example:
   efaxx sync
   efaxx sync sweeps/demo.toml

` + exitStatus(""),
		Action: func(c *cli.Context) error {
			return runSync(c.Context, c.String("db"), c.String("workdir"), c.Args().Slice(), c.App.Writer, c.App.ErrWriter)
		},
	}
}

func runSync(ctx context.Context, dbPath, workdir string, names []string, stdout, stderr io.Writer) error {
	f, err := jobFilter(names)
	if err != nil {
		return err
	}
	env, err := openSlurm(ctx, dbPath, workdir, false)
	if err != nil {
		return err
	}
	defer env.close()
	env.x.Progress = stderr
	if err := env.requireJobs(ctx, "sync", names, f); err != nil {
		return err
	}
	rep, err := env.x.Sync(ctx, f)
	return reportSync(stdout, stderr, rep, err)
}

// reportSync prints what a sync stored and skipped, and returns its error,
// or printSync's verdict. A job that cannot be synced fails Sync after the
// others are stored, and what they stored is printed too: a warning about
// a line of their rank files is said at no later sync once they settle.
func reportSync(stdout, stderr io.Writer, rep *harness.SyncReport, err error) error {
	printNotes(stderr, rep)
	if rep == nil || (err != nil && len(rep.Jobs) == 0) {
		return err
	}
	verdict := printSync(stdout, rep)
	if err != nil {
		return err
	}
	return verdict
}

// printSync prints what a sync did, and returns errReported when a run it
// stored did not end ok.
func printSync(w io.Writer, rep *harness.SyncReport) error {
	for _, j := range rep.Jobs {
		fmt.Fprintf(w, "job %s: %s (%s)%s\n", j.JobID, j.State, dash(j.Source), reasonSuffix(j.Reason))
	}
	problem := false
	for _, r := range rep.Runs {
		state := "updated"
		if r.New {
			state = "new"
		}
		fmt.Fprintf(w, "run %d %s: %s, %s (%s)%s\n", r.ID, state, r.Status, quantity(r.Samples, "new sample"), r.Dir, reasonSuffix(r.Reason))
		problem = problem || (r.Status != record.StatusOK && r.Status != record.StatusRunning)
	}
	if len(rep.Jobs) == 0 {
		fmt.Fprintln(w, "nothing to sync")
	}
	if problem {
		return errReported
	}
	return nil
}
