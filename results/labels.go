package results

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
)

// SweepVarying returns, for each of the named sweeps, the parameters that
// take more than one value among its stored points of one benchmark
// (those of every version of the file), sorted: what tells its runs
// apart, as harness.Point.Label shows them. Values are compared within a
// benchmark, so a default that differs between benchmarks (write's chunk
// and sendrecv's) or a parameter only one benchmark has does not count.
func (db *DB) SweepVarying(ctx context.Context, sweeps []string) (map[string][]string, error) {
	names, err := json.Marshal(sweeps)
	if err != nil {
		return nil, err
	}
	rows, err := db.db.QueryContext(ctx, `SELECT s.name, p.benchmark, p.params FROM points p JOIN sweeps s ON s.id = p.sweep_id
		WHERE s.name IN (SELECT value FROM json_each(?))`, string(names))
	if err != nil {
		return nil, fmt.Errorf("params of sweeps %v: %w", sweeps, err)
	}
	defer rows.Close()
	type group struct{ sweep, benchmark string }
	points := map[group][]map[string]any{}
	for rows.Next() {
		var g group
		var text string
		var params map[string]any
		if err := rows.Scan(&g.sweep, &g.benchmark, &text); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(text), &params); err != nil {
			return nil, fmt.Errorf("params of a point of sweep %q: %w", g.sweep, err)
		}
		points[g] = append(points[g], params)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	varying := map[string][]string{}
	for g, ps := range points {
		varying[g.sweep] = append(varying[g.sweep], differing(ps)...)
	}
	for name, ks := range varying {
		slices.Sort(ks)
		varying[name] = slices.Compact(ks)
	}
	return varying, nil
}
