package results

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Curve is one variant of one run's metric against message size, for
// plotting.
type Curve struct {
	RunID   int64
	Variant string       // the samples' variant the curve draws ("ring", "floor", "memcpy"); "" for a run that measures one way
	Label   string       // the benchmark, the parameters that tell this run from the others plotted with it, and its variant where the run has several
	Metric  string       // what Points hold: the benchmark's own metric (UnitOf): gbps, dir_gbs, mops, busbw
	Points  []CurvePoint // in size order; empty for a run without samples
}

// CurvePoint is one message size of a Curve.
type CurvePoint struct {
	Size  uint64  // message size in bytes
	Value float64 // the median sample's Metric at Size, in the metric's unit (Gbps, GB/s, Mops)
}

// Curves returns one curve per run id and variant, runs in the order
// given, or an error wrapping ErrRunNotFound. A run that measures a size
// several ways (a queue's ring and its floor, an ipc copy kernel and the
// copy engines) gives one curve per variant, its reference (UnitOf) last:
// one line through both would jump between them at every size. Labels name
// the benchmark and the parameters whose values differ between the given
// runs, as in "write provider=shm", then the variant where the run has
// more than one ("queue mode=nbi variant=floor").
//
// A curve is in its benchmark's own metric, as show prints it (UnitOf):
// Gbps for a network, GB/s for NVLink copies, Mops for the queue, and for
// nccl-tests' collectives the busbw it printed, in GB/s. Runs of different
// metrics together are an error: one axis has one unit.
func (db *DB) Curves(ctx context.Context, runIDs []int64) ([]Curve, error) {
	runs := make([]*Run, len(runIDs))
	for i, id := range runIDs {
		r, err := db.Run(ctx, id)
		if err != nil {
			return nil, err
		}
		runs[i] = r
		if m, m0 := UnitOf(r.Benchmark).Metric, UnitOf(runs[0].Benchmark).Metric; m != m0 {
			return nil, fmt.Errorf("runs %d (%s: %s) and %d (%s: %s): one plot has one unit; plot them apart",
				runs[0].ID, runs[0].Benchmark, metricText(m0), r.ID, r.Benchmark, metricText(m))
		}
	}
	labels := curveLabels(runs)
	var curves []Curve
	for i, r := range runs {
		stats, err := db.SizeStats(ctx, r.ID)
		if err != nil {
			return nil, err
		}
		u := UnitOf(r.Benchmark)
		variants := curveVariants(stats, u.Reference)
		if len(variants) == 0 { // no samples: one empty curve
			curves = append(curves, Curve{RunID: r.ID, Label: labels[i], Metric: u.Metric, Points: []CurvePoint{}})
			continue
		}
		for _, v := range variants {
			c := Curve{RunID: r.ID, Variant: v, Label: labels[i], Metric: u.Metric, Points: []CurvePoint{}}
			if len(variants) > 1 && v != "" {
				c.Label += " variant=" + v
			}
			for _, s := range stats {
				if s.Variant == v {
					c.Points = append(c.Points, CurvePoint{Size: s.Size, Value: s.Median}) // SizeStats' metric is UnitOf's
				}
			}
			curves = append(curves, c)
		}
	}
	return curves, nil
}

// curveVariants returns the variants of a run's stats in the order they
// first come (stats are in size and variant order), the reference last.
func curveVariants(stats []SizeStat, reference string) []string {
	var variants []string
	hasRef := false
	for _, s := range stats {
		switch {
		case reference != "" && s.Variant == reference:
			hasRef = true
		case !slices.Contains(variants, s.Variant):
			variants = append(variants, s.Variant)
		}
	}
	if hasRef {
		variants = append(variants, reference)
	}
	return variants
}

// metricText names a metric and its unit for messages: "mops, Mops".
func metricText(name string) string {
	if m, err := LookupMetric(name); err == nil {
		return name + ", " + m.Unit
	}
	return name
}

// curveLabels labels each run by its benchmark and the parameters that
// differ between runs. Runs whose labels would still be equal get their
// id appended, so that a legend never shows two identical entries.
func curveLabels(runs []*Run) []string {
	keys := differingParams(runs)
	labels := make([]string, len(runs))
	count := map[string]int{}
	for i, r := range runs {
		parts := []string{r.Benchmark}
		for _, k := range keys {
			if v, ok := r.Params[k]; ok {
				parts = append(parts, k+"="+paramText(v))
			}
		}
		labels[i] = strings.Join(parts, " ")
		count[labels[i]]++
	}
	for i, r := range runs {
		if count[labels[i]] > 1 {
			labels[i] += fmt.Sprintf(" (run %d)", r.ID)
		}
	}
	return labels
}

// differingParams returns, sorted, the parameter names whose values are
// not the same in every run, a name missing from some run included.
func differingParams(runs []*Run) []string {
	maps := make([]map[string]any, len(runs))
	for i, r := range runs {
		maps[i] = r.Params
	}
	return differing(maps)
}

// paramText formats a parameter value for a label: strings bare, anything
// else as JSON (1000000, true, [1,2]).
func paramText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
