package harness

import (
	"context"
	"fmt"

	"efaxx/results"
)

// CheckRow is the judgement of one expectation at one run and size, or of
// an expectation that no stored run and size matched (Missing).
type CheckRow struct {
	Expect *Expect      `json:"-"`
	Run    *results.Run `json:"-"`
	RunID  int64        `json:"run,omitempty"`
	Size   uint64       `json:"size,omitempty"`
	// Variant is how the run measured the value, for a run that measures
	// its benchmark more than one way ("" for one way); the references it
	// measures beside (results.IsReference) are never judged.
	Variant string  `json:"variant,omitempty"`
	Value   float64 `json:"value"` // the stat at RunID and Size; 0, and no value, when Missing
	Pass    bool    `json:"pass"`

	// Missing reports that nothing matched the expectation: a check that
	// tests nothing fails, so that a typo cannot pass acceptance.
	Missing bool `json:"missing,omitempty"`
}

// Check judges the stored runs against expects, in the order of expects,
// then runs, then sizes. A run's value at a size is the expectation's
// stat of its metric across the run's samples at that size: those of
// each way it measured its benchmark, one row each, never its references.
func Check(ctx context.Context, db *results.DB, expects []Expect, runs []results.Run) ([]CheckRow, error) {
	cache := map[string][]results.QueryRow{}
	var rows []CheckRow
	for i := range expects {
		e := &expects[i]
		matched := false
		for j := range runs {
			r := &runs[j]
			if !e.Where.MatchesRun(r.Benchmark, r.Params) {
				continue
			}
			sizes, err := runStats(ctx, db, cache, r, e.Metric)
			if err != nil {
				return nil, err
			}
			for _, s := range sizes {
				if !e.Where.Matches(r.Benchmark, r.Params, s.Size) {
					continue
				}
				v := statOf(s.Agg, e.Stat)
				rows = append(rows, CheckRow{Expect: e, Run: r, RunID: r.ID, Size: s.Size, Variant: s.Variant,
					Value: v, Pass: e.Pass(v)})
				matched = true
			}
		}
		if !matched {
			rows = append(rows, CheckRow{Expect: e, Missing: true})
		}
	}
	return rows, nil
}

// runStats returns the per-size, per-variant aggregates of metric m over
// run r, its references left out, reading each (run, metric) once.
func runStats(ctx context.Context, db *results.DB, cache map[string][]results.QueryRow, r *results.Run, m results.Metric) ([]results.QueryRow, error) {
	key := fmt.Sprint(r.ID, "/", m.Name)
	if rows, ok := cache[key]; ok {
		return rows, nil
	}
	res, err := db.Query(ctx, results.Query{Filter: results.RunFilter{IDs: []int64{r.ID}}, Metric: m, By: []string{}, ByVariant: true})
	if err != nil {
		return nil, err
	}
	var rows []results.QueryRow
	for _, q := range res.Rows {
		if !results.IsReference(r.Benchmark, q.Variant) {
			rows = append(rows, q)
		}
	}
	cache[key] = rows
	return rows, nil
}

// statOf returns the stat of a.
func statOf(a results.Agg, stat string) float64 {
	switch stat {
	case "min":
		return a.Min
	case "max":
		return a.Max
	case "mean":
		return a.Mean
	case "p99":
		return a.P99
	}
	return a.Median
}
