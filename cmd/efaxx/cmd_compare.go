package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"efaxx/bytesize"
	"efaxx/harness"
	"efaxx/results"
)

func newCompareCommand() *cli.Command {
	return &cli.Command{
		Name:      "compare",
		Usage:     "compare a metric between two sets of runs, per message size, run against run",
		ArgsUsage: "A B (or --a ... --b ...; or --baseline NAME RUNS)",
		Description: `Compares B against A (the reference), per benchmark, parameter values,
message size and variant (what a run measures beside its benchmark, such
as the queue's floor or cudaMemcpy on GPU memory, is a row of its own),
and says which parameters differ between the two sides.

A and B each select runs, given as two arguments or as --a and --b (each
repeatable: the terms of one side must all hold):
   12, 12,13,14            run ids
   sweep:NAME              runs of a sweep (name or hash)
   tag:KEY=VALUE, tag:KEY  runs with a tag
   benchmark:NAME, status:STATUS, host:HOST, param:KEY=VALUE
   FROM..TO                runs started in a window: now-14d..now-7d, 2026-11-01..2026-11-08,
                           2026-11-25T05:55:00Z..now (each end as --since takes it)
The filter flags (--benchmark, --param, --status, ...) narrow both sides.
A side keeps the runs that ended ok unless it names a status (status:STATUS
or --status): a failed, partial or timed-out run holds only what its ranks
wrote before they stopped, so the others are left out, and named.

The unit of evidence is a run: a run's value is the median of its samples
(its ranks) at that size, since a run's ranks share whatever slowed it.
Each side's value is the median of its runs' values, and B/A their ratio,
with a 95% bootstrap interval over the runs (over one run's ranks where a
side has a single run: that shows the ranks' spread, not the runs').

Test (as benchstat): Mann-Whitney U over the runs' values, two-sided; the
p-values of every row are adjusted together (Benjamini-Hochberg), so that
testing many sizes at once does not multiply false alarms. A row differs
when its adjusted p is below --alpha; "~" when it does not. A significant
change for the worse by more than --threshold is a regression. A row with
fewer than --min-runs runs on a side, or too few for any test to reach
--alpha, is inconclusive: not a pass, not a fail; measure more runs.
docs/statistics.md gives the false-alarm and detection rates measured on
this project's own runs.

With --baseline NAME, compares the runs of one selector with a baseline of
published numbers (efaxx import baseline), each series in its own metric and
denominator, which the output states, and only with the runs that have the
series' setup (its params: provider, memory, strategy, ranks, ...): a series
no selected run fits is not compared, and the output says what differs. The
test is Wilcoxon's signed-rank over the runs' values against the published
one, taken as exact.

Example:
   efaxx compare 12,13,14,15 16,17,18,19
   efaxx compare --benchmark write --status ok now-14d..now-7d now-7d..now
   efaxx compare --a tag:driver=535 --a param:provider=efa --b tag:driver=550 --b param:provider=efa
   efaxx compare --baseline libefaxx-p5 --variant SingleDMA sweep:p5-write

` + exitStatus("a regression: B is significantly worse than A, by more than --threshold"),
		Flags: append(filterFlags(),
			&cli.StringSliceFlag{Name: "a", Usage: "a term selecting side A (repeat: all must hold); instead of the first argument"},
			&cli.StringSliceFlag{Name: "b", Usage: "a term selecting side B (repeat: all must hold); instead of the second argument"},
			&cli.StringFlag{Name: "metric", Value: "gbps", Usage: "the metric to compare"},
			&cli.StringFlag{Name: "by", Usage: "group by these parameters, comma-separated; \"\": by none (default: those that vary within a side)"},
			&cli.Float64Flag{Name: "threshold", Value: 0.05, Usage: "a significant change for the worse beyond this fraction is a regression"},
			&cli.Float64Flag{Name: "alpha", Value: 0.05, Usage: "significance level of the adjusted p-values"},
			&cli.IntFlag{Name: "min-runs", Value: 4, Usage: "the fewest runs a side needs for a verdict"},
			&cli.IntFlag{Name: "resamples", Value: 1000, Usage: "bootstrap resamples of the interval, 100 to 1000000"},
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

// compareFlags decodes the flags and the two sides.
func compareFlags(c *cli.Context) (compareOptions, error) {
	a, b, err := sideTerms(c)
	if err != nil {
		return compareOptions{}, err
	}
	now := time.Now()
	common, err := runFilter(c, now)
	if err != nil {
		return compareOptions{}, err
	}
	o := compareOptions{labelA: strings.Join(a, " "), labelB: strings.Join(b, " ")}
	if o.A, err = selector(a, common, now); err != nil {
		return o, err
	}
	if o.B, err = selector(b, common, now); err != nil {
		return o, err
	}
	if o.Metric, err = metricFlag(c.String("metric")); err != nil {
		return o, err
	}
	if c.IsSet("by") {
		if o.By, err = byFlag(c.String("by")); err != nil {
			return o, err
		}
	}
	if o.Threshold, o.Alpha, o.MinRuns, o.Bootstrap, err = testFlags(c); err != nil {
		return o, err
	}
	return o, nil
}

// sideTerms returns the terms of each side: --a and --b, or the two
// arguments.
func sideTerms(c *cli.Context) (a, b []string, err error) {
	switch {
	case c.IsSet("a") || c.IsSet("b"):
		if !c.IsSet("a") || !c.IsSet("b") || c.NArg() > 0 {
			return nil, nil, &usageError{msg: "compare takes --a and --b, both, or two arguments A B",
				hint: "efaxx compare --a tag:build=old --b tag:build=new"}
		}
		return c.StringSlice("a"), c.StringSlice("b"), nil
	case c.NArg() != 2:
		return nil, nil, &usageError{msg: "compare needs two sides, A and B", hint: "efaxx compare 12,13,14,15 16,17,18,19"}
	}
	return []string{c.Args().Get(0)}, []string{c.Args().Get(1)}, nil
}

// maxResamples bounds --resamples. A million resamples fix an interval's
// ends far finer than the runs' own spread; each row holds its resamples
// in memory, so a slip of the finger (1e11) would exhaust it.
const maxResamples = 1_000_000

// testFlags decodes --threshold, --alpha, --min-runs, --resamples and --seed.
// The ranges are written so that NaN, which every comparison fails, is
// out of them.
func testFlags(c *cli.Context) (threshold, alpha float64, minRuns int, bs results.Bootstrap, err error) {
	threshold, alpha, minRuns = c.Float64("threshold"), c.Float64("alpha"), c.Int("min-runs")
	resamples := c.Int("resamples")
	switch {
	case !(threshold > 0 && threshold < 1):
		err = &usageError{msg: fmt.Sprintf("--threshold %g: want a fraction in (0, 1)", threshold), hint: "--threshold 0.05"}
	case !(alpha > 0 && alpha < 1):
		err = &usageError{msg: fmt.Sprintf("--alpha %g: want a level in (0, 1)", alpha), hint: "--alpha 0.05"}
	case minRuns < 1:
		err = &usageError{msg: fmt.Sprintf("--min-runs %d: want at least 1", minRuns), hint: "--min-runs 4"}
	case resamples < 100 || resamples > maxResamples:
		err = &usageError{msg: fmt.Sprintf("--resamples %d: want 100 to %d", resamples, maxResamples), hint: "--resamples 1000"}
	}
	return threshold, alpha, minRuns, results.Bootstrap{Resamples: resamples, Seed: c.Uint64("seed")}, err
}

// baselineFlags decodes compare --baseline NAME SELECTOR.
func baselineFlags(c *cli.Context) (results.BaselineCompare, string, error) {
	terms := c.StringSlice("b")
	switch {
	case c.IsSet("a"):
		return results.BaselineCompare{}, "", &usageError{msg: "compare --baseline takes no --a: the baseline is side A"}
	case len(terms) == 0 && c.NArg() == 1:
		terms = c.Args().Slice()
	case len(terms) == 0 || c.NArg() > 0:
		return results.BaselineCompare{}, "", &usageError{msg: "compare --baseline needs one selector of runs",
			hint: "efaxx compare --baseline libefaxx-p5 12"}
	}
	now := time.Now()
	common, err := runFilter(c, now)
	if err != nil {
		return results.BaselineCompare{}, "", err
	}
	bc := results.BaselineCompare{Baseline: c.String("baseline")}
	if bc.Threshold, bc.Alpha, bc.MinRuns, bc.Bootstrap, err = testFlags(c); err != nil {
		return bc, "", err
	}
	if c.IsSet("variant") {
		bc.Variants = c.StringSlice("variant")
	}
	bc.Runs, err = selector(terms, common, now)
	return bc, strings.Join(terms, " "), err
}

// selector narrows common by each term of one side.
func selector(terms []string, common results.RunFilter, now time.Time) (results.RunFilter, error) {
	f := common
	f.Tags, f.Params, f.IDs = slices.Clone(f.Tags), slices.Clone(f.Params), slices.Clone(f.IDs)
	for _, t := range terms {
		if err := narrow(&f, t, now); err != nil {
			return f, &usageError{msg: fmt.Sprintf("selector %q: %v", t, err),
				hint: "12,13, sweep:NAME, tag:KEY=VALUE, param:KEY=VALUE, benchmark:NAME, status:ok or now-14d..now-7d"}
		}
	}
	return f, nil
}

// termKinds are the kinds of selector term written KIND:VALUE.
var termKinds = []string{"sweep", "benchmark", "status", "host", "tag", "param"}

// narrow narrows f by one selector term.
func narrow(f *results.RunFilter, term string, now time.Time) error {
	kind, value, found := strings.Cut(term, ":")
	// A time window's RFC 3339 ends hold colons too: a term is KIND:VALUE
	// only for a known kind, so that sweep:a..b stays a sweep's name.
	if !found || !slices.Contains(termKinds, kind) && strings.Contains(term, "..") {
		kind, value = "", term
	}
	set := func(field *string) error {
		if *field != "" && *field != value {
			return fmt.Errorf("a side has one %s: %q and %q", kind, *field, value)
		}
		*field = value
		return nil
	}
	switch kind {
	case "sweep":
		return set(&f.Sweep)
	case "benchmark":
		return set(&f.Benchmark)
	case "status":
		return set(&f.Status)
	case "host":
		return set(&f.Host)
	case "tag":
		tags, err := tagFilters([]string{value})
		f.Tags = append(f.Tags, tags...)
		return err
	case "param":
		ps, err := paramFilters([]string{value})
		f.Params = append(f.Params, ps...)
		return err
	case "":
	default:
		return fmt.Errorf("no kind of term %q", kind)
	}
	if from, to, ok := strings.Cut(term, ".."); ok {
		if to == "now" {
			to = ""
		}
		since, err := parseWhen(from, now)
		if err != nil {
			return err
		}
		until, err := parseWhen(to, now)
		if err != nil {
			return err
		}
		// A window narrows what --since, --until or another window of the
		// side selected, as every term does; it does not replace it.
		if since.After(f.Since) {
			f.Since = since
		}
		if !until.IsZero() && (f.Until.IsZero() || until.Before(f.Until)) {
			f.Until = until
		}
		return nil
	}
	for _, part := range strings.Split(term, ",") {
		id, err := strconv.ParseInt(part, 10, 64)
		if err != nil || id <= 0 {
			return errors.New("not a run id")
		}
		f.IDs = append(f.IDs, id)
	}
	return nil
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
	var notOK [2][]int64
	for i, f := range []*results.RunFilter{&o.A, &o.B} {
		if notOK[i], err = keepOK(ctx, db, f); err != nil {
			return err
		}
	}
	if err := checkSides(ctx, db, o, notOK); err != nil {
		return err
	}
	c, err := db.Compare(ctx, o.Compare)
	if err != nil {
		return err
	}
	c.NotOKA, c.NotOKB = notOK[0], notOK[1]
	switch {
	case len(c.Rows) == 0 && (c.OnlyA == 0 || c.OnlyB == 0):
		// Not that the sides share nothing: a side has nothing to compare.
		side := "A"
		if c.OnlyA > 0 {
			side = "B"
		}
		return fmt.Errorf("compare %s with %s: no sample of side %s has a value of %s", o.labelA, o.labelB, side, c.Metric.Name)
	case len(c.Rows) == 0:
		return fmt.Errorf("compare %s with %s: no benchmark, parameters and size in common (%d groups in A only, %d in B only)",
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

// checkSides says when a side selects no run at all, or none that ended
// ok (notOK, per side, those it left out), rather than that the sides
// have nothing in common, and refuses sides that share runs: a run on
// both sides is compared with itself, which looks like a pass.
func checkSides(ctx context.Context, db *results.DB, o compareOptions, notOK [2][]int64) error {
	var ids [2][]int64
	for i, f := range []results.RunFilter{o.A, o.B} {
		f.Limit = 0
		runs, err := db.Runs(ctx, f)
		if err != nil {
			return err
		}
		switch {
		case len(runs) == 0 && len(notOK[i]) > 0:
			return fmt.Errorf("compare %s with %s: side %s selects no run that ended ok (%s %s did not; status:STATUS or --status compares them)",
				o.labelA, o.labelB, []string{"A", "B"}[i], plural(len(notOK[i]), "run", "runs"), results.Ranges(notOK[i]))
		case len(runs) == 0:
			return fmt.Errorf("compare %s with %s: side %s selects no runs", o.labelA, o.labelB, []string{"A", "B"}[i])
		}
		for _, r := range runs {
			ids[i] = append(ids[i], r.ID)
		}
	}
	var shared []int64
	for _, id := range ids[0] {
		if slices.Contains(ids[1], id) {
			shared = append(shared, id)
		}
	}
	if len(shared) > 0 {
		return &usageError{msg: fmt.Sprintf("compare %s with %s: the sides share runs %s: a run on both sides is compared with itself",
			o.labelA, o.labelB, results.Ranges(shared)), hint: "sides of different runs, as in efaxx compare 1,2,3,4 5,6,7,8"}
	}
	return nil
}

// printCompareHead says what is compared, how the sides differ, and by
// which test.
func printCompareHead(w io.Writer, c *results.Comparison, a, b string) {
	fmt.Fprintf(w, "%s (%s): B = %s against A = %s\n", c.Metric.Name, c.Metric.Unit, printable(b), printable(a))
	if len(c.Differ) == 0 {
		fmt.Fprintln(w, "the sides' runs have the same parameter values")
	}
	for _, d := range c.Differ {
		fmt.Fprintf(w, "differs: %s: A %s, B %s\n", d.Key, printable(valueList(d.A)), printable(valueList(d.B)))
	}
	for i, ids := range [][]int64{c.NotOKA, c.NotOKB} {
		if len(ids) > 0 {
			fmt.Fprintf(w, "left out of %s: %s %s, which did not end ok (status:STATUS or --status compares them)\n",
				[]string{"A", "B"}[i], plural(len(ids), "run", "runs"), results.Ranges(ids))
		}
	}
	fmt.Fprintf(w, "test: Mann-Whitney U over the runs (a run's value: the median of its samples), two-sided, p adjusted\n")
	fmt.Fprintf(w, "      across the %d rows (Benjamini-Hochberg); ~ when p >= %g; a verdict needs %s a side\n",
		len(c.Rows), c.Alpha, quantity(c.MinRuns, "run"))
	fmt.Fprintf(w, "regression: significantly worse by more than %.0f%%; interval: %.0f%% bootstrap of B/A\n\n",
		100*c.Threshold, 100*c.Bootstrap.Level)
}

// valueList writes parameter values as "a, b", or "-" for none.
func valueList(vs []any) string {
	if len(vs) == 0 {
		return "-"
	}
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = results.ParamText(v)
	}
	return strings.Join(parts, ", ")
}

// compareTable lays out the rows of c.
func compareTable(c *results.Comparison) *table {
	unit := " (" + c.Metric.Unit + ")"
	variants := slices.ContainsFunc(c.Rows, func(r results.CompareRow) bool { return r.Variant != "" })
	header := append(append([]string{"BENCHMARK"}, upper(c.By)...), "SIZE")
	if variants { // as show: a run that measures a size several ways has a row for each
		header = append(header, "VARIANT")
	}
	header = append(header, "A RUNS", "A MEDIAN"+unit, "B RUNS", "B MEDIAN"+unit, "B/A", "INTERVAL", "P", "VERDICT")
	t := &table{header: header, records: c}
	for _, r := range c.Rows {
		row := []string{r.Benchmark}
		for _, k := range c.By {
			row = append(row, paramCell(r.Params[k]))
		}
		row = append(row, bytesize.Format(r.Size))
		if variants {
			row = append(row, dash(r.Variant))
		}
		row = append(row, fmt.Sprint(r.A.Runs), num(r.A.Median),
			fmt.Sprint(r.B.Runs), num(r.B.Median), fmt.Sprintf("%.3f", r.Ratio), intervalCell(r.Judgement),
			pCell(r.Judgement), verdictCell(r.Verdict))
		t.add(row...)
	}
	return t
}

// intervalCell writes a row's interval and what it resamples.
func intervalCell(j results.Judgement) string {
	if j.Lo == nil {
		return "-"
	}
	return fmt.Sprintf("[%.3f, %.3f] %s", *j.Lo, *j.Hi, j.Interval)
}

// pCell writes a row's adjusted p-value, or "-" when untested.
func pCell(j results.Judgement) string {
	if j.PAdjusted == nil {
		return "-"
	}
	return fmt.Sprintf("%.3g", *j.PAdjusted)
}

// verdictCell writes a verdict as the table shows it: "~" for no
// significant difference, as benchstat does.
func verdictCell(v string) string {
	switch v {
	case results.VerdictSame:
		return "~"
	case results.VerdictRegression:
		return "REGRESSION"
	}
	return v
}

// printCompareFoot counts the verdicts and the groups left out, and says
// plainly what inconclusive means.
func printCompareFoot(w io.Writer, c *results.Comparison) {
	fmt.Fprintf(w, "\n%d rows: %s", len(c.Rows), verdictCounts(c.Count))
	if c.OnlyA+c.OnlyB > 0 {
		fmt.Fprintf(w, "; not compared: %d groups only in A, %d only in B", c.OnlyA, c.OnlyB)
	}
	fmt.Fprintln(w)
	if n := c.Count(results.VerdictInconclusive); n > 0 {
		i := slices.IndexFunc(c.Rows, func(r results.CompareRow) bool { return r.Verdict == results.VerdictInconclusive })
		fmt.Fprintf(w, "inconclusive: too few runs to judge %d rows (%s): neither a pass nor a fail; measure each side more times\n",
			n, c.Rows[i].Note)
	}
	if c.Note != "" { // rows "~" only because their runs could not show a lone difference: no pass
		fmt.Fprintln(w, "note: "+c.Note)
	}
}

// verdictCounts writes "1 regression, 3 ~, 2 inconclusive".
func verdictCounts(count func(string) int) string {
	var parts []string
	for _, v := range []string{results.VerdictRegression, results.VerdictWorse, results.VerdictSame, results.VerdictBetter,
		results.VerdictInconclusive} {
		if n := count(v); n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, verdictCell(v)))
		}
	}
	return strings.Join(parts, ", ")
}
