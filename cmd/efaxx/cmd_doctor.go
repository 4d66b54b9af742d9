package main

import (
	"context"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"efaxx/harness"
	"efaxx/slurm"
)

func newDoctorCommand() *cli.Command {
	return &cli.Command{
		Name:      "doctor",
		Usage:     "check what submitting needs: Slurm, MPI plugins, pyxis, the image, libfabric, NICs",
		ArgsUsage: "[SWEEP.toml]",
		Description: `Reports the partitions and their idle nodes (sinfo), the MPI plugins srun
takes (srun --mpi=list) and whether efaxx's default, pmix, is one, whether
pyxis is there (srun --help) and enroot's version, libfabric's providers
and the tcp provider's NICs on this machine (fi_info), efaxx-runner's
version (--runner --version, failing unless it prints "efaxx-runner
VERSION (COMMIT)": another program is no runner), and the workdir: one
that submit refuses fails, with submit's reason, and one not on a network
filesystem is a warning. With a sweep, its partition is checked too,
its MPI plugin (its [slurm] mpi, or the default where it sets none)
instead of the default, and the image of its [container]: readable here,
a squashfs, holding /bin/sh, /usr/bin/env and an efaxx-runner of this efaxx's version
(the runner its steps start: --runner with such a sweep is a wrong command line), and
its mounts' sources (on this machine: a missing one is a warning). Without a Slurm cluster (Slurm not installed, or no
cluster configured) it says so, and which, in one warning instead of asking
Slurm more: efaxx run needs no cluster; a sweep with a [slurm] or
[container] table fails that check.

Example:
   efaxx doctor sweeps/testbed/write.toml

` + exitStatus("a check failed (FAIL)"),
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "runner", EnvVars: []string{"EFAXX_RUNNER"}, Usage: "efaxx-runner to check, for sweeps without a container (default: next to efaxx)"},
		},
		Action: func(c *cli.Context) error {
			if err := maxArgs(c, 1); err != nil {
				return err
			}
			return runDoctor(c.Context, c.App.Writer, c.String("workdir"), c.String("runner"), c.Args().First())
		},
	}
}

func runDoctor(ctx context.Context, w io.Writer, workdir, runner, sweep string) error {
	o := harness.DoctorOptions{Workdir: workdir, Version: fmt.Sprintf("%s (%s)", version, commit)}
	if sweep != "" {
		s, err := loadSweep(sweep)
		if err != nil {
			return err
		}
		if err := noRunnerIn(s, runner); err != nil {
			return err
		}
		o.Sweep = s
	}
	if o.Sweep == nil || o.Sweep.Resources.Container == nil {
		o.RunnerPath, _ = findRunner(runner) // a missing runner is reported as a failed check
		if o.RunnerPath == "" {
			o.RunnerPath = "efaxx-runner"
		}
	}
	failed := false
	for _, c := range harness.Doctor(ctx, slurm.NewClient(), o) {
		fmt.Fprintf(w, "%-4s  %-9s  %s\n", c.Status, c.Name, c.Detail)
		failed = failed || c.Status == harness.CheckFail
	}
	if failed {
		return errVerdict
	}
	return nil
}
