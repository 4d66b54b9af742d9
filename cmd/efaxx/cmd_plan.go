package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"efaxx/bytesize"
	"efaxx/harness"
	"efaxx/slurm"
)

func newPlanCommand() *cli.Command {
	return &cli.Command{
		Name:      "plan",
		Usage:     "show the points a sweep expands to, and its Slurm jobs and scripts; runs nothing",
		ArgsUsage: "[SWEEP.toml]",
		Description: `Expands the sweep (the embedded demo when no file is given) and prints one
row per point: what it runs, with how many ranks, over which message sizes.
Then, for a sweep with a [slurm] or [container] table or with --slurm, what
efaxx submit would do: the job and step of each point (one job per resource
shape, one srun step per point), and each job's sbatch script with line
numbers. The paths show SESSION where submit puts the new session's id.
A job whose script would pass the cluster's max_script_size (scontrol show
config; Slurm's default, 4 MB, when scontrol does not answer) runs as
several jobs of its shape, as submit would run it, and plan says so.

Example:
   efaxx plan sweeps/demo.toml --format csv
   efaxx plan --slurm sweeps/demo.toml

` + exitStatus(""),
		Flags: []cli.Flag{
			formatFlag,
			&cli.BoolFlag{Name: "slurm", Usage: "show the Slurm jobs and scripts (default: when the sweep has [slurm] or [container])"},
			&cli.StringFlag{Name: "runner", EnvVars: []string{"EFAXX_RUNNER"}, Usage: "efaxx-runner the scripts start, for sweeps without a container (default: next to efaxx)"},
		},
		Action: func(c *cli.Context) error {
			if err := maxArgs(c, 1); err != nil {
				return err
			}
			if err := checkFormat(c.String("format")); err != nil {
				return err
			}
			s, err := loadSweep(c.Args().First())
			if err != nil {
				return err
			}
			if err := noRunnerIn(s, c.String("runner")); err != nil {
				return err
			}
			showSlurm := c.Bool("slurm") || (!c.IsSet("slurm") && s.HasSlurmTables())
			w := bufio.NewWriter(c.App.Writer) // a system call for each cell took seconds at 40,000 points
			if err := runPlan(c.Context, w, c.String("format"), c.String("workdir"), c.String("runner"), s, showSlurm); err != nil {
				return err
			}
			return w.Flush()
		},
	}
}

type planRow struct {
	Index      int            `json:"index"`
	Benchmark  string         `json:"benchmark"`
	Params     map[string]any `json:"params"`
	Sizes      []uint64       `json:"sizes"`
	Hash       string         `json:"hash"`
	Label      string         `json:"label"`
	RunnerArgs []string       `json:"runner_args"`
	Job        int            `json:"job"`  // the Slurm job of the plan that runs the point
	Step       int            `json:"step"` // its step in that job
}

// runPlan writes the plan of sweep s to w. It stops when ctx is done,
// returning its error: a sweep may have a million points.
func runPlan(ctx context.Context, w io.Writer, format, workdir, runner string, s *harness.Sweep, showSlurm bool) error {
	points, err := s.PointsContext(ctx) // once: a sweep may have a million
	if err != nil {
		return err
	}
	pl := harness.NewPlan(s, points)
	if !showSlurm {
		return writePlanTable(ctx, w, format, s, points, pl)
	}
	ss, err := harness.PlanSession(workdir, s)
	if err != nil {
		return err
	}
	r := harness.RunnerBinary{Path: harness.ImageRunner}
	if c := s.Resources.Container; c == nil {
		if r.Path, err = findRunner(runner); err != nil {
			return err
		}
	} else if cr, err := harness.ContainerRunner(c); err == nil {
		r = cr // else the image is not built yet: its digest is unknown
	}
	max, from := maxScriptSize(ctx)
	scripts, err := ss.Fit(ctx, pl, r, max)
	if err != nil {
		return err
	}
	if err := writePlanTable(ctx, w, format, s, points, pl); err != nil || format != "table" {
		return err
	}
	fmt.Fprintln(w)
	t, err := stepTable(ctx, points, pl)
	if err != nil {
		return err
	}
	if err := writeTable(w, format, t); err != nil {
		return err
	}
	for _, sp := range pl.Splits {
		fmt.Fprintf(w, "\nsplit: the %d points of %s run as %d jobs: one script of them all would be %s, more than "+
			"max_script_size, %s (%s)\n", sp.Points, sp.Shape, sp.Jobs, byteCount(sp.Bytes), byteCount(sp.Max), from)
	}
	for i, script := range scripts {
		if err := ctx.Err(); err != nil {
			return err
		}
		j := &pl.Jobs[i]
		fmt.Fprintf(w, "\n==> job %d: %s, %s: %s/%s <==\n", j.Index, j.Shape, quantity(len(j.Points), "step"), ss.JobDir(j), harness.ScriptName)
		numberLines(w, script)
	}
	return nil
}

// writePlanTable writes the table of the points of plan pl.
func writePlanTable(ctx context.Context, w io.Writer, format string, s *harness.Sweep, points []harness.Point, pl *harness.Plan) error {
	t, err := planTable(ctx, format, s, points, pl)
	if err != nil {
		return err
	}
	return writeTable(w, format, t)
}

// planTable is the table of the points of sweep s, each with its job and
// step in plan pl, as format writes it: rows of text, or records for json.
// It stops when ctx is done, returning its error.
func planTable(ctx context.Context, format string, s *harness.Sweep, points []harness.Point, pl *harness.Plan) (*table, error) {
	t := &table{header: []string{"#", "POINT", "RANKS", "PROVIDER", "SIZES", "ITERS", "WARMUP", "TIMEOUT", "HASH"}}
	if s.External != nil {
		t.header = []string{"#", "POINT", "RANKS", "SIZES", "TIMEOUT", "HASH", "COMMAND (each rank, no shell)"}
	}
	var rows []planRow
	for _, p := range points {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if format == "json" { // only json shows the params and runner arguments, a map and a slice a point
			job, step, _ := pl.StepOf(p.Index)
			rows = append(rows, planRow{Index: p.Index, Benchmark: p.Benchmark, Params: p.Params(), Sizes: p.Sizes,
				Hash: p.Hash, Label: p.Label(), RunnerArgs: p.RunnerArgs(), Job: job, Step: step})
		} else if s.External != nil {
			t.add(strconv.Itoa(p.Index), p.Label(), strconv.Itoa(p.Ranks), sizeRange(p.Sizes), p.Timeout.String(),
				p.Hash, externalCommand(p))
		} else {
			t.add(strconv.Itoa(p.Index), p.Label(), strconv.Itoa(p.Ranks), p.Provider, sizeRange(p.Sizes),
				strconv.Itoa(p.Iterations), strconv.Itoa(p.Warmup), p.Timeout.String(), p.Hash)
		}
	}
	t.records = rows
	return t, nil
}

// externalCommand shows the argv an external point runs, with
// {run_dir} for its run directory, each argument quoted unless plain.
func externalCommand(p harness.Point) string {
	spec, err := p.ExternalSpec("{run_dir}")
	if err != nil {
		return err.Error()
	}
	words := make([]string, len(spec.Argv))
	for i, a := range spec.Argv {
		words[i] = a
		// The {run_dir} placeholder's braces need no quotes, what follows
		// it may: "{run_dir}/out dir/x" is one argument. A control
		// character is quoted (escaped) too.
		if a == "" || strings.ContainsAny(strings.TrimPrefix(a, "{run_dir}"), " \t\n\"'\\$`;|&<>(){}*?") || strconv.Quote(a) != `"`+a+`"` {
			words[i] = strconv.Quote(a)
		}
	}
	return strings.Join(words, " ")
}

// stepTable is the point → job/step table of plan pl. It stops when ctx
// is done, returning its error.
func stepTable(ctx context.Context, points []harness.Point, pl *harness.Plan) (*table, error) {
	t := &table{header: []string{"#", "POINT", "JOB", "STEP", "SHAPE", "STEP NAME"}}
	for _, p := range points {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		job, step, _ := pl.StepOf(p.Index)
		t.add(strconv.Itoa(p.Index), p.Label(), strconv.Itoa(job), strconv.Itoa(step), pl.Jobs[job].Shape.String(), harness.StepName(p))
	}
	return t, nil
}

// maxScriptSize returns the largest job script the cluster takes, and
// where that number comes from: scontrol show config, or Slurm's default
// when scontrol does not answer.
func maxScriptSize(ctx context.Context) (int, string) {
	max, err := slurm.NewClient().MaxScriptSize(ctx)
	if err != nil {
		return slurm.DefaultMaxScriptSize, "Slurm's default: scontrol show config did not answer"
	}
	return max, "scontrol show config"
}

// byteCount writes a size in bytes as "7.8 MB (8178176 bytes)".
func byteCount(n int) string {
	return fmt.Sprintf("%.1f MB (%d bytes)", float64(n)/1e6, n)
}

// numberLines writes text with a line number before each line. A line
// may be megabytes long (a point's list of sizes is one word), which a
// bufio.Scanner stops at without a word.
func numberLines(w io.Writer, text []byte) {
	for n := 1; len(text) > 0; n++ {
		line, rest, _ := bytes.Cut(text, []byte("\n"))
		fmt.Fprintf(w, "%4d  %s\n", n, line)
		text = rest
	}
}

// sizeRange summarises a size list as "4KiB..16MiB (6)".
func sizeRange(sizes []uint64) string {
	if len(sizes) == 0 {
		return "-"
	}
	lo, hi := sizes[0], sizes[0]
	for _, s := range sizes {
		lo, hi = min(lo, s), max(hi, s)
	}
	return fmt.Sprintf("%s..%s (%d)", bytesize.Format(lo), bytesize.Format(hi), len(sizes))
}
