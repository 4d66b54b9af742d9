package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"efaxx/harness"
	"efaxx/results"
)

func newCompareCommand() *cli.Command {
	return &cli.Command{
		Name:      "compare",
		Usage:     "compare a metric between two sets of runs, per message size, with a significance test",
		ArgsUsage: "A B | --baseline NAME RUNS",
		Description: `Compares B against A (the reference), per benchmark, parameter values and
message size: each side's median over all its samples (every rank of every
run), the ratio B/A, a confidence interval and a verdict.

A and B each select runs:
   12, 12,13,14          run ids
   sweep:NAME            every run of a sweep (name or hash)
   tag:KEY=VALUE, tag:KEY  runs with a tag
   FROM..TO              runs started in a window: now-14d..now-7d, 2026-11-01..2026-11-08
The filter flags (--benchmark, --param, --status, ...) narrow both sides.

Test: a bootstrap interval of median(B)/median(A), drawing each side's
samples with replacement (--resamples, --seed: the same output every time).
B differs significantly when the interval excludes 1. With a single sample
on each side, the samples' iteration times decide instead: B is slower when
its median iteration is slower than A's 99th percentile one. A significant
change for the worse by more than --threshold is a regression.

With --baseline NAME, compares the runs of one selector with a baseline of
published numbers (efaxx import baseline), each series in its own metric and
denominator, which the output states; the test is the same bootstrap, the
published value taken as exact.

Example:
   efaxx compare 12 15
   efaxx compare --benchmark write --status ok now-14d..now-7d now-7d..now
   efaxx compare --threshold 0.1 tag:driver=535 tag:driver=550
   efaxx compare --baseline libefaxx-p5 --variant SingleDMA 12

` + exitStatus("a regression: B is significantly worse than A, by more than --threshold"),
		Flags: append(filterFlags(),
			&cli.StringFlag{Name: "metric", Value: "gbps", Usage: "the metric to compare"},
			&cli.StringFlag{Name: "by", Usage: "group by these parameters, comma-separated (default: those that vary within a side)"},
			&cli.Float64Flag{Name: "threshold", Value: 0.05, Usage: "a significant change for the worse beyond this fraction is a regression"},
			&cli.IntFlag{Name: "resamples", Value: 1000, Usage: "bootstrap resamples"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "bootstrap seed"},
			&cli.StringFlag{Name: "baseline", Usage: "compare one selector with this imported baseline"},
			&cli.StringSliceFlag{Name: "variant", Usage: "only this variant of the baseline (repeat for several)"},
			formatFlag,
		),
		Action: func(c *cli.Context) error {
			if c.String("baseline") != "" {
				bc, label, err := baselineFlags(c)
				if err != nil {
					return err
				}
				return runCompareBaseline(c.Context, c.App.Writer, c.String("db"), c.String("format"), bc, label)
			}
			o, err := compareFlags(c)
			if err != nil {
				return err
			}
			return runCompare(c.Context, c.App.Writer, c.String("db"), c.String("format"), o)
		},
	}
}

// compareOptions are the decoded arguments of compare.
type compareOptions struct {
	results.Compare
	labelA, labelB string
}

// compareFlags decodes the flags and the two selectors.
func compareFlags(c *cli.Context) (compareOptions, error) {
	a := c.Args().Slice()
	if len(a) != 2 {
		return compareOptions{}, &usageError{msg: "compare needs two selectors, A and B", hint: "efaxx compare 12 15"}
	}
	now := time.Now()
	common, err := runFilter(c, now)
	if err != nil {
		return compareOptions{}, err
	}
	o := compareOptions{labelA: a[0], labelB: a[1]}
	if o.A, err = selector(a[0], common, now); err != nil {
		return o, err
	}
	if o.B, err = selector(a[1], common, now); err != nil {
		return o, err
	}
	if o.Metric, err = metricFlag(c.String("metric")); err != nil {
		return o, err
	}
	if c.IsSet("by") {
		o.By = splitList(c.String("by"))
	}
	o.Threshold = c.Float64("threshold")
	if o.Threshold <= 0 || o.Threshold >= 1 || c.Int("resamples") < 100 {
		return o, &usageError{msg: "--threshold must be in (0, 1) and --resamples at least 100", hint: "--threshold 0.05"}
	}
	o.Bootstrap = results.Bootstrap{Resamples: c.Int("resamples"), Seed: c.Uint64("seed")}
	return o, nil
}

// baselineFlags decodes compare --baseline NAME SELECTOR.
func baselineFlags(c *cli.Context) (results.BaselineCompare, string, error) {
	a := c.Args().Slice()
	if len(a) != 1 {
		return results.BaselineCompare{}, "", &usageError{msg: "compare --baseline needs one selector of runs",
			hint: "efaxx compare --baseline libefaxx-p5 12"}
	}
	now := time.Now()
	common, err := runFilter(c, now)
	if err != nil {
		return results.BaselineCompare{}, "", err
	}
	bc := results.BaselineCompare{Baseline: c.String("baseline"), Threshold: c.Float64("threshold"),
		Bootstrap: results.Bootstrap{Resamples: c.Int("resamples"), Seed: c.Uint64("seed")}}
	if c.IsSet("variant") {
		bc.Variants = c.StringSlice("variant")
	}
	bc.Runs, err = selector(a[0], common, now)
	return bc, a[0], err
}

// selector narrows common to the runs arg names.
func selector(arg string, common results.RunFilter, now time.Time) (results.RunFilter, error) {
	f := common
	bad := func(err error) (results.RunFilter, error) {
		return f, &usageError{msg: fmt.Sprintf("selector %q: %v", arg, err), hint: "12, 12,13, sweep:NAME, tag:KEY=VALUE or now-14d..now-7d"}
	}
	switch {
	case strings.HasPrefix(arg, "sweep:"):
		f.Sweep = strings.TrimPrefix(arg, "sweep:")
	case strings.HasPrefix(arg, "tag:"):
		tags, err := tagFilters([]string{strings.TrimPrefix(arg, "tag:")})
		if err != nil {
			return bad(err)
		}
		f.Tags = append(append([]results.TagFilter(nil), f.Tags...), tags...)
	case strings.Contains(arg, ".."):
		from, to, _ := strings.Cut(arg, "..")
		var err error
		if f.Since, err = parseWhen(from, now); err != nil {
			return bad(err)
		}
		if to == "now" {
			to = ""
		}
		if f.Until, err = parseWhen(to, now); err != nil {
			return bad(err)
		}
	default:
		for _, part := range strings.Split(arg, ",") {
			id, err := strconv.ParseInt(part, 10, 64)
			if err != nil || id <= 0 {
				return bad(errors.New("not a run id"))
			}
			f.IDs = append(f.IDs, id)
		}
	}
	return f, nil
}

func runCompare(ctx context.Context, w io.Writer, dbPath, format string, o compareOptions) error {
	if err := checkFormat(format); err != nil {
		return err
	}
	db, err := openStore(ctx, dbPath)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := errors.Join(harness.CheckFilter(ctx, db, o.A), harness.CheckFilter(ctx, db, o.B),
		harness.CheckParamNames(ctx, db, o.By)); err != nil {
		return err
	}
	c, err := db.Compare(ctx, o.Compare)
	if err != nil {
		return err
	}
	if len(c.Rows) == 0 {
		return fmt.Errorf("compare %s %s: no benchmark, parameters and size in common (%d groups in A only, %d in B only)",
			o.labelA, o.labelB, c.OnlyA, c.OnlyB)
	}
	if format == "table" {
		printCompareHead(w, c, o.labelA, o.labelB)
	}
	if err := writeTable(w, format, compareTable(c)); err != nil {
		return err
	}
	if format == "table" {
		printCompareFoot(w, c)
	}
	if c.Regressions() > 0 {
		return errVerdict
	}
	return nil
}

// printCompareHead says what is compared and by which test.
func printCompareHead(w io.Writer, c *results.Comparison, a, b string) {
	fmt.Fprintf(w, "%s (%s): B = %s against A = %s\n", c.Metric.Name, c.Metric.Unit, b, a)
	fmt.Fprintf(w, "test: bootstrap %.0f%% interval of median(B)/median(A) over the samples (%d resamples, seed %d);\n",
		100*c.Bootstrap.Level, c.Bootstrap.Resamples, c.Bootstrap.Seed)
	fmt.Fprintf(w, "      per-iteration p50/p99 of the two samples where each side has one;\n")
	fmt.Fprintf(w, "regression: significantly worse by more than %.0f%%\n\n", 100*c.Threshold)
}

// compareTable lays out the rows of c.
func compareTable(c *results.Comparison) *table {
	unit := " (" + c.Metric.Unit + ")"
	header := append(append([]string{"BENCHMARK"}, upper(c.By)...), "SIZE", "A SAMPLES", "A MEDIAN"+unit,
		"B SAMPLES", "B MEDIAN"+unit, "B/A", "INTERVAL", "TEST", "VERDICT")
	t := &table{header: header, records: c}
	for _, r := range c.Rows {
		row := []string{r.Benchmark}
		for _, k := range c.By {
			row = append(row, paramCell(r.Params[k]))
		}
		interval := "-"
		if r.Lo != nil {
			interval = fmt.Sprintf("[%.3f, %.3f]", *r.Lo, *r.Hi)
		}
		row = append(row, harness.FormatSize(r.Size), fmt.Sprint(r.A.Samples), num(r.A.Median),
			fmt.Sprint(r.B.Samples), num(r.B.Median), fmt.Sprintf("%.3f", r.Ratio), interval, r.Test, r.Verdict)
		t.add(row...)
	}
	return t
}

// printCompareFoot counts the verdicts and the groups left out.
func printCompareFoot(w io.Writer, c *results.Comparison) {
	fmt.Fprintf(w, "\n%d regression(s) in %d groups", c.Regressions(), len(c.Rows))
	if c.OnlyA+c.OnlyB > 0 {
		fmt.Fprintf(w, "; not compared: %d groups only in A, %d only in B", c.OnlyA, c.OnlyB)
	}
	fmt.Fprintln(w)
}
