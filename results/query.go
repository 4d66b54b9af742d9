package results

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// ErrBadParamName is returned, wrapped with the name, for a parameter name
// that cannot be looked up in a point's params.
var ErrBadParamName = errors.New("bad parameter name")

// Query aggregates a metric over the samples of the runs Filter selects,
// per group of benchmark, the values of the By parameters, and message
// size: across ranks and runs alike.
type Query struct {
	Filter RunFilter // Limit is ignored
	Metric Metric

	// By names the point parameters to group by, besides benchmark and
	// size. Nil groups by every parameter whose value differs between the
	// selected runs; empty groups by benchmark and size alone.
	By []string

	// ByVariant groups by the samples' variant too, so that what a run
	// measures beside its benchmark (the queue's floor, cudaMemcpy on GPU
	// memory, proxy's cpu) is not pooled with it. Without it, a size's
	// samples are aggregated whatever their variant (harness.Check).
	ByVariant bool
}

// Agg is a metric aggregated over a group of samples. Median and P99 are
// SQLite's percentile(): the sorted values joined by straight lines, read
// at 50% and 99% of the way (the mean of the two middle values when the
// count is even).
type Agg struct {
	Count  int     `json:"count"` // samples
	Runs   int     `json:"runs"`  // distinct runs they come from
	Min    float64 `json:"min"`
	Median float64 `json:"median"`
	Mean   float64 `json:"mean"`
	Max    float64 `json:"max"`
	P99    float64 `json:"p99"`
}

// QueryRow is one group of a Query.
type QueryRow struct {
	Benchmark string         `json:"benchmark"`
	Params    map[string]any `json:"params"` // the By parameters' values; nil for a run without one
	Size      uint64         `json:"size"`
	Variant   string         `json:"variant"` // the samples' variant, with ByVariant; "" for a run that measures one way
	Agg
}

// QueryResult is what a Query returns.
type QueryResult struct {
	Metric Metric     `json:"metric"`
	By     []string   `json:"by"`
	Rows   []QueryRow `json:"rows"` // by benchmark, parameters, size
}

// Query runs q. Aggregation happens in SQL, one group at a time.
func (db *DB) Query(ctx context.Context, q Query) (*QueryResult, error) {
	by := q.By
	if by == nil {
		var err error
		if by, err = db.varyingParams(ctx, q.Filter); err != nil {
			return nil, fmt.Errorf("query %s: %w", q.Metric.Name, err)
		}
	}
	query, args, err := groupSQL(q.Filter, q.Metric, by, q.ByVariant, aggColumns)
	if err != nil {
		return nil, fmt.Errorf("query %s: %w", q.Metric.Name, err)
	}
	rows, err := db.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("query %s: %w", q.Metric.Name, err)
	}
	defer rows.Close()
	m, err := db.withToolUnit(ctx, q.Metric, q.Filter)
	if err != nil {
		return nil, fmt.Errorf("query %s: %w", q.Metric.Name, err)
	}
	res := &QueryResult{Metric: m, By: by, Rows: []QueryRow{}}
	for rows.Next() {
		r, err := scanQueryRow(rows, by, q.ByVariant)
		if err != nil {
			return nil, fmt.Errorf("query %s: %w", q.Metric.Name, err)
		}
		res.Rows = append(res.Rows, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("query %s: %w", q.Metric.Name, err)
	}
	return res, nil
}

// aggColumns are the aggregates of a group, in scanQueryRow's order.
const aggColumns = `COUNT(v.x), COUNT(DISTINCT v.run_id), MIN(v.x), median(v.x), AVG(v.x), MAX(v.x), percentile(v.x, 99)`

// groupSQL returns a query with one row per group of benchmark, the
// values of the by parameters, size and, with variants, the samples'
// variant. Its columns are the benchmark, one per by parameter (the
// value's JSON text, NULL where a point lacks it), the size, the variant
// with variants, then cols, which read the group's rows as v: v.run_id,
// v.size and v.x, the metric's value of a sample.
func groupSQL(f RunFilter, m Metric, by []string, variants bool, cols string) (string, []any, error) {
	from, group, args, err := samplesFrom(f, m, by)
	if err != nil {
		return "", nil, err
	}
	if variants {
		group += `, v.variant`
	}
	return `SELECT ` + group + `, ` + cols + from + ` GROUP BY ` + group + ` ORDER BY ` + group, args, nil
}

// samplesFrom returns the FROM clause, with its WITH before it, of every
// sample of the runs f selects for which metric m has a value, as
// v(benchmark, k0..kn, run_id, size, variant, x, p50, p99): k are the by
// parameters' JSON, x the metric's value, p50 and p99 the sample's
// iteration times in ns. group lists v's key columns but the variant.
func samplesFrom(f RunFilter, m Metric, by []string) (from, group string, args []any, err error) {
	where, whereArgs := f.where()
	var keys, vkeys []string
	for i, name := range by {
		path, err := paramPath(name)
		if err != nil {
			return "", "", nil, err
		}
		keys = append(keys, fmt.Sprintf(`, p.params -> ? AS k%d`, i))
		vkeys = append(vkeys, fmt.Sprintf(`, v.k%d`, i))
		args = append(args, path)
	}
	args = append(args, whereArgs...)
	group = `v.benchmark` + strings.Join(vkeys, "") + `, v.size`
	from = `
	FROM (
		WITH sel AS (
			SELECT r.id, r.benchmark` + strings.Join(keys, "") + `
			FROM runs r JOIN points p ON p.id = r.point_id JOIN sweeps s ON s.id = p.sweep_id` + where + `
		)
		SELECT sel.*, s.run_id, s.size, s.variant, ` + m.sql + ` AS x, s.lat_p50_ns AS p50, s.lat_p99_ns AS p99
		FROM sel JOIN runs r ON r.id = sel.id JOIN samples s ON s.run_id = sel.id
		WHERE (` + m.sql + `) IS NOT NULL` + variantSQL(f, &args) + `
	) v`
	return from, group, args, nil
}

// variantSQL returns the condition that keeps the samples of f's sample
// variant, adding its argument, or "" without one.
func variantSQL(f RunFilter, args *[]any) string {
	if f.SampleVariant == nil {
		return ""
	}
	*args = append(*args, *f.SampleVariant)
	return ` AND s.variant = ?`
}

// paramPath returns the JSON path of parameter name in points.params.
func paramPath(name string) (string, error) {
	if name == "" || strings.ContainsAny(name, "\"\\") {
		return "", fmt.Errorf("param %q: %w", name, ErrBadParamName)
	}
	return `$."` + name + `"`, nil
}

// scanQueryRow reads one row of a groupSQL query with aggColumns.
func scanQueryRow(rows *sql.Rows, by []string, variants bool) (QueryRow, error) {
	var r QueryRow
	keys := make([]sql.NullString, len(by))
	dest := []any{&r.Benchmark}
	for i := range keys {
		dest = append(dest, &keys[i])
	}
	dest = append(dest, &r.Size)
	if variants {
		dest = append(dest, &r.Variant)
	}
	dest = append(dest, &r.Count, &r.Runs, &r.Min, &r.Median, &r.Mean, &r.Max, &r.P99)
	if err := rows.Scan(dest...); err != nil {
		return r, err
	}
	r.Params = map[string]any{}
	for i, k := range keys {
		var v any
		if k.Valid {
			if err := json.Unmarshal([]byte(k.String), &v); err != nil {
				return r, fmt.Errorf("param %s: %w", by[i], err)
			}
		}
		r.Params[by[i]] = v
	}
	return r, nil
}

// varyingParams returns, sorted, the parameters whose values are not the
// same in every point of the runs f selects, a parameter missing from some
// point included.
func (db *DB) varyingParams(ctx context.Context, f RunFilter) ([]string, error) {
	where, args := f.where()
	rows, err := db.db.QueryContext(ctx, `SELECT DISTINCT p.params
		FROM runs r JOIN points p ON p.id = r.point_id JOIN sweeps s ON s.id = p.sweep_id`+where, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var points []map[string]any
	for rows.Next() {
		var text string
		var params map[string]any
		if err := rows.Scan(&text); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(text), &params); err != nil {
			return nil, err
		}
		points = append(points, params)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return differing(points), nil
}

// differing returns, sorted, the keys whose values are not the same in
// every map, a key missing from some map included.
func differing(maps []map[string]any) []string {
	values := map[string]map[string]bool{}
	for _, m := range maps {
		for k, v := range m {
			if values[k] == nil {
				values[k] = map[string]bool{}
			}
			values[k][paramText(v)] = true
		}
	}
	keys := []string{}
	for k, vs := range values {
		missing := false
		for _, m := range maps {
			if _, ok := m[k]; !ok {
				missing = true
			}
		}
		if len(vs) > 1 || missing {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}
