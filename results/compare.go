package results

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// Verdicts of a compared group, from B's point of view against A.
const (
	VerdictSame         = "same"         // the test finds no difference ("~")
	VerdictBetter       = "better"       // B is significantly better
	VerdictWorse        = "worse"        // B is significantly worse, by no more than the threshold
	VerdictRegression   = "regression"   // B is significantly worse, by more than the threshold
	VerdictInconclusive = "inconclusive" // too few runs on a side for the test to decide anything
)

// Tests that decide a verdict.
const (
	TestMannWhitney = "mann-whitney" // two sets of runs: Mann-Whitney U over the runs' values
	TestSignedRank  = "signed-rank"  // runs against a published value: Wilcoxon signed-rank
	TestNone        = "none"         // too few runs: inconclusive
)

// What an interval resamples.
const (
	IntervalRuns  = "runs"  // the runs' values: the spread from run to run
	IntervalRanks = "ranks" // the samples of a side's one run: the spread across ranks only
)

// Defaults of Compare's zero fields.
const (
	defaultThreshold = 0.05
	defaultAlpha     = 0.05
	defaultMinRuns   = 4
)

// Compare compares a metric between the runs of two filters, A (the
// reference) and B, per group of benchmark, By parameters and size.
//
// The unit of evidence is a run: a run's value in a group is the median
// of its samples there (its ranks, its peers), since ranks of one run
// share whatever slowed or sped that run, and counting them apart would
// take one lucky run for many. Each side's value is the median of its
// runs' values, and the ratio B/A compares the two.
//
// The test is Mann-Whitney U over the runs' values, two-sided, as
// benchstat does; the p-values of every tested group are adjusted
// together (Benjamini-Hochberg), so comparing many sizes at once does
// not multiply false alarms. B differs significantly when its adjusted
// p-value is below Alpha; a significant change for the worse by more than
// Threshold is a regression. A group with fewer than MinRuns runs on a
// side, or so few that no arrangement of them could reach Alpha, is
// inconclusive: not a pass, not a fail.
type Compare struct {
	A, B   RunFilter
	Metric Metric

	// By names the parameters to group by, besides benchmark and size.
	// Nil groups by every parameter whose value differs within A or
	// within B, so that two single runs compare whatever their params.
	By []string

	// Threshold is the relative change beyond which a significant change
	// for the worse is a regression: 0.05 is 5%. 0.05 when 0.
	Threshold float64

	// Alpha is the significance level of the adjusted p-values; 0.05
	// when 0.
	Alpha float64

	// MinRuns is the fewest runs a side needs for a verdict; 4 when 0.
	MinRuns int

	// Bootstrap draws the interval of the ratio.
	Bootstrap Bootstrap

	noInterval bool // judge only: a simulation needs no interval
}

// defaults fills the zero fields of c.
func (c Compare) defaults() Compare {
	if c.Threshold == 0 {
		c.Threshold = defaultThreshold
	}
	if c.Alpha == 0 {
		c.Alpha = defaultAlpha
	}
	if c.MinRuns == 0 {
		c.MinRuns = defaultMinRuns
	}
	c.Bootstrap = c.Bootstrap.defaults()
	return c
}

// Float is a float64 that JSON writes as null where it has no finite
// value, as a ratio over a median of 0: encoding/json refuses NaN and
// ±Inf, which failed the whole of compare's JSON output.
type Float float64

// MarshalJSON implements json.Marshaler.
func (f Float) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(f))
}

// SideStat is one side of a compared group.
type SideStat struct {
	Runs    int     `json:"runs"`    // runs with samples in the group
	Samples int     `json:"samples"` // their samples
	Median  float64 `json:"median"`  // the median of the runs' values
}

// Judgement is how one group was judged.
type Judgement struct {
	Ratio     Float    `json:"ratio"`              // B over A: the sides' medians; +Inf or NaN over a median of 0 (JSON: null)
	Lo        *float64 `json:"ci_lo,omitempty"`    // the bootstrap interval of Ratio; nil when nothing can be resampled, or an end has no value
	Hi        *float64 `json:"ci_hi,omitempty"`    //
	Interval  string   `json:"interval,omitempty"` // what the interval resamples: IntervalRuns or IntervalRanks
	Test      string   `json:"test"`
	P         *float64 `json:"p,omitempty"`          // the test's two-sided p-value; nil when untested
	PAdjusted *float64 `json:"p_adjusted,omitempty"` // adjusted across every group tested at once
	Verdict   string   `json:"verdict"`
	Note      string   `json:"note,omitempty"` // why a group is inconclusive

	minP  float64 // the smallest p-value the test could give with these runs
	lower bool    // the metric is a time: a ratio above 1 is worse
}

// CompareRow is one compared group.
type CompareRow struct {
	Benchmark string         `json:"benchmark"`
	Params    map[string]any `json:"params"`
	Size      uint64         `json:"size"`
	Variant   string         `json:"variant"` // the samples' variant ("floor", "cudaMemcpy"); "" for a run that measures one way
	A         SideStat       `json:"a"`
	B         SideStat       `json:"b"`
	Judgement
}

// ParamDiff is a parameter whose values differ between the two sides.
type ParamDiff struct {
	Key string `json:"key"`
	A   []any  `json:"a"` // its values in A, sorted; empty when no run of A has it
	B   []any  `json:"b"`
}

// Comparison is what Compare returns.
type Comparison struct {
	Metric    Metric       `json:"metric"`
	By        []string     `json:"by"`
	Threshold float64      `json:"threshold"`
	Alpha     float64      `json:"alpha"`
	MinRuns   int          `json:"min_runs"`
	Bootstrap Bootstrap    `json:"bootstrap"`
	Differ    []ParamDiff  `json:"differ"` // the parameters whose values differ between A and B
	Rows      []CompareRow `json:"rows"`
	Note      string       `json:"note,omitempty"` // when tested rows had too few runs to be significant alone
	OnlyA     int          `json:"only_a"`         // groups with samples in A only
	OnlyB     int          `json:"only_b"`         // groups with samples in B only

	// NotOKA and NotOKB are the runs a side selected but left out, as
	// they did not end ok (efaxx compare, where a side names no status).
	NotOKA []int64 `json:"not_ok_a"`
	NotOKB []int64 `json:"not_ok_b"`
}

// Count counts the rows whose verdict is v.
func (c *Comparison) Count(v string) int {
	n := 0
	for _, r := range c.Rows {
		if r.Verdict == v {
			n++
		}
	}
	return n
}

// Regressions counts the rows whose verdict is a regression.
func (c *Comparison) Regressions() int { return c.Count(VerdictRegression) }

// Compare runs c.
func (db *DB) Compare(ctx context.Context, c Compare) (*Comparison, error) {
	c = c.defaults()
	by := c.By
	if by == nil {
		va, err := db.varyingParams(ctx, c.A)
		if err != nil {
			return nil, fmt.Errorf("compare: %w", err)
		}
		vb, err := db.varyingParams(ctx, c.B)
		if err != nil {
			return nil, fmt.Errorf("compare: %w", err)
		}
		by = union(va, vb)
	}
	a, err := db.loadSide(ctx, c.A, c.Metric, by)
	if err != nil {
		return nil, fmt.Errorf("compare: side A: %w", err)
	}
	b, err := db.loadSide(ctx, c.B, c.Metric, by)
	if err != nil {
		return nil, fmt.Errorf("compare: side B: %w", err)
	}
	differ, err := db.paramDiffs(ctx, c.A, c.B)
	if err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	m, err := db.withToolUnit(ctx, c.Metric, c.A, c.B)
	if err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	res := &Comparison{Metric: m, By: append([]string{}, by...), Threshold: c.Threshold, Alpha: c.Alpha,
		MinRuns: c.MinRuns, Bootstrap: c.Bootstrap, Differ: differ, NotOKA: []int64{}, NotOKB: []int64{}}
	res.Rows, res.OnlyA, res.OnlyB, res.Note = c.judge(a, b, by)
	return res, nil
}

// groupKey names a group: benchmark, the by parameters' JSON, size and
// the samples' variant. What a run measures beside its benchmark (the
// queue's floor, cudaMemcpy on GPU memory) is a group of its own: pooled
// with the benchmark's samples, it would move a run's median and hide
// how much the benchmark itself changed.
type groupKey struct {
	benchmark string
	params    string // the by parameters' JSON texts, NUL-separated
	size      uint64
	variant   string
}

// side holds the samples of one side of one group, run by run.
type side struct {
	runs map[int64][]float64 // run id → the metric's values of its samples
}

// runValues returns each run's value, the median of its samples, in run
// id order.
func (s *side) runValues() []float64 {
	ids := make([]int64, 0, len(s.runs))
	for id := range s.runs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	out := make([]float64, len(ids))
	for i, id := range ids {
		out[i] = median(slices.Clone(s.runs[id]))
	}
	return out
}

// samples returns every sample of the side.
func (s *side) samples() []float64 {
	var out []float64
	for _, id := range slices.Sorted(maps.Keys(s.runs)) {
		out = append(out, s.runs[id]...)
	}
	return out
}

// stat sums the side up.
func (s *side) stat() SideStat {
	n := 0
	for _, v := range s.runs {
		n += len(v)
	}
	return SideStat{Runs: len(s.runs), Samples: n, Median: median(s.runValues())}
}

// loadSide reads every sample of the runs f selects, by group and run.
func (db *DB) loadSide(ctx context.Context, f RunFilter, m Metric, by []string) (map[groupKey]*side, error) {
	from, group, args, err := samplesFrom(f, m, by)
	if err != nil {
		return nil, err
	}
	rows, err := db.db.QueryContext(ctx, `SELECT `+group+`, v.variant, v.run_id, v.x`+from, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[groupKey]*side{}
	keys := make([]*string, len(by))
	for rows.Next() {
		var k groupKey
		var run int64
		var x float64
		dest := []any{&k.benchmark}
		for i := range keys {
			keys[i] = new(string)
			dest = append(dest, &nullText{s: keys[i]})
		}
		dest = append(dest, &k.size, &k.variant, &run, &x)
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		k.params = joinKeys(keys)
		s := out[k]
		if s == nil {
			s = &side{runs: map[int64][]float64{}}
			out[k] = s
		}
		s.runs[run] = append(s.runs[run], x)
	}
	return out, rows.Err()
}

// nullText scans a text column that may be NULL into s, NULL as "null".
type nullText struct{ s *string }

// Scan implements sql.Scanner.
func (n *nullText) Scan(v any) error {
	switch v := v.(type) {
	case nil:
		*n.s = "null"
	case string:
		*n.s = v
	case []byte:
		*n.s = string(v)
	default:
		return fmt.Errorf("scan %T as JSON text", v)
	}
	return nil
}

// joinKeys joins parameter JSON texts into groupKey.params.
func joinKeys(keys []*string) string {
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = *k
	}
	return strings.Join(parts, "\x00")
}

// judge compares the groups both sides have, in key order, each on a
// goroutine of its own, adjusts the p-values together and gives each row
// its verdict; it counts the groups one side lacks.
func (c Compare) judge(a, b map[groupKey]*side, by []string) (rows []CompareRow, onlyA, onlyB int, note string) {
	var keys []groupKey
	for k := range a {
		if _, ok := b[k]; ok {
			keys = append(keys, k)
		} else {
			onlyA++
		}
	}
	onlyB = len(b) - len(keys)
	slices.SortFunc(keys, func(x, y groupKey) int {
		return cmp.Or(cmp.Compare(x.benchmark, y.benchmark), cmp.Compare(x.params, y.params), cmp.Compare(x.size, y.size),
			cmp.Compare(x.variant, y.variant))
	})
	rows = make([]CompareRow, len(keys))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, k := range keys {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			rows[i] = c.testOne(k, a[k], b[k], uint64(i), by)
		}()
	}
	wg.Wait()
	js := make([]*Judgement, len(rows))
	for i := range rows {
		js[i] = &rows[i].Judgement
	}
	note = c.decide(js)
	return rows, onlyA, onlyB, note
}

// testOne compares one group: its sides, ratio, interval and p-value;
// stream picks the bootstrap's random stream.
func (c Compare) testOne(k groupKey, a, b *side, stream uint64, by []string) CompareRow {
	r := CompareRow{Benchmark: k.benchmark, Params: paramsOf(k, by), Size: k.size, Variant: k.variant, A: a.stat(), B: b.stat()}
	r.Judgement = c.interval(a, b, stream)
	r.Ratio, r.lower = Float(r.B.Median/r.A.Median), c.Metric.Lower
	what := fmt.Sprintf("%s in A, %s in B", runCount(r.A.Runs), runCount(r.B.Runs))
	r.minP = minMannWhitney(r.A.Runs, r.B.Runs)
	if r.Note = c.tooFew(what, " a side", min(r.A.Runs, r.B.Runs), r.minP); r.Note == "" {
		p := mannWhitney(a.runValues(), b.runValues())
		r.Test, r.P = TestMannWhitney, &p
	}
	return r
}

// interval returns the bootstrap interval of median(b)/median(a) over the
// runs' values, or over the samples where a side has one run: its ranks
// show how that run spread, though nothing of where another run would
// land. A side of one value (a published baseline) is taken as exact.
func (c Compare) interval(a, b *side, stream uint64) Judgement {
	j := Judgement{Test: TestNone, Interval: IntervalRuns}
	if c.noInterval {
		return Judgement{Test: TestNone}
	}
	va, vb := a.runValues(), b.runValues()
	if len(va) == 1 && len(a.samples()) > 1 || len(vb) == 1 && len(b.samples()) > 1 {
		j.Interval, va, vb = IntervalRanks, a.samples(), b.samples()
	}
	if len(va) < 2 && len(vb) < 2 {
		j.Interval = ""
		return j
	}
	lo, hi := c.Bootstrap.ratioCI(va, vb, stream)
	if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) { // resamples of a median of 0
		j.Interval = ""
		return j
	}
	j.Lo, j.Hi = &lo, &hi
	return j
}

// tooFew says why runs of which the smallest side has least cannot give a
// verdict, or "" when they can; minP is the smallest p-value the test
// can reach with them, what says how many runs there are, and per how
// they are counted (" a side").
func (c Compare) tooFew(what, per string, least int, minP float64) string {
	switch {
	case least < c.MinRuns:
		return fmt.Sprintf("%s: a verdict needs %s%s", what, runCount(c.MinRuns), per)
	case minP >= c.Alpha:
		return fmt.Sprintf("%s: no test of so few runs reaches p < %g", what, c.Alpha)
	}
	return ""
}

// runCount writes "1 run", "3 runs".
func runCount(n int) string {
	if n == 1 {
		return "1 run"
	}
	return fmt.Sprintf("%d runs", n)
}

// decide adjusts the p-values of the tested groups together and gives
// every group its verdict. It returns a note when some tested group had
// too few runs to be significant alone, given how many were tested: a
// lone difference among m needs p < α/m.
func (c Compare) decide(js []*Judgement) (note string) {
	p := make([]float64, len(js))
	for i, j := range js {
		p[i] = math.NaN()
		if j.P != nil {
			p[i] = *j.P
		}
	}
	adj := benjaminiHochberg(p)
	for i, r := range js {
		if r.P == nil {
			r.Verdict = VerdictInconclusive
			continue
		}
		r.PAdjusted = &adj[i]
		r.Verdict = c.verdict(float64(r.Ratio), r.lower, adj[i] < c.Alpha)
	}
	tested, weak, best := 0, 0, 0.0
	for _, r := range js {
		if r.P != nil {
			tested++
		}
	}
	for _, r := range js {
		if r.P != nil && r.minP*float64(tested) >= c.Alpha {
			weak++
			best = math.Max(best, r.minP)
		}
	}
	if weak > 0 {
		note = fmt.Sprintf("%d of the %d rows tested cannot be significant alone: their runs reach p = %.2g at best, "+
			"and among %d rows a lone difference needs p < %.2g; measure more runs", weak, tested, best, tested,
			c.Alpha/float64(tested))
	}
	return note
}

// verdict names the outcome of a ratio B/A that the test found
// significant, or not; lower says the metric is a time.
func (c Compare) verdict(ratio float64, lower, significant bool) string {
	change := 1 - ratio // how much of A's rate B lost
	if lower {
		change = ratio - 1 // how much longer B takes
	}
	switch {
	case !significant || change == 0 || math.IsNaN(change): // NaN: both medians 0, no change between them
		return VerdictSame
	case change > c.Threshold:
		return VerdictRegression
	case change > 0:
		return VerdictWorse
	}
	return VerdictBetter
}

// paramDiffs returns the parameters whose values differ between the runs
// of a and those of b, by key.
func (db *DB) paramDiffs(ctx context.Context, a, b RunFilter) ([]ParamDiff, error) {
	values := func(f RunFilter) (map[string]map[string]any, error) {
		f.Limit = 0
		runs, err := db.Runs(ctx, f)
		if err != nil {
			return nil, err
		}
		out := map[string]map[string]any{}
		for _, r := range runs {
			for k, v := range r.Params {
				if out[k] == nil {
					out[k] = map[string]any{}
				}
				out[k][ParamText(v)] = v
			}
		}
		return out, nil
	}
	va, err := values(a)
	if err != nil {
		return nil, err
	}
	vb, err := values(b)
	if err != nil {
		return nil, err
	}
	diffs := []ParamDiff{}
	for _, k := range union(slices.Sorted(maps.Keys(va)), slices.Sorted(maps.Keys(vb))) {
		ta, tb := slices.Sorted(maps.Keys(va[k])), slices.Sorted(maps.Keys(vb[k]))
		if slices.Equal(ta, tb) {
			continue
		}
		d := ParamDiff{Key: k, A: []any{}, B: []any{}}
		for _, t := range ta {
			d.A = append(d.A, va[k][t])
		}
		for _, t := range tb {
			d.B = append(d.B, vb[k][t])
		}
		diffs = append(diffs, d)
	}
	return diffs, nil
}

// paramsOf decodes the by parameters of k.
func paramsOf(k groupKey, by []string) map[string]any {
	out := map[string]any{}
	if len(by) == 0 {
		return out
	}
	for i, text := range strings.Split(k.params, "\x00") {
		var v any
		if json.Unmarshal([]byte(text), &v) == nil {
			out[by[i]] = v
		}
	}
	return out
}

// union returns the sorted union of two sorted lists.
func union(a, b []string) []string {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}
