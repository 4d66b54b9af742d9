package results

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// Verdicts of a compared group, from B's point of view against A.
const (
	VerdictSame       = "same"       // the test finds no difference
	VerdictBetter     = "better"     // B is significantly better
	VerdictWorse      = "worse"      // B is significantly worse, by less than the threshold
	VerdictRegression = "regression" // B is significantly worse, by more than the threshold
	VerdictUntested   = "untested"   // one sample per side and no iteration spread to test with
)

// Tests that decide a verdict.
const (
	TestBootstrap    = "bootstrap"     // see Bootstrap
	TestPerIteration = "per-iteration" // one sample per side: see Compare
	TestNone         = "none"          // one sample per side, without iteration spread
)

// defaultThreshold is Compare.Threshold when it is not set.
const defaultThreshold = 0.05

// Compare compares a metric between the runs of two filters, A (the
// reference) and B, per group of benchmark, By parameters and size. Each
// side's value is the median of its samples (every rank of every run).
//
// The test is a Bootstrap interval of median(B)/median(A) over the
// samples; B differs significantly when the interval excludes 1. When
// each side has a single sample there is nothing to resample, and the
// samples' own per-iteration times decide instead: B is significantly
// slower when its median iteration is slower than A's 99th percentile
// iteration, faster when its 99th percentile is faster than A's median.
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
	Bootstrap Bootstrap
}

// SideStat is one side of a compared group.
type SideStat struct {
	Samples int     `json:"samples"`
	Median  float64 `json:"median"`
}

// CompareRow is one compared group.
type CompareRow struct {
	Benchmark string         `json:"benchmark"`
	Params    map[string]any `json:"params"`
	Size      uint64         `json:"size"`
	A         SideStat       `json:"a"`
	B         SideStat       `json:"b"`
	Ratio     float64        `json:"ratio"`           // B.Median / A.Median
	Lo        *float64       `json:"ci_lo,omitempty"` // the bootstrap interval of Ratio; nil under another test
	Hi        *float64       `json:"ci_hi,omitempty"`
	Test      string         `json:"test"`
	Verdict   string         `json:"verdict"`
}

// Comparison is what Compare returns.
type Comparison struct {
	Metric    Metric       `json:"metric"`
	By        []string     `json:"by"`
	Threshold float64      `json:"threshold"`
	Bootstrap Bootstrap    `json:"bootstrap"`
	Rows      []CompareRow `json:"rows"`
	OnlyA     int          `json:"only_a"` // groups with samples in A only
	OnlyB     int          `json:"only_b"` // groups with samples in B only
}

// Regressions counts the rows whose verdict is a regression.
func (c *Comparison) Regressions() int {
	n := 0
	for _, r := range c.Rows {
		if r.Verdict == VerdictRegression {
			n++
		}
	}
	return n
}

// Compare runs c.
func (db *DB) Compare(ctx context.Context, c Compare) (*Comparison, error) {
	if c.Threshold == 0 {
		c.Threshold = defaultThreshold
	}
	c.Bootstrap = c.Bootstrap.defaults()
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
	res := &Comparison{Metric: c.Metric, By: append([]string{}, by...), Threshold: c.Threshold, Bootstrap: c.Bootstrap}
	res.Rows, res.OnlyA, res.OnlyB = c.judge(a, b, by)
	return res, nil
}

// groupKey names a group: benchmark, the by parameters' JSON, size.
type groupKey struct {
	benchmark string
	params    string // the by parameters' JSON texts, NUL-separated
	size      uint64
}

// side holds the samples of one side of one group.
type side struct {
	values   []float64 // the metric's values
	p50, p99 []float64 // each sample's iteration times, ns; nil for a baseline's published value
}

// loadSide reads every sample of the runs f selects, by group.
func (db *DB) loadSide(ctx context.Context, f RunFilter, m Metric, by []string) (map[groupKey]*side, error) {
	from, group, args, err := samplesFrom(f, m, by)
	if err != nil {
		return nil, err
	}
	rows, err := db.db.QueryContext(ctx, `SELECT `+group+`, v.x, v.p50, v.p99`+from, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[groupKey]*side{}
	keys := make([]*string, len(by))
	for rows.Next() {
		var k groupKey
		var x, p50, p99 float64
		dest := []any{&k.benchmark}
		for i := range keys {
			keys[i] = new(string)
			dest = append(dest, &nullText{s: keys[i]})
		}
		dest = append(dest, &k.size, &x, &p50, &p99)
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		k.params = joinKeys(keys)
		s := out[k]
		if s == nil {
			s = &side{}
			out[k] = s
		}
		s.values, s.p50, s.p99 = append(s.values, x), append(s.p50, p50), append(s.p99, p99)
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

// judge compares the groups both sides have, in key order, the bootstrap
// of each on its own goroutine, and counts the groups one side lacks.
func (c Compare) judge(a, b map[groupKey]*side, by []string) (rows []CompareRow, onlyA, onlyB int) {
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
		return cmp.Or(cmp.Compare(x.benchmark, y.benchmark), cmp.Compare(x.params, y.params), cmp.Compare(x.size, y.size))
	})
	rows = make([]CompareRow, len(keys))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, k := range keys {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			rows[i] = c.judgeOne(k, a[k], b[k], uint64(i), by)
		}()
	}
	wg.Wait()
	return rows, onlyA, onlyB
}

// judgeOne compares one group; stream picks the bootstrap's random stream.
func (c Compare) judgeOne(k groupKey, a, b *side, stream uint64, by []string) CompareRow {
	r := CompareRow{Benchmark: k.benchmark, Params: paramsOf(k, by), Size: k.size,
		A: SideStat{Samples: len(a.values), Median: median(slices.Clone(a.values))},
		B: SideStat{Samples: len(b.values), Median: median(slices.Clone(b.values))}}
	r.Ratio = r.B.Median / r.A.Median
	var slower, faster bool
	if len(a.values) == 1 && len(b.values) == 1 {
		r.Test = TestPerIteration
		if len(a.p50) == 0 || len(b.p50) == 0 || a.p99[0] <= a.p50[0] || b.p99[0] <= b.p50[0] {
			r.Test, r.Verdict = TestNone, VerdictUntested
			return r
		}
		slower, faster = b.p50[0] > a.p99[0], b.p99[0] < a.p50[0]
	} else {
		r.Test = TestBootstrap
		lo, hi := c.Bootstrap.ratioCI(a.values, b.values, stream)
		r.Lo, r.Hi = &lo, &hi
		// For a rate, a ratio below 1 is slower; for a time, above 1.
		below, above := hi < 1, lo > 1
		slower, faster = below, above
		if c.Metric.Lower {
			slower, faster = above, below
		}
	}
	r.Verdict = c.verdict(r.Ratio, slower, faster)
	return r
}

// verdict names the outcome of a test that found B significantly slower,
// faster, or neither.
func (c Compare) verdict(ratio float64, slower, faster bool) string {
	change := 1 - ratio // how much of A's rate B lost
	if c.Metric.Lower {
		change = ratio - 1 // how much longer B takes
	}
	switch {
	case slower && change > c.Threshold:
		return VerdictRegression
	case slower:
		return VerdictWorse
	case faster:
		return VerdictBetter
	}
	return VerdictSame
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
