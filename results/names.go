package results

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"efaxx/results/record"
)

// Statuses are the statuses a run can have, as the store holds them.
var Statuses = []string{record.StatusOK, record.StatusFailed, record.StatusPartial, record.StatusTimeout,
	record.StatusCancelled, record.StatusRunning}

// StatusAny in a RunFilter selects runs of every status, as "" does, and
// says so: query, compare and plot leave out the runs that did not end ok
// unless a status is named.
const StatusAny = "any"

// Names are the values the store holds for each field a filter can name,
// each list sorted: what a filter is checked against, so that a typo is
// an error with a suggestion rather than an empty answer.
type Names struct {
	Benchmarks []string
	Sweeps     []string // names and content hashes
	Hosts      []string
	TagKeys    []string
	Params     []string // parameter keys of the stored points
}

// Names returns the names the store holds.
func (db *DB) Names(ctx context.Context) (*Names, error) {
	var n Names
	for _, q := range []struct {
		dst   *[]string
		query string
	}{
		{&n.Benchmarks, `SELECT DISTINCT benchmark FROM runs`},
		{&n.Sweeps, `SELECT name FROM sweeps UNION SELECT hash FROM sweeps`},
		{&n.Hosts, `SELECT DISTINCT host FROM run_hosts`},
		{&n.TagKeys, `SELECT DISTINCT key FROM run_tags`},
		{&n.Params, `SELECT DISTINCT j.key FROM points p, json_each(p.params) j`},
	} {
		list, err := db.strings(ctx, q.query)
		if err != nil {
			return nil, fmt.Errorf("names in the store: %w", err)
		}
		slices.Sort(list)
		*q.dst = slices.Compact(list)
	}
	return &n, nil
}

// strings returns the one text column of a query's rows.
func (db *DB) strings(ctx context.Context, query string, args ...any) ([]string, error) {
	rows, err := db.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// CheckRuns returns an error wrapping ErrRunNotFound that names every id
// of ids the store does not hold, or nil when it holds them all.
func (db *DB) CheckRuns(ctx context.Context, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	rows, err := db.db.QueryContext(ctx,
		`SELECT DISTINCT value FROM json_each(?) WHERE value NOT IN (SELECT id FROM runs) ORDER BY value`, jsonArray(ids))
	if err != nil {
		return fmt.Errorf("check run ids: %w", err)
	}
	defer rows.Close()
	var missing []string
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return fmt.Errorf("check run ids: %w", err)
		}
		missing = append(missing, fmt.Sprint(id))
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("check run ids: %w", err)
	}
	switch len(missing) {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("run %s: %w", missing[0], ErrRunNotFound)
	}
	return fmt.Errorf("runs %s: %w", strings.Join(missing, ", "), ErrRunNotFound)
}
