package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"efaxx/harness"
	"efaxx/results"
	"efaxx/results/record"
)

func newRunCommand() *cli.Command {
	return &cli.Command{
		Name:      "run",
		Usage:     "run a sweep on this machine with mpirun and store the results",
		ArgsUsage: "[SWEEP.toml]",
		Description: `Expands the sweep (the embedded demo when no file is given), runs each point
with mpirun, one point at a time, shows progress, stores every rank's
results in the database as each point ends, and prints a summary: per size,
the p50 latency and the bandwidth across ranks. Interrupting (Ctrl-C) keeps
what finished; the point in progress is stored as cancelled.

Example:
   efaxx run                       # the demo: 2 ranks, shm and tcp
   efaxx --db lab.db run sweeps/demo.toml
   efaxx run --tag driver=550.54 --tag cluster=lab sweeps/demo.toml

` + exitStatus(""),
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "runner", EnvVars: []string{"EFAXX_RUNNER"},
				Usage: "efaxx-runner binary (default: next to efaxx, then PATH)"},
			&cli.StringFlag{Name: "mpirun", Value: "mpirun", Usage: "mpirun binary"},
			&cli.GenericFlag{Name: "tag", Value: &wholeValues{}, Usage: "tag every run KEY=VALUE (repeat for several); efaxx runs --tag selects them"},
		},
		Action: func(c *cli.Context) error {
			if err := maxArgs(c, 1); err != nil {
				return err
			}
			tags, err := tagSets(wholeFlag(c, "tag"), "--tag")
			if err != nil {
				return err
			}
			return runRun(c.Context, runOptions{
				db: c.String("db"), workdir: c.String("workdir"), sweep: c.Args().First(),
				runner: c.String("runner"), mpirun: c.String("mpirun"), tags: tags,
				stdout: c.App.Writer, stderr: c.App.ErrWriter,
			})
		},
	}
}

type runOptions struct {
	db, workdir, sweep, runner, mpirun string
	tags                               map[string]string
	stdout, stderr                     io.Writer
}

func runRun(ctx context.Context, o runOptions) error {
	s, err := loadSweep(o.sweep)
	if err != nil {
		return err
	}
	runner, err := findRunner(o.runner)
	if err != nil {
		return err
	}
	local := &harness.Local{RunnerPath: runner, Mpirun: o.mpirun, Workdir: o.workdir, Progress: o.stderr, Tags: o.tags}
	if err := local.Check(s); err != nil { // before a store is made for runs that cannot be
		return err
	}
	db, err := createStore(ctx, o.db)
	if err != nil {
		return err
	}
	defer db.Close()
	fmt.Fprintf(o.stderr, "sweep %q: %s, results into %s\n", s.Name, quantity(s.Len(), "point"), o.db)
	session, runs, runErr := local.Run(ctx, db, s)
	if len(runs) > 0 {
		if err := printSummary(ctx, o.stdout, db, runs); err != nil {
			return err
		}
	}
	if session != nil {
		fmt.Fprintf(o.stdout, "\nrun directory: %s\n", session.Dir)
	}
	if runErr != nil {
		return runErr
	}
	for _, r := range runs {
		if r.Stored.Status != record.StatusOK {
			return errReported
		}
	}
	return nil
}

func printSummary(ctx context.Context, w io.Writer, db *results.DB, runs []harness.LocalRun) error {
	// One table per unit: a sweep of several benchmarks may mix them.
	type group struct {
		bench string
		runs  []harness.LocalRun
		stats [][]results.SizeStat
	}
	var groups []*group
	byUnit := map[results.Unit]*group{}
	for _, r := range runs {
		st, err := db.SizeStats(ctx, r.Stored.ID)
		if err != nil {
			return err
		}
		// the stored benchmark: an external point's is its tool's ("nvbandwidth:nvbandwidth"), in its unit
		stored, err := db.Run(ctx, r.Stored.ID)
		if err != nil {
			return err
		}
		u := results.UnitOf(stored.Benchmark)
		g := byUnit[u]
		if g == nil {
			g = &group{bench: stored.Benchmark}
			byUnit[u] = g
			groups = append(groups, g)
		}
		g.runs = append(g.runs, r)
		g.stats = append(g.stats, st)
	}
	for _, g := range groups {
		st, err := newSizeTable(g.bench, g.stats)
		if err != nil {
			return err
		}
		t := &table{header: st.header("RUN", "POINT", "STATUS")}
		for i, r := range g.runs {
			lead := []string{fmt.Sprint(r.Stored.ID), r.Point.Label(), r.Stored.Status}
			if len(g.stats[i]) == 0 {
				t.add(append(lead, st.empty()...)...)
			}
			for _, row := range st.rows(g.stats[i]) {
				t.add(append(lead, row...)...)
			}
		}
		fmt.Fprintln(w)
		if err := writeTable(w, "table", t); err != nil {
			return err
		}
		fmt.Fprintln(w, st.note())
	}
	return nil
}

// noRunnerIn refuses a --runner (or EFAXX_RUNNER) given for sweep s when
// s runs in a container: its steps start the image's own efaxx-runner,
// so the flag would be dropped without a word. Mounting the binary in
// instead would run it against the image's libfabric and MPI, which it
// was not linked with, and the resubmission key (the image's digest)
// would not know it.
func noRunnerIn(s *harness.Sweep, runner string) error {
	c := s.Resources.Container
	if c == nil || runner == "" {
		return nil
	}
	return &usageError{msg: fmt.Sprintf("--runner (or EFAXX_RUNNER) %q: sweep %s runs in the container image %s, "+
		"whose steps start its own %s", runner, s.Name, c.Image, harness.ImageRunner),
		hint: "no --runner, EFAXX_RUNNER unset; to run yours, build it into the image: enroot/mkimage --bin DIR (make image), docs/slurm.md"}
}

// findRunner locates efaxx-runner: the flag, then next to this binary, then PATH.
func findRunner(flag string) (string, error) {
	if flag != "" {
		return filepath.Abs(flag)
	}
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), "efaxx-runner")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	if p, err := exec.LookPath("efaxx-runner"); err == nil {
		return filepath.Abs(p)
	}
	return "", &usageError{msg: "efaxx-runner not found next to efaxx or on PATH",
		hint: "make build, or efaxx run --runner PATH"}
}
