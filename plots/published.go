package plots

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"efaxx/results"
)

// KindPublished draws the numbers of an imported baseline (efaxx import
// baseline): a study's published tables, as its own figures drew them.
const KindPublished = "published"

// Dimensions of a published figure's series, besides the series' params.
const (
	DimSampleVariant = "sample_variant" // the kind of sample a series stands for: "out-of-place", "int"
	DimExperiment    = "experiment"     // the series' variant without its ", N GPUs"
)

// gpusSuffix ends the variant of a series of one GPU count.
var gpusSuffix = regexp.MustCompile(`, \d+ GPUs$`)

// published reads a panel of a baseline's series: the panel's metric
// against size, or against a parameter of the series (ranks), the
// statistic of its values at the panel's sizes. Runs.Benchmarks and
// Runs.Params select the series.
func published(ctx context.Context, db *results.DB, p *Panel) (*PanelData, error) {
	b, err := db.Baseline(ctx, p.Baseline)
	if errors.Is(err, results.ErrBaselineNotFound) {
		return nil, missing("baseline %q is not imported: efaxx import baseline %s", p.Baseline, p.Baseline)
	} else if err != nil {
		return nil, err
	}
	m, err := results.LookupMetric(p.Y)
	if err != nil {
		return nil, err
	}
	var rows []results.SeriesRow
	var files []string
	for i := range b.Series {
		s := &b.Series[i]
		if !p.picks(s) {
			continue
		}
		r, ok, err := p.publishedRows(s)
		if err != nil {
			return nil, err
		}
		if ok {
			rows = append(rows, r...)
			files = append(files, s.File+" at "+short(s.Commit))
		}
	}
	if len(rows) == 0 {
		return nil, missing("baseline %q has no series of %s for %s%s", p.Baseline, p.Y, p.Runs, sizesText(p.Sizes))
	}
	// The baseline orders its series by variant text ("..., 128 GPUs"
	// before "..., 16 GPUs"); a line's points go in x order.
	slices.SortStableFunc(rows, func(a, b results.SeriesRow) int { return cmp.Compare(a.X, b.X) })
	series, err := p.seriesOf(rows)
	if err != nil {
		return nil, fmt.Errorf("baseline %q: %w", p.Baseline, err)
	}
	pd := &PanelData{XLabel: p.xLabel(), YLabel: p.yLabel(m), XScale: p.xScale(), YScale: p.yScale(), Series: series,
		source: publishedCaption(b, files)}
	if p.X != results.XSize {
		pd.XTicks = xValues(series)
	}
	return pd, nil
}

// picks reports whether series s is one the panel draws: its metric,
// one of the selected benchmarks, and every selected parameter value.
func (p *Panel) picks(s *results.BaselineSeries) bool {
	if s.Metric != p.Y || (len(p.Runs.Benchmarks) > 0 && !slices.Contains(p.Runs.Benchmarks, s.Benchmark)) {
		return false
	}
	for k, want := range p.Runs.Params {
		if results.ParamText(s.Params[k]) != results.ParamText(want) {
			return false
		}
	}
	return true
}

// publishedRows returns the points of series s: one per size against
// size, or one, the statistic over the panel's sizes, against a
// parameter. ok is false when s has no value at the panel's sizes.
func (p *Panel) publishedRows(s *results.BaselineSeries) ([]results.SeriesRow, bool, error) {
	keys := make([]string, len(p.Series))
	for i, d := range p.Series {
		keys[i] = seriesDim(s, d)
	}
	var sizes []uint64
	for _, size := range slices.Sorted(maps.Keys(s.Values)) {
		if len(p.Sizes) == 0 || slices.Contains(p.Sizes, size) {
			sizes = append(sizes, size)
		}
	}
	if len(sizes) == 0 {
		return nil, false, nil
	}
	if p.X == results.XSize {
		rows := make([]results.SeriesRow, len(sizes))
		for i, size := range sizes {
			rows[i] = statRow(keys, float64(size), []float64{s.Values[size]})
		}
		return rows, true, nil
	}
	x, ok := number(s.Params[p.X])
	if !ok {
		return nil, false, fmt.Errorf("x: series %s %s %s has no number %q among its params", s.Benchmark, s.Variant, s.Metric, p.X)
	}
	values := make([]float64, len(sizes))
	for i, size := range sizes {
		values[i] = s.Values[size]
	}
	return []results.SeriesRow{statRow(keys, x, values)}, true, nil
}

// seriesDim returns the value of dimension d of series s.
func seriesDim(s *results.BaselineSeries, d string) string {
	switch d {
	case results.DimBenchmark:
		return s.Benchmark
	case results.DimVariant:
		return s.Variant
	case DimSampleVariant:
		return s.SampleVariant
	case DimExperiment:
		return gpusSuffix.ReplaceAllString(s.Variant, "")
	}
	return results.ParamText(s.Params[d])
}

// statRow is a point of values: every statistic of them, at x.
func statRow(keys []string, x float64, values []float64) results.SeriesRow {
	v := slices.Clone(values)
	slices.Sort(v)
	sum := 0.0
	for _, y := range v {
		sum += y
	}
	q := func(f float64) float64 { // linear between the two nearest, as SQLite's percentile()
		pos := f * float64(len(v)-1)
		lo := int(pos)
		if lo+1 >= len(v) {
			return v[len(v)-1]
		}
		return v[lo] + (pos-float64(lo))*(v[lo+1]-v[lo])
	}
	return results.SeriesRow{Keys: keys, X: x, Samples: len(v), Runs: 0, Min: v[0], P25: q(0.25), Median: q(0.5),
		P75: q(0.75), Max: v[len(v)-1], Mean: sum / float64(len(v)), P99: q(0.99)}
}

// publishedCaption says where a published figure's numbers come from.
func publishedCaption(b *results.Baseline, files []string) []string {
	slices.Sort(files)
	files = slices.Compact(files)
	text := fmt.Sprintf("Published by %s (%s), transcribed %s into efaxx baseline %s (efaxx import baseline %s)",
		strings.TrimPrefix(b.Repository, "https://github.com/"), strings.Join(files, "; "), b.Transcribed, b.Name, b.Name)
	return wrap(text, captionWidth)
}

// short returns the first 7 digits of a commit.
func short(commit string) string {
	if len(commit) > 7 {
		return commit[:7]
	}
	return commit
}
