package results

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
)

// SweepVarying returns, for each of the named sweeps, the parameters that
// take more than one value among its stored points (those of every
// version of the file), sorted: what tells its runs apart, as
// harness.Point.Label shows them. A parameter that only some points have
// (one benchmark's, say) varies only if those points disagree on it, so a
// sweep of sendrecv and write does not name write's own parameters.
func (db *DB) SweepVarying(ctx context.Context, sweeps []string) (map[string][]string, error) {
	names, err := json.Marshal(sweeps)
	if err != nil {
		return nil, err
	}
	rows, err := db.db.QueryContext(ctx, `SELECT s.name, p.params FROM points p JOIN sweeps s ON s.id = p.sweep_id
		WHERE s.name IN (SELECT value FROM json_each(?))`, string(names))
	if err != nil {
		return nil, fmt.Errorf("params of sweeps %v: %w", sweeps, err)
	}
	defer rows.Close()
	values := map[string]map[string]map[string]bool{} // sweep → param → its values
	for rows.Next() {
		var name, text string
		var params map[string]any
		if err := rows.Scan(&name, &text); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(text), &params); err != nil {
			return nil, fmt.Errorf("params of a point of sweep %q: %w", name, err)
		}
		if values[name] == nil {
			values[name] = map[string]map[string]bool{}
		}
		for k, v := range params {
			if values[name][k] == nil {
				values[name][k] = map[string]bool{}
			}
			values[name][k][paramText(v)] = true
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	varying := map[string][]string{}
	for name, params := range values {
		for k, vs := range params {
			if len(vs) > 1 {
				varying[name] = append(varying[name], k)
			}
		}
		slices.Sort(varying[name])
	}
	return varying, nil
}
