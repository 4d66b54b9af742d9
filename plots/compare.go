package plots

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"efaxx/results"
)

// compare reads a panel of ratios: per size, the median of the panel's
// runs over the median of the reference runs (or a baseline's published
// value), with the bootstrap interval of results.Compare, one line per
// series, and rules at 1 and at the regression threshold.
func compare(ctx context.Context, db *results.DB, p *Panel) (*PanelData, error) {
	runs, err := selectRuns(ctx, db, p.Runs)
	if err != nil {
		return nil, err
	}
	if p.Baseline != "" {
		return compareBaseline(ctx, db, p, runs)
	}
	ref, err := selectRuns(ctx, db, *p.Reference)
	if err != nil {
		return nil, fmt.Errorf("reference: %w", err)
	}
	m, err := results.LookupMetric(p.Y)
	if err != nil {
		return nil, err
	}
	by := slices.DeleteFunc(slices.Clone(p.Series), func(d string) bool { return d == results.DimBenchmark || d == results.DimVariant })
	if err := checkDims(slices.Concat(runs, ref), by, results.XSize); err != nil {
		return nil, err
	}
	c, err := db.Compare(ctx, results.Compare{A: results.RunFilter{IDs: runIDs(ref)}, B: results.RunFilter{IDs: runIDs(runs)},
		Metric: m, By: by, Threshold: p.Threshold})
	if err != nil {
		return nil, err
	}
	if len(c.Rows) == 0 {
		return nil, missing("runs %s (%s) and the reference runs %s (%s) have no benchmark, series and size in common "+
			"(%d groups only in the reference, %d only in the runs)", idRanges(runIDs(runs)), p.Runs,
			idRanges(runIDs(ref)), p.Reference, c.OnlyA, c.OnlyB)
	}
	rows := make([]results.SeriesRow, len(c.Rows))
	points := map[string][]Point{}
	for i, r := range c.Rows {
		rows[i] = results.SeriesRow{Keys: compareKeys(p.Series, r), X: float64(r.Size)}
		k := strings.Join(rows[i].Keys, " ")
		points[k] = append(points[k], Point{X: float64(r.Size), Y: float64(r.Ratio), Lo: r.Lo, Hi: r.Hi})
	}
	pd, err := ratioPanel(p, m, rows, points, intervalBasis(c.Rows))
	if err != nil {
		return nil, err
	}
	pd.runs = slices.Concat(ref, runs)
	pd.Rules = thresholdRules(m, c.Threshold)
	return pd, nil
}

// intervalBasis says what the rows' intervals resample: the runs, or
// where a side has one run, that run's ranks, which show how its ranks
// spread and nothing of how another run would land (the spec's comment
// says which).
func intervalBasis(rows []results.CompareRow) string {
	n := 0
	for _, r := range rows {
		if r.Interval == results.IntervalRanks {
			n++
		}
	}
	switch n {
	case 0:
		return "over runs"
	case len(rows):
		return "over ranks"
	}
	return "over runs or ranks"
}

// compareKeys returns the series dimensions' values of a compared group.
func compareKeys(dims []string, r results.CompareRow) []string {
	keys := make([]string, len(dims))
	for i, d := range dims {
		if d == results.DimBenchmark {
			keys[i] = r.Benchmark
		} else if d == results.DimVariant { // compare's rows are per variant too
			keys[i] = r.Variant
		} else if v, ok := r.Params[d]; ok {
			keys[i] = results.ParamText(v)
		}
	}
	return keys
}

// ratioPanel groups compared rows into lines. Two rows of one line at one
// size come from groups the series do not tell apart (two benchmarks, or
// a parameter left out): that is an error, not a line that zigzags.
func ratioPanel(p *Panel, m results.Metric, rows []results.SeriesRow, points map[string][]Point, basis string) (*PanelData, error) {
	series, err := p.seriesOf(rows)
	if err != nil {
		return nil, err
	}
	for i := range series {
		pts := points[series[i].Key]
		slices.SortStableFunc(pts, func(a, b Point) int { return cmp.Compare(a.X, b.X) })
		for j := 1; j < len(pts); j++ {
			if pts[j].X == pts[j-1].X {
				return nil, fmt.Errorf("series %q has two groups at size %s: add the dimension that tells them apart "+
					"(benchmark, or a parameter) to series", series[i].Key, SizeLabel(uint64(pts[j].X)))
			}
		}
		series[i].Points = pts
	}
	yl := p.YLabel
	if yl == "" {
		yl = fmt.Sprintf("%s ratio, runs / reference (95%% interval %s)", m.Name, basis)
	}
	return &PanelData{XLabel: p.xLabel(), YLabel: yl, XScale: p.xScale(), YScale: p.yScale(), Series: series}, nil
}

// thresholdRules returns the rules of a ratio panel: no change, and the
// threshold beyond which a worse ratio is a regression.
func thresholdRules(m results.Metric, threshold float64) []Rule {
	worse := 1 - threshold
	if m.Lower {
		worse = 1 + threshold
	}
	return []Rule{{Y: 1, Label: "same"}, {Y: worse, Label: fmt.Sprintf("regression (%.0f%% worse)", 100*threshold)}}
}

// compareBaseline reads a ratio panel of runs against a stored baseline:
// one line per published series, each in its own metric.
func compareBaseline(ctx context.Context, db *results.DB, p *Panel, runs []results.Run) (*PanelData, error) {
	c, err := db.CompareBaseline(ctx, results.BaselineCompare{Baseline: p.Baseline, Runs: results.RunFilter{IDs: runIDs(runs)},
		Threshold: p.Threshold})
	if err != nil {
		return nil, err
	}
	if len(c.Rows) == 0 {
		return nil, missing("runs %s (%s) share no benchmark and size with baseline %q: %s",
			idRanges(runIDs(runs)), p.Runs, p.Baseline, strings.Join(c.Skipped, "; "))
	}
	points := map[string][]Point{}
	var keys []string
	for _, r := range c.Rows {
		k := r.Series.Benchmark + " " + r.Variant + " (" + r.Metric + ")"
		if points[k] == nil {
			keys = append(keys, k)
		}
		points[k] = append(points[k], Point{X: float64(r.Size), Y: float64(r.Ratio), Lo: r.Lo, Hi: r.Hi})
	}
	pd := &PanelData{XLabel: p.xLabel(), XScale: p.xScale(), YScale: p.yScale(), runs: runs,
		YLabel: "ratio, runs / published value (median; 95% interval)", Rules: []Rule{{Y: 1, Label: "same"}}}
	if p.YLabel != "" {
		pd.YLabel = p.YLabel
	}
	for _, k := range keys {
		pd.Series = append(pd.Series, SeriesData{Key: k, Label: p.label(k), Points: points[k]})
	}
	return pd, nil
}
