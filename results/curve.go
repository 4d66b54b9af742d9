package results

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// Curve is the bandwidth of one run against message size, for plotting.
type Curve struct {
	RunID  int64
	Label  string       // the benchmark and the parameters that tell this run from the others plotted with it
	Metric string       // what Points hold: "gbps", or "busbw" for nccl-tests' collectives (UnitOf)
	Points []CurvePoint // in size order; empty for a run without samples
}

// CurvePoint is one message size of a Curve.
type CurvePoint struct {
	Size  uint64  // message size in bytes
	Value float64 // the median sample's Metric at Size: Gbps (1e9 bit/s), or busbw in GB/s (1e9 bytes/s)
}

// Curves returns one curve per run id, in the order given, or an error
// wrapping ErrRunNotFound. Labels name the benchmark and the parameters
// whose values differ between the given runs, as in "write provider=shm".
//
// A curve is in Gbps, except for nccl-tests' collectives, whose samples
// count size bytes per operation (algbw's bytes), not what each rank sent
// and received: theirs is the busbw nccl-tests printed, in GB/s. Runs of
// both kinds together are an error: one axis has one unit.
func (db *DB) Curves(ctx context.Context, runIDs []int64) ([]Curve, error) {
	runs := make([]*Run, len(runIDs))
	for i, id := range runIDs {
		r, err := db.Run(ctx, id)
		if err != nil {
			return nil, err
		}
		runs[i] = r
		if curveMetric(r) != curveMetric(runs[0]) {
			return nil, fmt.Errorf("runs %d (%s) and %d (%s): one plot has one unit; plot them apart",
				runs[0].ID, curveMetric(runs[0]), r.ID, curveMetric(r))
		}
	}
	labels := curveLabels(runs)
	curves := make([]Curve, len(runs))
	for i, r := range runs {
		stats, err := db.SizeStats(ctx, r.ID)
		if err != nil {
			return nil, err
		}
		m := curveMetric(r)
		curves[i] = Curve{RunID: r.ID, Label: labels[i], Metric: m, Points: make([]CurvePoint, len(stats))}
		for j, s := range stats {
			v := s.BwMedianGbps
			if m != "gbps" {
				v = s.Median // SizeStats' own metric is UnitOf's
			}
			curves[i].Points[j] = CurvePoint{Size: s.Size, Value: v}
		}
	}
	return curves, nil
}

// curveMetric is the metric of r's curve: nccl-tests' busbw for its
// collectives, Gbps for the rest.
func curveMetric(r *Run) string {
	if m := UnitOf(r.Benchmark).Metric; m == "busbw" {
		return m
	}
	return "gbps"
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
