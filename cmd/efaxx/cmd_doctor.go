package main

import (
	"context"
	"fmt"
	"io"
	"time"

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

All of that is this machine's view. --on-node SWEEP also runs one step on a
compute node as the sweep's jobs run theirs: an sbatch job of one task with
the options submit gives the sweep's jobs (its partition, account, qos,
constraint, extra...; a --time of five minutes at most), whose script runs srun with the sweep's
--mpi and [container] options, starting the runner with --version. Under
"on a compute node" it reports: node (sbatch took the job and it got a
node), pyxis (srun there takes --container-image; with a [container]), mpi
(the MPI plugin started the step), image (pyxis and enroot started the
image; with a [container]), runner (it ran and printed "efaxx-runner
VERSION (COMMIT)"; another version than this efaxx's is a warning). A
check that failed shows what the node said, and the checks after it are
not made. A job still pending after --wait (the partition is busy, or
cannot run it: Slurm's reason is shown) is cancelled: exit status 3.

Example:
   efaxx doctor sweeps/testbed/write.toml
   efaxx doctor --on-node sweeps/testbed/container.toml

` + exitStatus("a check failed (FAIL)"),
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "runner", EnvVars: []string{"EFAXX_RUNNER"}, Usage: "efaxx-runner to check, for sweeps without a container (default: next to efaxx)"},
			&cli.BoolFlag{Name: "on-node", Usage: "also run one step of the sweep on a compute node (sbatch, srun)"},
			&cli.DurationFlag{Name: "wait", Value: time.Minute, Usage: "how long --on-node's job may pend before it is cancelled"},
		},
		Action: func(c *cli.Context) error {
			if err := maxArgs(c, 1); err != nil {
				return err
			}
			o := doctorRun{workdir: c.String("workdir"), runner: c.String("runner"), sweep: c.Args().First()}
			if c.Bool("on-node") {
				if o.sweep == "" {
					return &usageError{msg: "doctor --on-node: want a SWEEP.toml, whose jobs its step runs as", hint: "efaxx doctor --on-node SWEEP.toml"}
				}
				if o.wait = c.Duration("wait"); o.wait <= 0 {
					return &usageError{msg: fmt.Sprintf("--wait %s: want a positive duration", o.wait), hint: "--wait 5m"}
				}
			} else if c.IsSet("wait") {
				return &usageError{msg: "--wait: only with --on-node"}
			}
			return runDoctor(c.Context, c.App.Writer, o)
		},
	}
}

// doctorRun is what doctor's command line asks.
type doctorRun struct {
	workdir, runner, sweep string
	wait                   time.Duration // > 0: --on-node, which waits this long for a node
}

func runDoctor(ctx context.Context, w io.Writer, d doctorRun) error {
	o := harness.DoctorOptions{Workdir: d.workdir, Version: fmt.Sprintf("%s (%s)", version, commit)}
	if d.sweep != "" {
		s, err := loadSweep(d.sweep)
		if err != nil {
			return err
		}
		if err := noRunnerIn(s, d.runner); err != nil {
			return err
		}
		o.Sweep = s
	}
	if o.Sweep == nil || o.Sweep.Resources.Container == nil {
		o.RunnerPath, _ = findRunner(d.runner) // a missing runner is reported as a failed check
		if o.RunnerPath == "" {
			o.RunnerPath = "efaxx-runner"
		}
	}
	client := slurm.NewClient()
	failed := printFindings(w, harness.Doctor(ctx, client, o))
	if d.wait > 0 {
		fmt.Fprintln(w, "on a compute node: one step as the sweep's jobs run theirs")
		found, err := harness.DoctorOnNode(ctx, client, harness.NodeOptions{Sweep: o.Sweep, Runner: o.RunnerPath,
			Workdir: d.workdir, Version: o.Version, Wait: d.wait})
		if err != nil {
			return err
		}
		failed = printFindings(w, found) || failed
	}
	if failed {
		return errVerdict
	}
	return nil
}

// printFindings prints one line per finding, and reports whether one failed.
func printFindings(w io.Writer, found []harness.Finding) bool {
	failed := false
	for _, c := range found {
		fmt.Fprintf(w, "%-4s  %-9s  %s\n", c.Status, c.Name, c.Detail)
		failed = failed || c.Status == harness.CheckFail
	}
	return failed
}
