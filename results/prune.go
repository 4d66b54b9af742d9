package results

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// ErrPruneBusy is wrapped by Prune's error when a selected run may still
// change: it is running, or its Slurm job is not settled, so a later sync
// or ingest would store it again.
var ErrPruneBusy = errors.New("still in flight")

// Pruned is what Prune deleted, or with a dry run would delete.
type Pruned struct {
	Runs    []Run `json:"runs"`
	Samples int   `json:"samples"` // sample rows of those runs
	Points  int   `json:"points"`  // points left without a run, deleted with them
	Sweeps  int   `json:"sweeps"`  // sweeps left without a point
}

// querier is what reads a store: the database or a transaction.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Prune deletes the runs f selects, with their ranks, samples, tags and
// tool values, and the points and sweeps they leave empty, in one
// transaction: all of it or, on any error, nothing. With dryRun it only
// reads, and says what it would delete. It never touches a run directory:
// ingesting one again stores its run again. A running run, or one whose
// Slurm job is not settled, is refused (ErrPruneBusy): a sync would store
// it again.
func (db *DB) Prune(ctx context.Context, f RunFilter, dryRun bool) (_ *Pruned, err error) {
	defer func() { err = db.storeErr(err) }()
	if dryRun {
		p, _, err := prunePlan(ctx, db.db, f)
		return p, err
	}
	tx, err := beginWrite(ctx, db.db)
	if err != nil {
		return nil, fmt.Errorf("prune: %w", err)
	}
	defer tx.Rollback()
	p, lists, err := prunePlan(ctx, tx, f)
	if err != nil {
		return nil, err
	}
	for _, d := range []struct{ query, ids string }{
		{`DELETE FROM runs WHERE id IN (SELECT value FROM json_each(?))`, lists.runs},
		{`DELETE FROM points WHERE id IN (SELECT value FROM json_each(?))`, lists.points},
		{`DELETE FROM sweeps WHERE id IN (SELECT value FROM json_each(?))`, lists.sweeps},
	} {
		if _, err := tx.ExecContext(ctx, d.query, d.ids); err != nil {
			return nil, fmt.Errorf("prune: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("prune: %w", err)
	}
	return p, nil
}

// pruneLists are the ids Prune deletes, as JSON arrays for json_each.
type pruneLists struct{ runs, points, sweeps string }

// prunePlan finds what pruning f deletes: the runs, and the points and
// sweeps that would be left empty.
func prunePlan(ctx context.Context, q querier, f RunFilter) (*Pruned, pruneLists, error) {
	var lists pruneLists
	where, args := f.where()
	rows, err := q.QueryContext(ctx, runColumns+where+` ORDER BY r.id`, args...)
	if err != nil {
		return nil, lists, fmt.Errorf("prune: %w", err)
	}
	p := &Pruned{Runs: []Run{}}
	ids := []int64{}
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			rows.Close()
			return nil, lists, fmt.Errorf("prune: %w", err)
		}
		p.Runs, ids = append(p.Runs, *r), append(ids, r.ID)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, lists, fmt.Errorf("prune: %w", err)
	}
	if err := busyRuns(ctx, q, ids); err != nil {
		return nil, lists, err
	}
	lists.runs = jsonArray(ids)
	if err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM samples WHERE run_id IN (SELECT value FROM json_each(?))`,
		lists.runs).Scan(&p.Samples); err != nil {
		return nil, lists, fmt.Errorf("prune: %w", err)
	}
	points, err := idList(ctx, q, `
		SELECT DISTINCT r.point_id FROM runs r WHERE r.id IN (SELECT value FROM json_each(?1))
			AND NOT EXISTS (SELECT 1 FROM runs o WHERE o.point_id = r.point_id
				AND o.id NOT IN (SELECT value FROM json_each(?1)))`, lists.runs)
	if err != nil {
		return nil, lists, err
	}
	lists.points, p.Points = jsonArray(points), len(points)
	sweeps, err := idList(ctx, q, `
		SELECT DISTINCT p.sweep_id FROM points p WHERE p.id IN (SELECT value FROM json_each(?1))
			AND NOT EXISTS (SELECT 1 FROM points o WHERE o.sweep_id = p.sweep_id
				AND o.id NOT IN (SELECT value FROM json_each(?1)))`, lists.points)
	if err != nil {
		return nil, lists, err
	}
	lists.sweeps, p.Sweeps = jsonArray(sweeps), len(sweeps)
	return p, lists, nil
}

// idList returns the one integer column of a query's rows.
func idList(ctx context.Context, q querier, query string, args ...any) ([]int64, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("prune: %w", err)
	}
	defer rows.Close()
	ids := []int64{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("prune: %w", err)
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// busyRuns returns an error wrapping ErrPruneBusy naming the runs of ids
// that are running or in a Slurm job not yet settled, or nil.
func busyRuns(ctx context.Context, q querier, ids []int64) error {
	rows, err := q.QueryContext(ctx, `
		SELECT r.id, COALESCE(j.job_id, '') FROM runs r LEFT JOIN jobs j ON j.id = r.job_id
		WHERE r.id IN (SELECT value FROM json_each(?))
			AND (r.status = 'running' OR (j.id IS NOT NULL AND j.settled_ns IS NULL))
		ORDER BY r.id`, jsonArray(ids))
	if err != nil {
		return fmt.Errorf("prune: %w", err)
	}
	defer rows.Close()
	var busy []string
	for rows.Next() {
		var id int64
		var job string
		if err := rows.Scan(&id, &job); err != nil {
			return fmt.Errorf("prune: %w", err)
		}
		why := "running"
		if job != "" {
			why = "in Slurm job " + job + ", not yet settled"
		}
		busy = append(busy, fmt.Sprintf("run %d (%s)", id, why))
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("prune: %w", err)
	}
	if len(busy) > 0 {
		return fmt.Errorf("prune: %s: %w: a sync or an ingest would store them again; let them end "+
			"(efaxx sync, efaxx cancel) or leave them out", strings.Join(busy, ", "), ErrPruneBusy)
	}
	return nil
}
