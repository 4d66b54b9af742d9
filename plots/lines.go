package plots

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"efaxx/results"
)

// lines reads a panel of lines: the panel's statistic of metric Y against
// X, one line per series.
func lines(ctx context.Context, db *results.DB, p *Panel) (*PanelData, error) {
	runs, err := selectRuns(ctx, db, p.Runs)
	if err != nil {
		return nil, err
	}
	if err := checkDims(runs, p.Series, p.X); err != nil {
		return nil, err
	}
	m, err := results.LookupMetric(p.Y)
	if err != nil {
		return nil, err
	}
	// Where the series do not name the samples' variant, a line is the
	// benchmark's own samples: the references measured beside it (the
	// copy engines beside a copy kernel, cudaMemcpy beside a write on GPU
	// memory) are left out, and the variant is still read, so that a
	// point never pools two ways of measuring.
	q := results.SeriesQuery{Runs: runIDs(runs), Metric: m, Dims: p.Series, X: p.X, Sizes: p.Sizes, Roles: p.Roles}
	byVariant := !slices.Contains(p.Series, results.DimVariant)
	if byVariant {
		q.Dims = append(slices.Clone(p.Series), results.DimVariant)
		q.NotVariants = references(runs)
	}
	rows, err := db.Series(ctx, q)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, missing("runs %s (%s) have no samples with a value of %s%s", idRanges(runIDs(runs)), p.Runs, m.Name, sizesText(p.Sizes))
	}
	if byVariant {
		if rows, err = oneVariant(rows); err != nil {
			return nil, fmt.Errorf("runs %s (%s): %w", idRanges(runIDs(runs)), p.Runs, err)
		}
	}
	series, err := p.seriesOf(rows)
	if err != nil {
		return nil, fmt.Errorf("runs %s (%s): %w", idRanges(runIDs(runs)), p.Runs, err)
	}
	pd := &PanelData{XLabel: p.xLabel(), YLabel: p.yLabel(m), XScale: p.xScale(), YScale: p.yScale(),
		Series: series, runs: runs}
	if strings.HasPrefix(m.Name, results.ToolMetricPrefix) {
		if pd.YLabel, err = p.toolLabel(ctx, db, m, runs); err != nil {
			return nil, err
		}
	}
	if p.X != results.XSize {
		pd.XTicks = xValues(series)
	}
	return pd, nil
}

// oneVariant drops the variant, the last key, of rows whose series do
// not name it, or fails where a point of a line would pool samples of
// several variants: that line would be neither of them.
func oneVariant(rows []results.SeriesRow) ([]results.SeriesRow, error) {
	seen := map[string]string{} // series keys and x → the variant there
	for i := range rows {
		r := &rows[i]
		n := len(r.Keys) - 1
		v := r.Keys[n]
		r.Keys = r.Keys[:n]
		at := fmt.Sprint(strings.Join(r.Keys, "\x00"), "\x00", r.X)
		if prev, ok := seen[at]; ok && prev != v {
			where := fmt.Sprintf("x %g", r.X)
			if len(r.Keys) > 0 {
				where = fmt.Sprintf("series %q, %s", strings.Join(r.Keys, " "), where)
			}
			return nil, fmt.Errorf("a point would pool samples of variants %q and %q (%s): "+
				"add variant to series to draw each apart (series_values picks among them)", prev, v, where)
		}
		seen[at] = v
	}
	return rows, nil
}

// references returns the reference variants of the runs' benchmarks.
func references(runs []results.Run) []string {
	var refs []string
	for _, r := range runs {
		for _, v := range results.References(r.Benchmark) {
			if !slices.Contains(refs, v) {
				refs = append(refs, v)
			}
		}
	}
	return refs
}

// xValues returns the distinct x values of the series, in order.
func xValues(series []SeriesData) []float64 {
	var xs []float64
	for _, s := range series {
		for _, pt := range s.Points {
			xs = append(xs, pt.X)
		}
	}
	slices.Sort(xs)
	return slices.Compact(xs)
}

// selectRuns returns the runs s picks, or an error matching ErrMissingData
// when it picks none.
func selectRuns(ctx context.Context, db *results.DB, s Selector) ([]results.Run, error) {
	runs, err := s.Runs(ctx, db)
	if err != nil {
		return nil, err
	}
	if len(runs) == 0 {
		return nil, missing("no stored run matches %s", s)
	}
	return runs, nil
}

// checkDims fails when a run's point lacks a parameter that a dimension or
// x names, or when x's parameter is not a number: a line of "" would hide
// what is missing.
func checkDims(runs []results.Run, dims []string, x string) error {
	for _, d := range append(slices.Clone(dims), x) {
		if !isParam(d) {
			continue
		}
		var lacking []int64
		for _, r := range runs {
			if _, ok := r.Params[d]; !ok {
				lacking = append(lacking, r.ID)
			}
		}
		if len(lacking) > 0 {
			return missing("parameter %q, which the figure draws by, is missing from runs %s (sweep %s, benchmark %s): "+
				"it needs runs whose points set %s", d, idRanges(lacking), runs[0].Sweep, runs[0].Benchmark, d)
		}
		if d != x {
			continue
		}
		for _, r := range runs {
			if _, ok := r.Params[d].(float64); !ok {
				return fmt.Errorf("x: parameter %q of run %d is %q, not a number", d, r.ID, results.ParamText(r.Params[d]))
			}
		}
	}
	return nil
}

// isParam reports whether a dimension or x is a point parameter.
func isParam(d string) bool {
	switch d {
	case results.DimBenchmark, results.DimVariant, results.DimSweep, results.DimRun, results.XSize:
		return false
	}
	return true
}

// seriesOf groups rows into the panel's lines: the series_values in their
// order, or every series in natural order.
func (p *Panel) seriesOf(rows []results.SeriesRow) ([]SeriesData, error) {
	byKey := map[string]*SeriesData{}
	var keys []string
	for _, r := range rows {
		k := strings.Join(r.Keys, " ")
		s := byKey[k]
		if s == nil {
			s = &SeriesData{Key: k, Label: p.label(k)}
			byKey[k] = s
			keys = append(keys, k)
		}
		s.Points = append(s.Points, Point{X: r.X, Y: p.stat(r)})
	}
	if len(p.SeriesValues) == 0 {
		slices.SortFunc(keys, naturalCompare)
	} else {
		for _, k := range p.SeriesValues {
			if byKey[k] == nil {
				return nil, missing("no samples of series %q (%s); the series there are: %s",
					k, strings.Join(p.Series, " "), quoteAll(keys))
			}
		}
		keys = p.SeriesValues
	}
	out := make([]SeriesData, len(keys))
	labelled := map[string]string{} // label → the series key that has it
	for i, k := range keys {
		out[i] = *byKey[k]
		// A label is a series' style too (assignStyles): two lines of one
		// label would be drawn alike, one legend entry for both.
		if prev, ok := labelled[out[i].Label]; ok {
			return nil, fmt.Errorf("series %q and %q have the same label %q: give them labels of their own", prev, k, out[i].Label)
		}
		labelled[out[i].Label] = k
	}
	return out, nil
}

// label returns the legend text of series key k.
func (p *Panel) label(k string) string {
	if l, ok := p.Labels[k]; ok {
		return l
	}
	return k
}

// stat returns the panel's statistic of a row.
func (p *Panel) stat(r results.SeriesRow) float64 {
	switch p.Stat {
	case "mean":
		return r.Mean
	case "min":
		return r.Min
	case "max":
		return r.Max
	case "p99":
		return r.P99
	}
	return r.Median
}

// naturalCompare orders series keys word by word, numbers by value: 1,
// 32, 256 rather than 1, 256, 32.
func naturalCompare(a, b string) int {
	wa, wb := strings.Fields(a), strings.Fields(b)
	for i := range min(len(wa), len(wb)) {
		fa, errA := strconv.ParseFloat(wa[i], 64)
		fb, errB := strconv.ParseFloat(wb[i], 64)
		switch {
		case errA == nil && errB == nil && fa != fb:
			if fa < fb {
				return -1
			}
			return 1
		case wa[i] != wb[i] && (errA != nil || errB != nil):
			return strings.Compare(wa[i], wb[i])
		}
	}
	return len(wa) - len(wb)
}

// quoteAll writes keys as "a", "b"; or "none".
func quoteAll(keys []string) string {
	if len(keys) == 0 {
		return "none"
	}
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = strconv.Quote(k)
	}
	return strings.Join(q, ", ")
}

// sizesText says which sizes a panel keeps, for messages.
func sizesText(sizes []uint64) string {
	if len(sizes) == 0 {
		return ""
	}
	s := make([]string, len(sizes))
	for i, n := range sizes {
		s[i] = SizeLabel(n)
	}
	return " at sizes " + strings.Join(s, ", ")
}
