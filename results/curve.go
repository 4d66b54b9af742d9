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
	Points []CurvePoint // in size order; empty for a run without samples
}

// CurvePoint is one message size of a Curve.
type CurvePoint struct {
	Size uint64  // message size in bytes
	Gbps float64 // the median sample bandwidth at Size, Gbps (1e9 bit/s)
}

// Curves returns one curve per run id, in the order given, or an error
// wrapping ErrRunNotFound. Labels name the benchmark and the parameters
// whose values differ between the given runs, as in "write provider=shm".
func (db *DB) Curves(ctx context.Context, runIDs []int64) ([]Curve, error) {
	runs := make([]*Run, len(runIDs))
	for i, id := range runIDs {
		r, err := db.Run(ctx, id)
		if err != nil {
			return nil, err
		}
		runs[i] = r
	}
	labels := curveLabels(runs)
	curves := make([]Curve, len(runs))
	for i, r := range runs {
		stats, err := db.SizeStats(ctx, r.ID)
		if err != nil {
			return nil, err
		}
		curves[i] = Curve{RunID: r.ID, Label: labels[i], Points: make([]CurvePoint, len(stats))}
		for j, s := range stats {
			curves[i].Points[j] = CurvePoint{Size: s.Size, Gbps: s.BwMedianGbps}
		}
	}
	return curves, nil
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
