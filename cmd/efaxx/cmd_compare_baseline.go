package main

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"efaxx/bytesize"
	"efaxx/harness"
	"efaxx/results"
	"efaxx/results/baselines"
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
	notOK, err := keepOK(ctx, db, &c.Runs)
	if err != nil {
		return err
	}
	res, err := db.CompareBaseline(ctx, c)
	switch {
	case errors.Is(err, results.ErrBaselineNotFound):
		return &usageError{msg: err.Error(), hint: "efaxx import baseline " + c.Baseline}
	case errors.Is(err, results.ErrNoSeries):
		return &usageError{msg: err.Error()}
	case err != nil:
		return err
	}
	res.NotOK = notOK
	if len(res.Rows) == 0 {
		n, err := db.CountRuns(ctx, c.Runs)
		if err != nil {
			return err
		}
		switch { // say so, rather than that no series has a run
		case n == 0 && len(notOK) > 0:
			return fmt.Errorf("compare %s with baseline %s: %s selects no run that ended ok (%s %s did not; status:STATUS or --status compares them)",
				label, c.Baseline, label, plural(len(notOK), "run", "runs"), results.Ranges(notOK))
		case n == 0:
			return fmt.Errorf("compare %s with baseline %s: %s selects no runs", label, c.Baseline, label)
		}
		return fmt.Errorf("compare %s with baseline %s: no series to compare:\n  %s", label, c.Baseline,
			strings.Join(res.Skipped, "\n  "))
	}
	if format == "table" {
		printBaselineHead(w, res, label)
	}
	if err := writeTable(w, format, baselineTable(res)); err != nil {
		return err
	}
	count := func(v string) int {
		n := 0
		for _, r := range res.Rows {
			if r.Verdict == v {
				n++
			}
		}
		return n
	}
	if format == "table" {
		fmt.Fprintf(w, "\n%d rows: %s; not compared: %d series\n", len(res.Rows), verdictCounts(count), len(res.Skipped))
		if len(res.NotCompared) > 0 {
			fmt.Fprintf(w, "runs not compared: %s: no compared series has their benchmark and setup\n", results.Ranges(res.NotCompared))
		}
		if len(res.NotOK) > 0 {
			fmt.Fprintf(w, "runs left out: %s, which did not end ok (status:STATUS or --status compares them)\n", results.Ranges(res.NotOK))
		}
		if i := slices.IndexFunc(res.Rows, func(r results.BaselineRow) bool { return r.Verdict == results.VerdictInconclusive }); i >= 0 {
			fmt.Fprintf(w, "inconclusive: too few runs to judge %d rows (%s): neither a pass nor a fail; measure more runs\n",
				count(results.VerdictInconclusive), res.Rows[i].Note)
		}
		if res.Note != "" {
			fmt.Fprintln(w, "note: "+res.Note)
		}
	}
	if count(results.VerdictRegression) > 0 {
		return errVerdict
	}
	return nil
}

// printBaselineHead says what is compared, in which unit and by which
// test, and each series' denominator.
func printBaselineHead(w io.Writer, c *results.BaselineComparison, label string) {
	fmt.Fprintf(w, "runs %s beside baseline %s: %s\n", label, c.Name, c.Description)
	if shipped, ok := baselines.Lookup(c.Name); ok && fmt.Sprintf("%x", sha256.Sum256(shipped)) != c.Hash {
		// An older import may lack what the shipped file has since learned,
		// such as the params that keep a series to runs of its setup.
		fmt.Fprintf(w, "note: this store's %s is not the file this efaxx ships; efaxx import baseline %s replaces it\n",
			c.Name, c.Name)
	}
	fmt.Fprintf(w, "each series in its own metric, so the runs are shown in the baseline's unit and denominator:\n")
	for _, s := range c.Series {
		fmt.Fprintf(w, "  %s %s (%s): %s\n    from %s at %s\n    %s\n", s.Benchmark, s.Variant, s.Metric, s.Denominator,
			s.File, s.Commit, seriesRuns(s))
	}
	printSeriesDiffs(w, c)
	fmt.Fprintf(w, "test: Wilcoxon signed-rank of the runs' values (each the median of its samples) against the published\n")
	fmt.Fprintf(w, "      value, taken as exact; p adjusted across the %d rows (Benjamini-Hochberg); ~ when p >= %g; a verdict\n",
		len(c.Rows), c.Alpha)
	fmt.Fprintf(w, "      needs %s; regression: significantly worse by more than %.0f%%; interval: %.0f%% bootstrap\n\n",
		quantity(c.MinRuns, "run"), 100*c.Threshold, 100*c.Bootstrap.Level)
}

// baselineTable lays out the rows of c.
func baselineTable(c *results.BaselineComparison) *table {
	t := &table{header: []string{"BENCHMARK", "VARIANT", "METRIC", "SIZE", "BASELINE", "RUNS", "RUN MEDIAN",
		"RUN/BASELINE", "INTERVAL", "P", "VERDICT"}, records: c}
	for _, r := range c.Rows {
		t.add(r.Series.Benchmark, r.Variant, r.Metric, bytesize.Format(r.Size), num(r.Baseline), fmt.Sprint(r.Runs.Runs),
			num(r.Runs.Median), fmt.Sprintf("%.3f", r.Ratio), intervalCell(r.Judgement), pCell(r.Judgement), verdictCell(r.Verdict))
	}
	return t
}

// printSeriesDiffs says how the runs of a benchmark differ from its
// series, where none of them was compared; where one was, its setup
// says which runs it took.
func printSeriesDiffs(w io.Writer, c *results.BaselineComparison) {
	for _, d := range c.Differ {
		if slices.ContainsFunc(c.Series, func(s results.BaselineSeries) bool { return s.Benchmark == d.Benchmark }) {
			continue
		}
		parts := make([]string, len(d.Params))
		for i, p := range d.Params {
			parts[i] = fmt.Sprintf("%s: series %s, runs %s", p.Key, printable(valueList(p.A)), printable(valueList(p.B)))
		}
		fmt.Fprintf(w, "differs, not compared: %s %s (%s): %s\n", d.Benchmark, d.Variant, d.Metric, strings.Join(parts, "; "))
	}
}

// seriesRuns says which of the selected runs a series is compared with.
func seriesRuns(s results.BaselineSeries) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(s.Params)) {
		parts = append(parts, k+"="+results.ParamText(s.Params[k]))
	}
	text := "with the selected runs of " + s.Benchmark
	if len(parts) > 0 {
		text = "with the selected runs that have " + strings.Join(parts, ", ")
	}
	if s.SampleVariant != "" {
		text += ", their " + s.SampleVariant + " samples"
	}
	return printable(text)
}
