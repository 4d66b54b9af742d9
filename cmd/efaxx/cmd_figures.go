package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/urfave/cli/v2"

	"efaxx/plots"
	"efaxx/results"
	"efaxx/results/baselines"
)

func newFiguresCommand() *cli.Command {
	return &cli.Command{
		Name:      "figures",
		Usage:     "regenerate every figure of the figure specs from stored runs",
		ArgsUsage: "[NAME...]",
		Description: `Draws each figure spec of --specs (plots/figures/*.toml, built into efaxx, so
that it works from any directory), or the ones named, from the store: a PNG
at the spec's out path (relative to the current directory, or under
--out-dir) and an SVG beside it. With
--data, the runs under that directory (plots/data: the README's) are first
stored in a temporary store, which is drawn from instead of --db. The same
runs give the same bytes.

A figure whose data the store lacks is not drawn: the error names the spec,
the panel and what is missing. --allow-missing reports those figures and
exits 0 when every other figure was drawn.

Example:
   efaxx figures --data plots/data          # the README's figures (make figures)
   efaxx --db lab.db figures ipc queue       # two figures from your own store

` + exitStatus(""),
		Flags: append(figureFlags(),
			&cli.StringFlag{Name: "specs", Usage: "directory of figure specs (*.toml) (default: plots/figures where it exists, else the specs built into efaxx)"},
			&cli.BoolFlag{Name: "allow-missing", Usage: "skip figures whose data is missing, reporting them, and exit 0"},
		),
		Action: func(c *cli.Context) error {
			specs, err := loadSpecs(c.String("specs"))
			if err != nil {
				return err
			}
			if specs, err = pickSpecs(specs, c.Args().Slice()); err != nil {
				return err
			}
			return runFigures(c.Context, c.App.Writer, c.App.ErrWriter, figuresOptions{db: c.String("db"),
				data: c.String("data"), outDir: c.String("out-dir"), allowMissing: c.Bool("allow-missing")}, specs)
		},
	}
}

// loadSpecs reads the figure specs of dir; without one, those of
// plots/figures where the current directory has it (a checkout, whose
// specs may be newer than the binary), else the specs built into efaxx.
func loadSpecs(dir string) ([]*plots.Spec, error) {
	if dir != "" {
		return plots.LoadSpecs(dir)
	}
	if fi, err := os.Stat(plots.SpecDir); err == nil && fi.IsDir() {
		return plots.LoadSpecs(plots.SpecDir)
	}
	return plots.ShippedSpecs()
}

// figureFlags are the flags of figures and of plot SPEC.
func figureFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "data", Usage: "draw from the run directories under `DIR` (stored in a temporary store) instead of --db"},
		&cli.StringFlag{Name: "out-dir", Usage: "write each figure into `DIR` under its file name instead of its spec's out path"},
	}
}

type figuresOptions struct {
	db, data, outDir string
	allowMissing     bool
}

// pickSpecs returns the specs named, all of them when none is.
func pickSpecs(specs []*plots.Spec, names []string) ([]*plots.Spec, error) {
	if len(names) == 0 {
		return specs, nil
	}
	var out []*plots.Spec
	for _, n := range names {
		i := slices.IndexFunc(specs, func(s *plots.Spec) bool { return s.Name == n })
		if i < 0 {
			return nil, &usageError{msg: fmt.Sprintf("no figure spec is named %q", n), hint: "efaxx figures (every figure)"}
		}
		out = append(out, specs[i])
	}
	return out, nil
}

// runFigures draws each spec and reports it; one figure that fails does
// not stop the others.
func runFigures(ctx context.Context, w, ew io.Writer, o figuresOptions, specs []*plots.Spec) error {
	start := time.Now()
	if err := checkOuts(specs, o.outDir); err != nil {
		return err
	}
	db, done, err := openFigureStore(ctx, o)
	if err != nil {
		return err
	}
	defer done()
	var missing, failed int
	for _, s := range specs {
		out, err := drawSpec(ctx, db, s, o.outDir)
		switch {
		case errors.Is(err, plots.ErrMissingData):
			fmt.Fprintf(ew, "efaxx: not drawn: %v\n", err)
			missing++
		case err != nil:
			fmt.Fprintf(ew, "efaxx: %v\n", err)
			failed++
		default:
			fmt.Fprintf(w, "wrote %s and .svg\n", out)
		}
	}
	fmt.Fprintf(w, "%d of %d figures drawn in %.2fs\n", len(specs)-missing-failed, len(specs), time.Since(start).Seconds())
	if failed > 0 || missing > 0 && !o.allowMissing {
		return errReported
	}
	return nil
}

// drawSpec builds and saves one figure and returns the PNG's path.
func drawSpec(ctx context.Context, db *results.DB, s *plots.Spec, outDir string) (string, error) {
	fig, err := plots.Build(ctx, db, s)
	if err != nil {
		return "", err
	}
	out := outPath(s, outDir)
	return out, fig.Save(out)
}

// outPath is where a spec's PNG goes: its out path, or its file name
// under outDir.
func outPath(s *plots.Spec, outDir string) string {
	if outDir != "" {
		return filepath.Join(outDir, filepath.Base(s.Out))
	}
	return s.Out
}

// checkOuts refuses specs that would write the same file (one out path,
// or one file name under --out-dir): the second figure would replace the
// first, and both would be reported written.
func checkOuts(specs []*plots.Spec, outDir string) error {
	by := map[string]*plots.Spec{}
	for _, s := range specs {
		out := filepath.Clean(outPath(s, outDir))
		if prev := by[out]; prev != nil {
			return fmt.Errorf("figures %s (%s) and %s (%s) would both be written to %s: give them different out paths",
				prev.Name, prev.File, s.Name, s.File, out)
		}
		by[out] = s
	}
	return nil
}

// openFigureStore opens --db, or with --data a temporary store of the
// data's runs; done closes it and removes what it made.
func openFigureStore(ctx context.Context, o figuresOptions) (*results.DB, func(), error) {
	if o.data == "" {
		db, err := openStore(ctx, o.db)
		if err != nil {
			return nil, nil, err
		}
		return db, func() { db.Close() }, nil
	}
	tmp, err := os.MkdirTemp("", "efaxx-figures-")
	if err != nil {
		return nil, nil, fmt.Errorf("figure store: %w", err)
	}
	db, err := plots.OpenData(ctx, o.data, filepath.Join(tmp, "figures.db"))
	if err == nil {
		if err = importShippedBaselines(ctx, db); err != nil {
			db.Close()
		}
	}
	if err != nil {
		os.RemoveAll(tmp)
		return nil, nil, err
	}
	return db, func() { db.Close(); os.RemoveAll(tmp) }, nil
}

// importShippedBaselines stores every baseline that ships with efaxx in
// db: the published figures draw them.
func importShippedBaselines(ctx context.Context, db *results.DB) error {
	for _, name := range baselines.Names() {
		b, err := loadBaseline(name)
		if err != nil {
			return err
		}
		if _, err := db.ImportBaseline(ctx, b); err != nil {
			return err
		}
	}
	return nil
}
