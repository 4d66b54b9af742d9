package plots

import (
	"context"
	"fmt"
	"strings"

	"efaxx/results"
)

// slowSpeed is the speed below which a size's slowest sample is named on
// the panel: 10% slower than the run's median at that size.
const slowSpeed = 0.9

// spread reads a panel of one run's samples per size: a box per size
// (whiskers at the extremes, the box from p25 to p75, the median across
// it), the slowest sample named where it lags, and the slowest ranks,
// hosts and rails under the axis (results.RankSpread).
func spread(ctx context.Context, db *results.DB, p *Panel) (*PanelData, error) {
	runs, err := selectRuns(ctx, db, p.Runs)
	if err != nil {
		return nil, err
	}
	if len(runs) != 1 {
		return nil, fmt.Errorf("a spread figure draws one run, and %s picks %d (runs %s): narrow it",
			p.Runs, len(runs), idRanges(runIDs(runs)))
	}
	m, err := results.LookupMetric(p.Y)
	if err != nil {
		return nil, err
	}
	// The boxes are of the benchmark's own samples, as RankSpread's speeds
	// are: a reference measured beside it (rank 0's cudaMemcpy on GPU
	// memory, the queue's floor) is not a rank of the run.
	rows, err := db.Series(ctx, results.SeriesQuery{Runs: runIDs(runs), Metric: m, X: results.XSize, Sizes: p.Sizes, Roles: p.Roles,
		NotVariants: results.References(runs[0].Benchmark)})
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, missing("run %d (%s) has no samples with a value of %s%s", runs[0].ID, p.Runs, m.Name, sizesText(p.Sizes))
	}
	n := p.Slowest
	if n == 0 {
		n = 2
	}
	sp, err := db.RankSpread(ctx, runs[0].ID, m, n)
	if err != nil {
		return nil, err
	}
	pd := &PanelData{XLabel: p.xLabel(), YLabel: p.yLabel(m), XScale: p.xScale(), YScale: p.yScale(), runs: runs,
		Footnote: slowest(sp)}
	if strings.HasPrefix(m.Name, results.ToolMetricPrefix) {
		if pd.YLabel, err = p.toolLabel(ctx, db, m, runs); err != nil {
			return nil, err
		}
	}
	for _, r := range rows {
		pd.Boxes = append(pd.Boxes, Box{X: r.X, Samples: r.Samples, Min: r.Min, P25: r.P25, Median: r.Median, P75: r.P75, Max: r.Max})
	}
	pd.Notes = slowNotes(sp, p.Sizes)
	return pd, nil
}

// slowNotes names, at each size, the slowest sample's rank and host where
// it is more than 10% slower than the median.
func slowNotes(sp *results.Spread, sizes []uint64) []Note {
	var notes []Note
	for _, s := range sp.Sizes {
		if len(sizes) > 0 && !containsSize(sizes, s.Size) {
			continue
		}
		speed := s.Worst / s.Median
		if sp.Metric.Lower {
			speed = s.Median / s.Worst
		}
		if s.Median == 0 || s.Worst == 0 || speed >= slowSpeed {
			continue
		}
		text := fmt.Sprintf("rank %d", s.Slowest)
		if s.Host != "" {
			text += " (" + s.Host + ")"
		}
		notes = append(notes, Note{X: float64(s.Size), Y: s.Worst, Text: text})
	}
	return notes
}

// containsSize reports whether sizes holds n.
func containsSize(sizes []uint64, n uint64) bool {
	for _, s := range sizes {
		if s == n {
			return true
		}
	}
	return false
}

// slowest writes the slowest ranks, hosts and rails of a spread as one
// line: "slowest: rank 0 (h1) 0.26x, ...; hosts h1 0.31x; rails [3] 0.80x".
func slowest(sp *results.Spread) string {
	var parts []string
	var ranks []string
	for _, r := range sp.Ranks {
		s := fmt.Sprintf("%d", r.Rank)
		if r.Host != "" {
			s += " (" + r.Host + ")"
		}
		ranks = append(ranks, fmt.Sprintf("%s %.2fx", s, r.Typical))
	}
	if len(ranks) > 0 {
		parts = append(parts, "ranks "+strings.Join(ranks, ", "))
	}
	var hosts []string
	for _, h := range sp.Hosts {
		hosts = append(hosts, fmt.Sprintf("%s %.2fx", h.Host, h.Typical))
	}
	if len(hosts) > 0 {
		parts = append(parts, "hosts "+strings.Join(hosts, ", "))
	}
	var rails []string
	for _, r := range sp.Rails {
		rails = append(rails, fmt.Sprintf("%s %.2fx", r.Rails, r.Typical))
	}
	if len(rails) > 0 {
		parts = append(parts, "rails "+strings.Join(rails, ", "))
	}
	return "slowest (typical speed / median): " + strings.Join(parts, "; ")
}
