package results

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
)

// Dimensions of a SeriesQuery besides the points' parameters.
const (
	DimBenchmark = "benchmark" // the run's benchmark
	DimVariant   = "variant"   // the sample's variant ("" for runs that measure a size one way)
	DimSweep     = "sweep"     // the sweep's name
	DimRun       = "run"       // the run's id
	DimRank      = "rank"      // the sample's rank (-1: no one rank, as an import's averages)
	DimPeer      = "peer"      // the sample's peer (-1: every other rank at once)
	XSize        = "size"      // SeriesQuery.X: the message size
)

// SeriesQuery aggregates a metric over the samples of some runs, for a
// figure: one row per combination of dimension values and x, aggregated
// in SQL, so that a figure never holds the samples themselves.
type SeriesQuery struct {
	Runs   []int64 // the runs to read
	Metric Metric

	// Dims tell the series and panels of a figure apart: DimBenchmark,
	// DimVariant, DimSweep, DimRun, or a point parameter's name.
	Dims []string

	// X is XSize or a point parameter whose values are numbers ("ranks").
	X string

	// Sizes keeps only the samples of these message sizes; nil keeps all.
	Sizes []uint64

	// Roles keeps only the samples of these roles ("initiator", "target",
	// "both"); nil keeps all.
	Roles []string

	// NotVariants leaves out the samples of these variants: the references
	// a run measures beside its benchmark (References), where a figure
	// draws the benchmark's own samples only.
	NotVariants []string
}

// SeriesRow is one group of a SeriesQuery.
type SeriesRow struct {
	// Keys are the Dims' values as text: strings bare, other values as
	// JSON, "" for a parameter the run's point lacks.
	Keys    []string `json:"keys"`
	X       float64  `json:"x"`
	Samples int      `json:"samples"`
	Runs    int      `json:"runs"` // distinct runs the samples come from

	// The quantiles are SQLite's percentile() (see Agg).
	Min    float64 `json:"min"`
	P25    float64 `json:"p25"`
	Median float64 `json:"median"`
	P75    float64 `json:"p75"`
	Max    float64 `json:"max"`
	Mean   float64 `json:"mean"`
	P99    float64 `json:"p99"`
}

// Series runs q; rows come in the order of their keys' text, then x.
func (db *DB) Series(ctx context.Context, q SeriesQuery) ([]SeriesRow, error) {
	query, args, err := seriesSQL(q)
	if err != nil {
		return nil, fmt.Errorf("series of %s: %w", q.Metric.Name, err)
	}
	rows, err := db.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("series of %s: %w", q.Metric.Name, err)
	}
	defer rows.Close()
	var out []SeriesRow
	for rows.Next() {
		r, err := scanSeriesRow(rows, q.Dims)
		if err != nil {
			return nil, fmt.Errorf("series of %s: %w", q.Metric.Name, err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("series of %s: %w", q.Metric.Name, err)
	}
	return out, nil
}

// seriesSQL returns the query of q and its arguments. The inner query
// reads each sample once as v(k0..kn, x, run_id, m); the outer one groups.
func seriesSQL(q SeriesQuery) (string, []any, error) {
	var cols, keys []string
	var args []any
	for i, d := range q.Dims {
		expr, arg, err := dimSQL(d)
		if err != nil {
			return "", nil, err
		}
		cols = append(cols, fmt.Sprintf("%s AS k%d", expr, i))
		keys = append(keys, fmt.Sprintf("k%d", i))
		args = append(args, arg...)
	}
	x := `s.size`
	if q.X != XSize {
		path, err := paramPath(q.X)
		if err != nil {
			return "", nil, err
		}
		x = `p.params ->> ?`
		args = append(args, path)
	}
	cols = append(cols, x+` AS x`, `s.run_id`, q.Metric.sql+` AS m`)
	where := `s.run_id IN (SELECT value FROM json_each(?))`
	args = append(args, jsonArray(q.Runs))
	if q.Sizes != nil {
		where += ` AND s.size IN (SELECT value FROM json_each(?))`
		sizes, _ := json.Marshal(q.Sizes) // integers always encode
		args = append(args, string(sizes))
	}
	if q.Roles != nil {
		where += ` AND s.role IN (SELECT value FROM json_each(?))`
		roles, _ := json.Marshal(q.Roles) // strings always encode
		args = append(args, string(roles))
	}
	if q.NotVariants != nil {
		where += ` AND s.variant NOT IN (SELECT value FROM json_each(?))`
		variants, _ := json.Marshal(q.NotVariants) // strings always encode
		args = append(args, string(variants))
	}
	group := strings.Join(append(keys, "x"), ", ")
	return `SELECT ` + group + `, COUNT(*), COUNT(DISTINCT run_id), MIN(m), percentile(m, 25), median(m),
			percentile(m, 75), MAX(m), AVG(m), percentile(m, 99)
		FROM (
			SELECT ` + strings.Join(cols, ", ") + `
			FROM samples s JOIN runs r ON r.id = s.run_id
			JOIN points p ON p.id = r.point_id JOIN sweeps sw ON sw.id = p.sweep_id
			WHERE ` + where + `
		) v
		WHERE m IS NOT NULL AND x IS NOT NULL
		GROUP BY ` + group + ` ORDER BY ` + group, args, nil
}

// dimSQL returns the SQL of dimension d and its arguments.
func dimSQL(d string) (string, []any, error) {
	switch d {
	case DimBenchmark:
		return `r.benchmark`, nil, nil
	case DimVariant:
		return `s.variant`, nil, nil
	case DimSweep:
		return `sw.name`, nil, nil
	case DimRun:
		return `CAST(r.id AS TEXT)`, nil, nil
	case DimRank:
		return `CAST(s.rank AS TEXT)`, nil, nil
	case DimPeer:
		return `CAST(s.peer AS TEXT)`, nil, nil
	}
	path, err := paramPath(d)
	if err != nil {
		return "", nil, err
	}
	// The JSON text, so that 1 and "1" stay apart; '' where absent.
	return `COALESCE(p.params -> ?, '')`, []any{path}, nil
}

// scanSeriesRow reads one row of a seriesSQL query of dimensions dims.
func scanSeriesRow(rows *sql.Rows, dims []string) (SeriesRow, error) {
	r := SeriesRow{Keys: make([]string, len(dims))}
	var x sql.NullFloat64
	dest := make([]any, 0, len(dims)+10)
	for i := range r.Keys {
		dest = append(dest, &r.Keys[i])
	}
	dest = append(dest, &x, &r.Samples, &r.Runs, &r.Min, &r.P25, &r.Median, &r.P75, &r.Max, &r.Mean, &r.P99)
	if err := rows.Scan(dest...); err != nil {
		return r, err
	}
	r.X = x.Float64
	for i, d := range dims {
		if isParamDim(d) && r.Keys[i] != "" {
			var v any
			if err := json.Unmarshal([]byte(r.Keys[i]), &v); err != nil {
				return r, fmt.Errorf("param %s: %w", d, err)
			}
			r.Keys[i] = paramText(v)
		}
	}
	return r, nil
}

// isParamDim reports whether dimension d is a point parameter.
func isParamDim(d string) bool {
	switch d {
	case DimBenchmark, DimVariant, DimSweep, DimRun, DimRank, DimPeer:
		return false
	}
	return true
}

// ParamText formats a parameter value as a label shows it: strings bare,
// anything else as JSON (1000000, true, [1,2]).
func ParamText(v any) string { return paramText(v) }

// RunGPUs returns, per run id, the GPU that rank 0's fingerprint names
// ("NVIDIA H200, sm_90, ..."), or "" for a run of efaxx's without one.
// An external program's run names the first device the tool printed of
// itself (nvbandwidth's "NVIDIA H100 80GB HBM3"), or GPUNotRecorded:
// efaxx cannot tell whether the program used a GPU.
func (db *DB) RunGPUs(ctx context.Context, ids []int64) (map[int64]string, error) {
	rows, err := db.db.QueryContext(ctx, `
		SELECT id, COALESCE(json_extract(fingerprint, '$.gpu'), ''),
			json_type(fingerprint, '$.external') IS NOT NULL,
			COALESCE(json_extract(fingerprint, '$.external.tool.devices[0]'), '')
		FROM runs WHERE id IN (SELECT value FROM json_each(?))`, jsonArray(ids))
	if err != nil {
		return nil, fmt.Errorf("gpus of runs: %w", err)
	}
	defer rows.Close()
	out := map[int64]string{}
	for rows.Next() {
		var id int64
		var gpu, device string
		var external bool
		if err := rows.Scan(&id, &gpu, &external, &device); err != nil {
			return nil, fmt.Errorf("gpus of runs: %w", err)
		}
		if gpu == "" && external {
			gpu = toolDevice(device)
		}
		out[id] = gpu
	}
	return out, rows.Err()
}

// GPUNotRecorded is RunGPUs' GPU of an external program's run whose tool
// named no device.
const GPUNotRecorded = "GPU not recorded"

// toolDevice is the model of a device line a tool printed,
// "NVIDIA H100 80GB HBM3" of nvbandwidth's "0: NVIDIA H100 80GB HBM3
// (00000000:00:06)", or GPUNotRecorded for none.
func toolDevice(line string) string {
	if _, model, ok := strings.Cut(line, ": "); ok {
		line = model
	}
	if i := strings.LastIndex(line, " ("); i > 0 && strings.HasSuffix(line, ")") {
		line = line[:i]
	}
	if line = strings.TrimSpace(line); line == "" {
		return GPUNotRecorded
	}
	return line
}

// RunVersions returns the efaxx version of each run as its rank 0's
// fingerprint gives it ("f63b0cf", or "9426008-dirty" for a build from
// uncommitted code), by run id; "" where a run has none (imports).
func (db *DB) RunVersions(ctx context.Context, ids []int64) (map[int64]string, error) {
	rows, err := db.db.QueryContext(ctx, `
		SELECT id, COALESCE(json_extract(fingerprint, '$.efaxx_version'), '') FROM runs
		WHERE id IN (SELECT value FROM json_each(?))`, jsonArray(ids))
	if err != nil {
		return nil, fmt.Errorf("versions of runs: %w", err)
	}
	defer rows.Close()
	out := map[int64]string{}
	for rows.Next() {
		var id int64
		var v string
		if err := rows.Scan(&id, &v); err != nil {
			return nil, fmt.Errorf("versions of runs: %w", err)
		}
		out[id] = v
	}
	return out, rows.Err()
}

// ToolUnits returns the units, sorted and distinct, in which the runs'
// external tools printed the value name (a tool metric's, "latency" of
// tool:latency): what a figure's axis of it is in.
func (db *DB) ToolUnits(ctx context.Context, runs []int64, name string) ([]string, error) {
	rows, err := db.db.QueryContext(ctx, `SELECT DISTINCT unit FROM tool_values
		WHERE run_id IN (SELECT value FROM json_each(?)) AND name = ? ORDER BY unit`, jsonArray(runs), name)
	if err != nil {
		return nil, fmt.Errorf("units of tool value %s: %w", name, err)
	}
	defer rows.Close()
	var units []string
	for rows.Next() {
		var u string
		if err := rows.Scan(&u); err != nil {
			return nil, fmt.Errorf("units of tool value %s: %w", name, err)
		}
		units = append(units, u)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("units of tool value %s: %w", name, err)
	}
	return units, nil
}
