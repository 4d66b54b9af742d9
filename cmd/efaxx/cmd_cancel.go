package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"
)

func newCancelCommand() *cli.Command {
	return &cli.Command{
		Name:      "cancel",
		Usage:     "cancel submitted jobs that have not ended",
		ArgsUsage: "SWEEP|SESSION|JOB...",
		Description: `Cancels with scancel every pending or running job of a sweep (its file,
name or hash), a session, or the given job ids, then syncs them: their
steps that had not ended are stored as cancelled, with Slurm's reason, and
what they measured before is kept. Exit status 3 when the arguments name
no job in the store, or none that is pending or running.

Example:
   efaxx cancel sweeps/demo.toml
   efaxx cancel 4711 4712

` + exitStatus(""),
		Action: func(c *cli.Context) error {
			return runCancel(c.Context, c.String("db"), c.String("workdir"), c.Args().Slice(), c.App.Writer, c.App.ErrWriter)
		},
	}
}

func runCancel(ctx context.Context, dbPath, workdir string, names []string, stdout, stderr io.Writer) error {
	if len(names) == 0 {
		return &usageError{msg: "cancel needs a sweep, a session or job ids", hint: "efaxx cancel sweeps/demo.toml"}
	}
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
	if err := env.requireJobs(ctx, "cancel", names, f); err != nil {
		return err
	}
	jobs, err := env.x.Cancel(ctx, f)
	if err != nil {
		return fmt.Errorf("cancel %s: %w", strings.Join(quoteAll(names), " "), err)
	}
	for _, j := range jobs {
		fmt.Fprintf(stdout, "cancelled job %s (%s, %s)\n", j.JobID, j.Sweep, j.Shape)
	}
	rep, err := env.x.Sync(ctx, f)
	if err := reportSync(stdout, stderr, rep, err); err != errReported {
		return err // a run that did not end ok is what cancelling does
	}
	return nil
}
