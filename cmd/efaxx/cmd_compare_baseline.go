package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"efaxx/harness"
	"efaxx/results"
)

// runCompareBaseline puts the runs of f beside the imported baseline name.
func runCompareBaseline(ctx context.Context, w io.Writer, dbPath, format string, c results.BaselineCompare, label string) error {
	if err := checkFormat(format); err != nil {
		return err
	}
	db, err := openStore(ctx, dbPath)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := harness.CheckFilter(ctx, db, c.Runs); err != nil {
		return err
	}
	res, err := db.CompareBaseline(ctx, c)
	if errors.Is(err, results.ErrBaselineNotFound) {
		return &usageError{msg: err.Error(), hint: "efaxx import baseline " + c.Baseline}
	} else if err != nil {
		return err
	}
	if len(res.Rows) == 0 {
		return fmt.Errorf("compare %s with baseline %s: nothing in common: %q", label, c.Baseline, res.Skipped)
	}
	if format == "table" {
		printBaselineHead(w, res, label)
	}
	if err := writeTable(w, format, baselineTable(res)); err != nil {
		return err
	}
	regressions := 0
	for _, r := range res.Rows {
		if r.Verdict == results.VerdictRegression {
			regressions++
		}
	}
	if format == "table" {
		fmt.Fprintf(w, "\n%d regression(s) in %d rows; not compared: %d series\n", regressions, len(res.Rows), len(res.Skipped))
	}
	if regressions > 0 {
		return errVerdict
	}
	return nil
}

// printBaselineHead says what is compared, in which unit and by which
// test, and each series' denominator.
func printBaselineHead(w io.Writer, c *results.BaselineComparison, label string) {
	fmt.Fprintf(w, "runs %s beside baseline %s: %s\n", label, c.Name, c.Description)
	fmt.Fprintf(w, "each series in its own metric, so the runs are shown in the baseline's unit and denominator:\n")
	for _, s := range c.Series {
		fmt.Fprintf(w, "  %s %s (%s): %s\n    from %s at %s\n", s.Benchmark, s.Variant, s.Metric, s.Denominator, s.File, s.Commit)
	}
	fmt.Fprintf(w, "test: bootstrap %.0f%% interval of median(runs)/baseline over the runs' samples, the published value taken as exact\n",
		100*c.Bootstrap.Level)
	fmt.Fprintf(w, "      (%d resamples, seed %d); regression: significantly worse by more than %.0f%%\n\n",
		c.Bootstrap.Resamples, c.Bootstrap.Seed, 100*c.Threshold)
}

// baselineTable lays out the rows of c.
func baselineTable(c *results.BaselineComparison) *table {
	t := &table{header: []string{"BENCHMARK", "VARIANT", "METRIC", "SIZE", "BASELINE", "RUN SAMPLES", "RUN MEDIAN",
		"RUN/BASELINE", "INTERVAL", "VERDICT"}, records: c}
	for _, r := range c.Rows {
		interval := "-"
		if r.Lo != nil {
			interval = fmt.Sprintf("[%.3f, %.3f]", *r.Lo, *r.Hi)
		}
		t.add(r.Series.Benchmark, r.Variant, r.Metric, harness.FormatSize(r.Size), num(r.Baseline), fmt.Sprint(r.Runs.Samples),
			num(r.Runs.Median), fmt.Sprintf("%.3f", r.Ratio), interval, r.Verdict)
	}
	return t
}
