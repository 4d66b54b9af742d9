package results

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"efaxx/results/record"
)

// Run is one run, one attempt at one point, as the store holds it.
type Run struct {
	ID        int64             `json:"id"`                  // the number users type
	UID       string            `json:"uid"`                 // unique across stores
	Sweep     string            `json:"sweep"`               // the sweep's name
	SweepHash string            `json:"sweep_hash"`          // the sweep's content hash: one version of the file
	Benchmark string            `json:"benchmark"`           // "sendrecv", "write", ...
	Point     string            `json:"point"`               // the point's content hash
	Params    map[string]any    `json:"params"`              // the point's resolved parameters, sizes excluded; JSON numbers are float64
	Status    string            `json:"status"`              // record.StatusOK, StatusFailed, ...
	Reason    string            `json:"reason,omitempty"`    // why the status is not ok; empty when it is
	Provider  string            `json:"provider"`            // as libfabric resolved it on rank 0 ("tcp;ofi_rxm"); empty without a fingerprint
	Ranks     int               `json:"ranks"`               // ranks launched
	Hosts     []string          `json:"hosts"`               // distinct hosts, in rank order
	Executor  string            `json:"executor"`            // "local" or "slurm"
	Started   time.Time         `json:"started"`             // when the launcher started
	Finished  time.Time         `json:"finished"`            // when the launcher exited; zero while running
	ExitCode  *int              `json:"exit_code"`           // the launcher's exit code; nil while running
	Dir       string            `json:"dir"`                 // the run directory, absolute, as of the latest ingest
	Samples   int               `json:"samples"`             // sample rows stored
	Job       string            `json:"job,omitempty"`       // the scheduler's job id, "4711"; "" for local runs
	Step      string            `json:"step,omitempty"`      // the job step, "4711.3"; "" when none ran it
	NodeList  string            `json:"node_list,omitempty"` // the step's nodes as Slurm writes them, "h[1-2]"
	Tags      map[string]string `json:"tags"`                // the user's labels; empty when none
}

// RunFilter selects runs. The zero value selects all of them; each field
// set narrows the selection further.
type RunFilter struct {
	IDs       []int64       // only these runs; nil for any
	Benchmark string        // only this benchmark; "" for any
	Status    string        // only this status; "" or StatusAny for any
	Sweep     string        // only this sweep, by name or hash; "" for any
	Host      string        // only runs with a rank on this host; "" for any
	Tags      []TagFilter   // only runs with every one of these tags
	Params    []ParamFilter // only runs whose point has every one of these parameter values

	// SampleVariant, when not nil, keeps only the samples of this variant
	// in queries and comparisons (nccl-tests' "out-of-place"); the runs
	// are selected as without it.
	SampleVariant *string
	Since         time.Time // only runs started at or after; zero for no bound
	Until         time.Time // only runs started before; zero for no bound
	Limit         int       // at most this many, the first in Sort's order; 0 for no limit

	// Sort orders Runs by these fields of RunSortFields, each ascending,
	// or descending with a "-" before it; nil for newest first. Ties go
	// to the newer run.
	Sort []string
}

// runSorts are the fields runs sort by, and the column each orders.
var runSorts = map[string]string{
	"id": "r.id", "started": "r.started_ns", "finished": "r.finished_ns", "sweep": "s.name", "benchmark": "r.benchmark",
	"status": "r.status", "ranks": "r.ranks", "samples": "r.samples", "provider": "r.provider", "executor": "r.executor",
}

// RunSortFields are the fields RunFilter.Sort takes, sorted.
func RunSortFields() []string {
	keys := make([]string, 0, len(runSorts))
	for k := range runSorts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// orderBy returns the ORDER BY clause of f.Sort.
func (f RunFilter) orderBy() (string, error) {
	var terms []string
	for _, field := range f.Sort {
		name, desc := strings.CutPrefix(field, "-")
		col, ok := runSorts[name]
		if !ok {
			return "", fmt.Errorf("sort by %q: not a field; want one of %s", field, strings.Join(RunSortFields(), ", "))
		}
		if desc {
			col += " DESC"
		}
		terms = append(terms, col)
	}
	terms = append(terms, "r.started_ns DESC", "r.id DESC")
	return ` ORDER BY ` + strings.Join(terms, ", "), nil
}

// CountRuns returns how many runs f selects, its Limit aside.
func (db *DB) CountRuns(ctx context.Context, f RunFilter) (int, error) {
	where, args := f.where()
	var n int
	err := db.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM runs r JOIN points p ON p.id = r.point_id
		JOIN sweeps s ON s.id = p.sweep_id`+where, args...).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count runs: %w", err)
	}
	return n, nil
}

// NotOK returns the ids of the runs f selects that did not end ok, in
// ascending order: the runs a command that takes only ok runs as evidence
// leaves out and names. It reads the ids alone, not whole runs: a filter
// may select a history of 100,000.
func (db *DB) NotOK(ctx context.Context, f RunFilter) ([]int64, error) {
	where, args := f.where()
	if where == "" {
		where = ` WHERE r.status <> ?`
	} else {
		where += ` AND r.status <> ?`
	}
	rows, err := db.db.QueryContext(ctx, `SELECT r.id FROM runs r JOIN points p ON p.id = r.point_id
		JOIN sweeps s ON s.id = p.sweep_id`+where+` ORDER BY r.id`, append(args, record.StatusOK)...)
	if err != nil {
		return nil, fmt.Errorf("runs not ok: %w", err)
	}
	defer rows.Close()
	ids := []int64{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("runs not ok: %w", err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("runs not ok: %w", err)
	}
	return ids, nil
}

// TagFilter selects runs by one tag.
type TagFilter struct {
	Key   string
	Value string // the value the tag must have; ignored when Any
	Any   bool   // any value: the run only needs to have the key
}

// ParamFilter selects runs by one parameter of their point.
type ParamFilter struct {
	Key string

	// Value is what the parameter must equal, as its JSON decodes: a
	// string, an int64 or float64 (compared as numbers), a bool, or a
	// list of strings (an external sweep's list var, compared whole).
	Value any

	// Cases, when not nil, stand in for Value, for a value that each run
	// stores resolved by its benchmark and other params (chunk "auto"):
	// the run must match one of them.
	Cases []ParamCase
}

// ParamCase is one way a run matches a ParamFilter with Cases: its
// benchmark is Benchmark and its point has every one of Params (the
// filter's key among them).
type ParamCase struct {
	Benchmark string
	Params    []ParamFilter
}

// runColumns selects the fields of Run, in scanRun's order.
const runColumns = `
	SELECT r.id, r.uid, s.name, s.hash, r.benchmark, p.hash, p.params, r.status, r.reason,
		r.provider, r.ranks, r.hosts, r.executor, r.started_ns, r.finished_ns,
		r.exit_code, r.dir, r.samples, COALESCE(j.job_id, ''), COALESCE(r.step_id, ''),
		COALESCE(r.node_list, ''),
		(SELECT json_group_object(t.key, t.value) FROM run_tags t WHERE t.run_id = r.id)
	FROM runs r
	JOIN points p ON p.id = r.point_id
	JOIN sweeps s ON s.id = p.sweep_id
	LEFT JOIN jobs j ON j.id = r.job_id`

// Runs returns the runs that f selects, in f.Sort's order (newest first
// without one).
func (db *DB) Runs(ctx context.Context, f RunFilter) ([]Run, error) {
	where, args := f.where()
	order, err := f.orderBy()
	if err != nil {
		return nil, err
	}
	query := runColumns + where + order
	if f.Limit > 0 {
		query += ` LIMIT ?`
		args = append(args, f.Limit)
	}
	rows, err := db.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("query runs: %w", err)
	}
	defer rows.Close()
	var runs []Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, fmt.Errorf("query runs: %w", err)
		}
		runs = append(runs, *r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("query runs: %w", err)
	}
	return runs, nil
}

// Run returns run id, or an error wrapping ErrRunNotFound.
func (db *DB) Run(ctx context.Context, id int64) (*Run, error) {
	r, err := scanRun(db.db.QueryRowContext(ctx, runColumns+` WHERE r.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("run %d: %w", id, ErrRunNotFound)
	} else if err != nil {
		return nil, fmt.Errorf("run %d: %w", id, err)
	}
	return r, nil
}

// where returns the WHERE clause for f and its arguments. Every value
// travels as an argument; the SQL text holds only placeholders.
func (f RunFilter) where() (string, []any) {
	var w whereClause
	if f.IDs != nil {
		w.add(`r.id IN (SELECT value FROM json_each(?))`, jsonArray(f.IDs))
	}
	if f.Benchmark != "" {
		w.add(`r.benchmark = ?`, f.Benchmark)
	}
	if f.Status != "" && f.Status != StatusAny {
		w.add(`r.status = ?`, f.Status)
	}
	if f.Sweep != "" {
		w.add(`(s.name = ? OR s.hash = ?)`, f.Sweep, f.Sweep)
	}
	if f.Host != "" {
		w.add(`r.id IN (SELECT run_id FROM run_hosts WHERE host = ?)`, f.Host)
	}
	for _, t := range f.Tags {
		if t.Any {
			w.add(`EXISTS (SELECT 1 FROM run_tags t WHERE t.run_id = r.id AND t.key = ?)`, t.Key)
		} else {
			w.add(`EXISTS (SELECT 1 FROM run_tags t WHERE t.run_id = r.id AND t.key = ? AND t.value = ?)`, t.Key, t.Value)
		}
	}
	for _, p := range f.Params {
		p.addTo(&w)
	}
	if !f.Since.IsZero() {
		w.add(`r.started_ns >= ?`, f.Since.UnixNano())
	}
	if !f.Until.IsZero() {
		w.add(`r.started_ns < ?`, f.Until.UnixNano())
	}
	return w.sql(), w.args
}

// addTo adds the condition of p to w.
func (p ParamFilter) addTo(w *whereClause) {
	switch list, isList := p.Value.([]string); {
	case p.Cases != nil:
		var either whereClause
		for _, c := range p.Cases {
			c.addTo(&either)
		}
		w.add(either.join(` OR `, `0`), either.args...)
	case isList:
		w.add(`EXISTS (SELECT 1 FROM json_each(p.params) j WHERE j.key = ? AND j.type = 'array' AND j.value = json(?))`,
			p.Key, jsonArray(list))
	default:
		w.add(`EXISTS (SELECT 1 FROM json_each(p.params) j WHERE j.key = ? AND j.atom = ?)`, p.Key, p.Value)
	}
}

// addTo adds the condition of c to w.
func (c ParamCase) addTo(w *whereClause) {
	all := whereClause{conds: []string{`r.benchmark = ?`}, args: []any{c.Benchmark}}
	for _, p := range c.Params {
		p.addTo(&all)
	}
	w.add(all.join(` AND `, `1`), all.args...)
}

// whereClause collects the conditions of a WHERE clause and their
// arguments.
type whereClause struct {
	conds []string
	args  []any
}

// add appends a condition and its arguments.
func (w *whereClause) add(cond string, args ...any) {
	w.conds = append(w.conds, cond)
	w.args = append(w.args, args...)
}

// sql returns " WHERE c1 AND c2 ...", or "" without conditions.
func (w *whereClause) sql() string {
	if len(w.conds) == 0 {
		return ""
	}
	return ` WHERE ` + strings.Join(w.conds, ` AND `)
}

// join returns the conditions joined by op, in parentheses, so that the
// whole is one condition; none without conditions.
func (w *whereClause) join(op, none string) string {
	if len(w.conds) == 0 {
		return none
	}
	return `(` + strings.Join(w.conds, op) + `)`
}

// jsonArray returns items as a JSON array, for json_each and json().
func jsonArray[T int64 | string](items []T) string {
	b, _ := json.Marshal(items) // integers and strings always encode
	return string(b)
}

// scanRun reads one row of runColumns.
func scanRun(row interface{ Scan(...any) error }) (*Run, error) {
	var r Run
	var params, hosts string
	var tags sql.NullString
	var started int64
	var finished, exit sql.NullInt64
	if err := row.Scan(&r.ID, &r.UID, &r.Sweep, &r.SweepHash, &r.Benchmark, &r.Point, &params, &r.Status,
		&r.Reason, &r.Provider, &r.Ranks, &hosts, &r.Executor, &started, &finished,
		&exit, &r.Dir, &r.Samples, &r.Job, &r.Step, &r.NodeList, &tags); err != nil {
		return nil, err
	}
	r.Tags = map[string]string{}
	if tags.Valid {
		if err := json.Unmarshal([]byte(tags.String), &r.Tags); err != nil {
			return nil, fmt.Errorf("run %d tags: %w", r.ID, err)
		}
	}
	if err := json.Unmarshal([]byte(params), &r.Params); err != nil {
		return nil, fmt.Errorf("run %d params: %w", r.ID, err)
	}
	if err := json.Unmarshal([]byte(hosts), &r.Hosts); err != nil {
		return nil, fmt.Errorf("run %d hosts: %w", r.ID, err)
	}
	r.Started = time.Unix(0, started)
	if finished.Valid {
		r.Finished = time.Unix(0, finished.Int64)
	}
	if exit.Valid {
		code := int(exit.Int64)
		r.ExitCode = &code
	}
	return &r, nil
}

// SweepSpec returns the name and the stored text of the sweep that run id
// belongs to; the text is "" when ingest never found the file. The error
// wraps ErrRunNotFound for a run not stored.
func (db *DB) SweepSpec(ctx context.Context, id int64) (name, spec string, err error) {
	err = db.db.QueryRowContext(ctx, `
		SELECT s.name, s.spec FROM runs r
		JOIN points p ON p.id = r.point_id JOIN sweeps s ON s.id = p.sweep_id
		WHERE r.id = ?`, id).Scan(&name, &spec)
	if errors.Is(err, sql.ErrNoRows) {
		return "", "", fmt.Errorf("run %d: %w", id, ErrRunNotFound)
	} else if err != nil {
		return "", "", fmt.Errorf("sweep of run %d: %w", id, err)
	}
	return name, spec, nil
}
