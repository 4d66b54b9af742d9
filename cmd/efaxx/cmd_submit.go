package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"efaxx/harness"
	"efaxx/results"
	"efaxx/slurm"
)

func newSubmitCommand() *cli.Command {
	return &cli.Command{
		Name:      "submit",
		Usage:     "submit a sweep to Slurm: one sbatch job per resource shape, one srun step per point",
		ArgsUsage: "SWEEP.toml",
		Description: `Writes the job scripts and the resolved sweep into a new session directory
under --workdir (the compute nodes must see it), submits each job with
sbatch, records the jobs in the database and returns at once. Follow the
jobs with efaxx status --watch; efaxx sync stores their results. A submit
killed after sbatch answered, before it recorded the job, leaves what the
next status or sync finds the job by, in Slurm, and records it then.

Points that already have an ok run with the same runner (efaxx-runner's
version, or the container image) are skipped, and so are points whose jobs
are still being tracked, so submitting a sweep again runs only what is
missing. --retry failed submits only the points whose latest run did not
end ok. efaxx plan shows the scripts without submitting anything.

The steps of a sweep with a [container] start the image's own efaxx-runner
(/usr/local/bin/efaxx-runner): --runner with one is a wrong command line;
build yours into the image instead (enroot/mkimage --bin DIR, docs/slurm.md).

Example:
   efaxx submit sweeps/testbed/write.toml
   efaxx submit --retry failed sweeps/testbed/write.toml

` + exitStatus(""),
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "runner", EnvVars: []string{"EFAXX_RUNNER"},
				Usage: "efaxx-runner on the compute nodes, for sweeps without a container (default: next to efaxx)"},
			&cli.StringFlag{Name: "retry", Usage: "\"failed\": submit only the points whose latest run did not end ok"},
		},
		Action: func(c *cli.Context) error {
			if err := maxArgs(c, 1); err != nil {
				return err
			}
			return runSubmit(c.Context, submitOptions{
				db: c.String("db"), workdir: c.String("workdir"), sweep: c.Args().First(),
				runner: c.String("runner"), retry: c.String("retry"), stdout: c.App.Writer, stderr: c.App.ErrWriter,
			})
		},
	}
}

type submitOptions struct {
	db, workdir, sweep, runner, retry string
	stdout, stderr                    io.Writer
}

func runSubmit(ctx context.Context, o submitOptions) error {
	if o.sweep == "" {
		return &usageError{msg: "submit needs a sweep file", hint: "efaxx submit sweeps/demo.toml"}
	}
	if o.retry != "" && o.retry != "failed" {
		return &usageError{msg: fmt.Sprintf("--retry %q: the only choice is failed", o.retry), hint: "efaxx submit --retry failed SWEEP"}
	}
	s, err := loadSweep(o.sweep)
	if err != nil {
		return err
	}
	if err := noRunnerIn(s, o.runner); err != nil {
		return err
	}
	// Ask before the store and the session are made, and say it plainly,
	// as doctor does, rather than pass on sbatch's fatal DNS lookup.
	if _, err := slurm.NewClient().Partitions(ctx); errors.Is(err, slurm.ErrNoCluster) {
		return fmt.Errorf("submit %s: %s: efaxx run runs a sweep on this machine (efaxx doctor says more)",
			o.sweep, slurm.NoClusterHere(err))
	}
	env, err := openSlurm(ctx, o.db, o.workdir, true)
	if err != nil {
		return err
	}
	defer env.close()
	if s.Resources.Container == nil {
		if env.x.RunnerBinary.Path, err = findRunner(o.runner); err != nil {
			return err
		}
		if env.x.RunnerBinary.Version, err = runnerVersion(ctx, env.x.RunnerBinary.Path); err != nil {
			return err
		}
	}
	// Each job is said as sbatch accepts it: sbatch may take seconds a
	// job on a busy cluster.
	p := &submitPrinter{stdout: o.stdout, stderr: o.stderr, sweep: s}
	sub, err := env.x.Submit(ctx, s, harness.SubmitOptions{RetryFailed: o.retry == "failed",
		Planned: p.planned, Submitted: p.submitted})
	if sub != nil {
		p.done(sub)
	}
	return err
}

// submitPrinter says what submit does: the plan before the first sbatch,
// then each job sbatch accepted, then how to follow them.
type submitPrinter struct {
	stdout, stderr io.Writer
	sweep          *harness.Sweep
	shown          bool // planned has printed
}

func (p *submitPrinter) planned(sub *harness.Submission) {
	p.shown = true
	p.skipped(sub)
	for _, sp := range sub.Plan.Splits {
		fmt.Fprintf(p.stdout, "split: the %d points of %s run as %d jobs: one script would be %s, more than max_script_size, %s\n",
			sp.Points, sp.Shape, sp.Jobs, byteCount(sp.Bytes), byteCount(sp.Max))
	}
	points := 0
	for _, j := range sub.Plan.Jobs {
		points += len(j.Points)
	}
	fmt.Fprintf(p.stdout, "sweep %s: %s in %s, session %s\n", p.sweep.Name, quantity(points, "point"),
		quantity(len(sub.Plan.Jobs), "job"), sub.Session.Dir)
}

func (p *submitPrinter) submitted(j results.Job) {
	fmt.Fprintf(p.stdout, "submitted job %s: %s, %s\n", j.JobID, j.Shape, quantity(len(j.Steps), "step"))
}

// done ends what submit printed: the skipped points when nothing was
// planned, and how to follow the jobs submitted.
func (p *submitPrinter) done(sub *harness.Submission) {
	if !p.shown {
		p.skipped(sub)
		if sub.Plan == nil {
			fmt.Fprintf(p.stdout, "sweep %s: nothing to submit\n", p.sweep.Name)
		}
	}
	if len(sub.Jobs) > 0 {
		fmt.Fprintf(p.stdout, "follow with: efaxx status --watch %s\n", sub.Session.ID)
	}
}

// skipped prints the warnings and the points left out.
func (p *submitPrinter) skipped(sub *harness.Submission) {
	for _, w := range sub.Warnings {
		fmt.Fprintln(p.stderr, "warning:", w)
	}
	for _, sk := range sub.Skipped {
		fmt.Fprintf(p.stdout, "skip point %d, %s: %s\n", sk.Point.Index, sk.Point.Label(), sk.Why)
	}
}
