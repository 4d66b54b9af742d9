package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"efaxx/harness"
	"efaxx/plots"
	"efaxx/results"
	"efaxx/results/record"
)

func newPlotCommand() *cli.Command {
	return &cli.Command{
		Name:      "plot",
		Usage:     "draw one figure spec, or stored runs' numbers against message size",
		ArgsUsage: "[SPEC.toml]",
		Description: `With a figure spec (plots/figures/*.toml), draws that figure as "efaxx figures"
does: a PNG at the spec's out path, or at --out, or under its file name in
--out-dir (not both), and an SVG beside it; --data draws it from run
directories instead of --db.

With --run or --sweep, draws one line per run and variant: the median
across ranks of the benchmark's own metric, as "efaxx show" prints it, against
message size on a log2 axis. That is Gbps for a network (the bytes each rank
sent and received), GB/s for an NVLink copy (ipc), Mops for the queue, and
the busbw nccl-tests printed, in GB/s, for its collectives. A run that
measures each size several ways (the queue's ring and its floor, an ipc copy
kernel and the copy engines) has a line per variant, its legend naming it
(variant=floor), the reference last. Runs in different units are refused,
not drawn on one axis. Choose runs by id, or take every run of a sweep's
latest session; only the runs that ended ok are drawn, and the others are
named (a failed or timed-out run holds only what its ranks wrote before
they stopped). This form draws from --db into --out, titled --title; it
refuses --data and --out-dir, which are a spec's.

Example:
   efaxx plot --data plots/data plots/figures/ipc.toml
   efaxx plot --run 3 --run 4 --out out/write.png
   efaxx plot --sweep demo --out out/demo.svg

` + exitStatus(""),
		Flags: append(specOnly(figureFlags()),
			&cli.Int64SliceFlag{Name: "run", Usage: "a run id to draw (repeat for several)"},
			&cli.StringFlag{Name: "sweep", Usage: "draw every run of this sweep's latest session"},
			&cli.StringFlag{Name: "out", Value: "out/bandwidth.png", Usage: "output file, .png or .svg (with a spec: .png, not with --out-dir)"},
			&cli.StringFlag{Name: "title", Usage: "figure title (default: the sweep's name; not with a spec)"},
		),
		Action: func(c *cli.Context) error {
			if c.Args().Len() > 0 {
				return plotSpec(c)
			}
			if err := checkRunsForm(c); err != nil {
				return err
			}
			return runPlot(c.Context, c.App.Writer, plotOptions{db: c.String("db"), runs: c.Int64Slice("run"),
				sweep: c.String("sweep"), out: c.String("out"), title: c.String("title")})
		},
	}
}

// plotSpec draws the one figure spec that plot was given.
func plotSpec(c *cli.Context) error {
	if c.Args().Len() > 1 || c.IsSet("run") || c.IsSet("sweep") || c.IsSet("title") {
		return &usageError{msg: "plot takes one figure spec, or --run/--sweep without one",
			hint: "efaxx plot plots/figures/ipc.toml"}
	}
	if c.IsSet("out") && c.IsSet("out-dir") {
		return &usageError{msg: "plot SPEC takes --out or --out-dir, not both: --out is the figure's path, --out-dir the folder it goes to under the spec's file name",
			hint: "efaxx plot --out out/ipc.png plots/figures/ipc.toml"}
	}
	spec, err := plots.LoadSpec(c.Args().First())
	if err != nil {
		return err
	}
	if c.IsSet("out") {
		if filepath.Ext(c.String("out")) != ".png" {
			return &usageError{msg: "with a figure spec, --out is a .png path (the .svg goes beside it)"}
		}
		spec.Out = c.String("out")
	}
	return runFigures(c.Context, c.App.Writer, c.App.ErrWriter, figuresOptions{db: c.String("db"),
		data: c.String("data"), outDir: c.String("out-dir")}, []*plots.Spec{spec})
}

// specOnly returns plot's copies of the flags of figures, their help
// saying that only plot SPEC takes them.
func specOnly(flags []cli.Flag) []cli.Flag {
	out := make([]cli.Flag, len(flags))
	for i, f := range flags {
		sf := *f.(*cli.StringFlag)
		sf.Usage += " (with a spec only)"
		out[i] = &sf
	}
	return out
}

// checkRunsForm refuses the flags of plot SPEC (figureFlags) in plot
// --run/--sweep, which draws from --db into --out and would ignore them.
func checkRunsForm(c *cli.Context) error {
	var set []string
	for _, f := range figureFlags() {
		if name := f.Names()[0]; c.IsSet(name) {
			set = append(set, "--"+name)
		}
	}
	if len(set) == 0 {
		return nil
	}
	if !c.IsSet("run") && !c.IsSet("sweep") {
		return &usageError{msg: fmt.Sprintf("%s: only with a figure spec", strings.Join(set, ", ")),
			hint: "efaxx plot --data plots/data plots/figures/ipc.toml"}
	}
	return &usageError{msg: fmt.Sprintf("plot --run/--sweep takes --out and --title, not %s (flags of plot SPEC, which draws a figure spec)",
		strings.Join(set, ", ")), hint: "efaxx plot --sweep demo --out out/demo.svg"}
}

type plotOptions struct {
	db, sweep, out, title string
	runs                  []int64
}

func runPlot(ctx context.Context, w io.Writer, o plotOptions) error {
	if (len(o.runs) == 0) == (o.sweep == "") {
		return &usageError{msg: "plot needs --run IDs or --sweep NAME (one of them)", hint: "efaxx plot --sweep demo"}
	}
	// Bad flag values are usage errors, found before the store is read.
	for _, id := range o.runs {
		if id <= 0 {
			return badRunID(fmt.Sprint(id))
		}
	}
	if ext := strings.ToLower(filepath.Ext(o.out)); ext != ".png" && ext != ".svg" {
		return &usageError{msg: fmt.Sprintf("--out %q: want a .png or .svg file", o.out), hint: "--out out/bandwidth.png"}
	}
	db, err := openStore(ctx, o.db)
	if err != nil {
		return err
	}
	defer db.Close()
	runs, err := selectRuns(ctx, db, o)
	if err != nil {
		return err
	}
	runs, notOK := keepOKRuns(runs)
	if len(runs) == 0 {
		return fmt.Errorf("plot: no run that ended ok: %s", notOK)
	}
	ids := make([]int64, len(runs))
	for i, r := range runs {
		ids[i] = r.ID
	}
	curves, err := db.Curves(ctx, ids)
	if err != nil {
		return err
	}
	title := o.title
	if title == "" {
		title = runs[0].Sweep
	}
	p, err := plots.Bandwidth(curves, title, caption(runs))
	if err != nil {
		return fmt.Errorf("plot runs %v: %w", ids, err)
	}
	if err := plots.Save(p, o.out); err != nil {
		return err
	}
	fmt.Fprintf(w, "wrote %s (%s)\n", o.out, quantity(len(runs), "run"))
	if notOK != "" {
		fmt.Fprintf(w, "left out: %s\n", notOK)
	}
	var empty []int64
	for _, c := range curves {
		if len(c.Points) == 0 {
			empty = append(empty, c.RunID)
		}
	}
	if len(empty) > 0 {
		fmt.Fprintf(w, "not drawn: %s %s, which have no samples\n", plural(len(empty), "run", "runs"), results.Ranges(empty))
	}
	return nil
}

// keepOKRuns returns the runs that ended ok, and names the others with
// their status: a failed, partial or timed-out run holds only what its
// ranks wrote before they stopped, and a line of it beside the others
// would read as a measurement of its point (as compare and the figures,
// plot leaves them out, and says so).
func keepOKRuns(runs []results.Run) ([]results.Run, string) {
	var ok []results.Run
	var left []string
	for _, r := range runs {
		if r.Status == record.StatusOK {
			ok = append(ok, r)
		} else {
			left = append(left, fmt.Sprintf("run %d (%s)", r.ID, r.Status))
		}
	}
	if len(left) == 0 {
		return ok, ""
	}
	return ok, strings.Join(left, ", ") + ", which did not end ok"
}

// selectRuns returns the runs asked for; for --sweep, the runs of the
// sweep's most recent session (the directory its newest run lives in).
func selectRuns(ctx context.Context, db *results.DB, o plotOptions) ([]results.Run, error) {
	if o.sweep == "" {
		if err := db.CheckRuns(ctx, o.runs); err != nil {
			return nil, err
		}
		var runs []results.Run
		for _, id := range o.runs {
			r, err := db.Run(ctx, id)
			if err != nil {
				return nil, err
			}
			runs = append(runs, *r)
		}
		return runs, nil
	}
	return latestSession(ctx, db, o.sweep)
}

// latestSession returns the runs of the most recent session of sweep (the
// directory its newest run lives in), by id.
func latestSession(ctx context.Context, db *results.DB, sweep string) ([]results.Run, error) {
	all, err := db.Runs(ctx, results.RunFilter{Sweep: sweep})
	if err != nil {
		return nil, err
	}
	if len(all) == 0 {
		if err := harness.CheckFilter(ctx, db, results.RunFilter{Sweep: sweep}); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("sweep %q: no run in the store", sweep)
	}
	session := filepath.Dir(all[0].Dir)
	var runs []results.Run
	for _, r := range all {
		if filepath.Dir(r.Dir) == session {
			runs = append(runs, r)
		}
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].ID < runs[j].ID })
	return runs, nil
}

// caption names where and when the runs were measured, and which they are.
func caption(runs []results.Run) string {
	hosts := map[string]bool{}
	var ids []string
	var last time.Time
	for _, r := range runs {
		for _, h := range r.Hosts {
			hosts[h] = true
		}
		ids = append(ids, fmt.Sprint(r.ID))
		if r.Started.After(last) {
			last = r.Started
		}
	}
	var hs []string
	for h := range hosts {
		hs = append(hs, h)
	}
	sort.Strings(hs)
	return fmt.Sprintf("host %s, %s, runs %s", dash(strings.Join(hs, ",")), last.UTC().Format("2006-01-02"),
		strings.Join(ids, ","))
}
