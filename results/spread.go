package results

import (
	"context"
	"database/sql"
	"fmt"
)

// Spread is how the ranks of one run differ: per message size, and the
// ranks and hosts that lag. A rank's speed at a size is its metric value
// relative to the median of the run's samples at that size, inverted for
// metrics where lower is better, so that 1 is typical and 0.8 is 20%
// slower than typical, whatever the metric.
type Spread struct {
	Metric Metric       `json:"metric"`
	Sizes  []SizeSpread `json:"sizes"`
	Ranks  []SlowRank   `json:"slowest_ranks"` // slowest first
	Hosts  []SlowHost   `json:"slowest_hosts"` // slowest first
	Rails  []SlowRails  `json:"slowest_rails"` // slowest first; empty unless the samples used more than one set of rails
}

// SlowRails is one set of rails, as samples list them (rails.[0] for a
// sample on rail 0 alone), and how the samples on it compare with the run's.
type SlowRails struct {
	Rails   string  `json:"rails"` // the samples' rails column, "[0]" or "[0,1,2,3]"
	Samples int     `json:"samples"`
	Typical float64 `json:"typical_speed"`
	Worst   float64 `json:"worst_speed"`
}

// SizeSpread is the spread of one message size.
type SizeSpread struct {
	Size    uint64  `json:"size"`
	Samples int     `json:"samples"`
	Median  float64 `json:"median"`
	Worst   float64 `json:"worst"` // the slowest sample's value
	Best    float64 `json:"best"`  // the fastest sample's value
	Slowest int     `json:"slowest_rank"`
	Host    string  `json:"slowest_host"` // the slowest rank's host; "" without a fingerprint
}

// SlowRank is one rank and how it compares with the run's other ranks.
type SlowRank struct {
	Rank      int     `json:"rank"`
	Host      string  `json:"host"`
	LocalRank *int    `json:"local_rank"`
	Typical   float64 `json:"typical_speed"` // the median over its samples of its speed
	Worst     float64 `json:"worst_speed"`   // its slowest speed
	WorstSize uint64  `json:"worst_size"`    // the size of its slowest speed
}

// SlowHost is one host and how its ranks compare with the run's.
type SlowHost struct {
	Host    string  `json:"host"`
	Ranks   int     `json:"ranks"`
	Typical float64 `json:"typical_speed"` // the median over its ranks' samples of their speed
	Worst   float64 `json:"worst_speed"`
}

// spreadSQL makes the temporary tables the spread of run ?1 is read
// from: temp.spread_med(size, m), the median of each size, and
// temp.spread(size, rank, x, speed), speed as described at Spread. They
// are made once per RankSpread, on one connection, and the three queries
// read them, rather than each deriving every sample's value again.
//
// The samples of the references a run measures beside its benchmark
// (refs: rank 0's cudaMemcpy on GPU memory, the queue's floor) are left
// out: pooled, they moved each size's median and made rank 0 look fast
// and the others slow.
func spreadSQL(m Metric, refs []string) []string {
	speed := `v.x / med.m`
	if m.Lower {
		speed = `med.m / v.x`
	}
	return []string{
		`DROP TABLE IF EXISTS temp.spread`,
		`DROP TABLE IF EXISTS temp.spread_med`,
		`CREATE TEMP TABLE spread_v AS
			SELECT s.size, s.rank, s.rails, ` + m.sql + ` AS x
			FROM samples s JOIN runs r ON r.id = s.run_id WHERE s.run_id = ?1 AND s.variant NOT IN (` + sqlList(refs) + `)
				AND (` + m.sql + `) IS NOT NULL`,
		`CREATE TEMP TABLE spread_med AS SELECT size, median(x) AS m FROM temp.spread_v GROUP BY size`,
		`CREATE TEMP TABLE spread AS
			SELECT v.size, v.rank, v.rails, v.x, CASE WHEN med.m > 0 AND v.x > 0 THEN ` + speed + ` END AS speed
			FROM temp.spread_v v JOIN temp.spread_med med USING (size)`,
		`DROP TABLE temp.spread_v`,
	}
}

// RankSpread returns the spread of run id for metric m, naming the n
// slowest ranks and hosts, or an error wrapping ErrRunNotFound.
func (db *DB) RankSpread(ctx context.Context, id int64, m Metric, n int) (*Spread, error) {
	if err := db.runExists(ctx, id); err != nil {
		return nil, err
	}
	unit, err := db.withToolUnit(ctx, m, RunFilter{IDs: []int64{id}})
	if err != nil {
		return nil, fmt.Errorf("rank spread of run %d: %w", id, err)
	}
	conn, err := db.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("rank spread of run %d: %w", id, err)
	}
	defer conn.Close()
	sp, err := rankSpread(ctx, conn, id, m, n)
	if err != nil {
		return nil, fmt.Errorf("rank spread of run %d: %w", id, err)
	}
	sp.Metric = unit
	return sp, nil
}

// rankSpread makes the spread tables on conn, reads them and drops them.
func rankSpread(ctx context.Context, conn *sql.Conn, id int64, m Metric, n int) (*Spread, error) {
	var benchmark string
	if err := conn.QueryRowContext(ctx, `SELECT benchmark FROM runs WHERE id = ?`, id).Scan(&benchmark); err != nil {
		return nil, err
	}
	for _, q := range spreadSQL(m, References(benchmark)) {
		if _, err := conn.ExecContext(ctx, q, id); err != nil {
			return nil, err
		}
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `DROP TABLE IF EXISTS temp.spread`)
	defer conn.ExecContext(context.WithoutCancel(ctx), `DROP TABLE IF EXISTS temp.spread_med`)
	sp := &Spread{Metric: m}
	var err error
	if sp.Sizes, err = sizeSpreads(ctx, conn, id, m); err != nil {
		return nil, err
	}
	if sp.Ranks, err = slowRanks(ctx, conn, id, n); err != nil {
		return nil, err
	}
	if sp.Hosts, err = slowHosts(ctx, conn, id, n); err != nil {
		return nil, err
	}
	sp.Rails, err = slowRails(ctx, conn, n)
	return sp, err
}

// slowRails returns the n sets of rails of lowest typical speed, or none
// when every sample used the same rails: a rail that lags shows when
// samples ran on single rails (single or round-robin strategies, or runs
// of one rail each).
func slowRails(ctx context.Context, conn *sql.Conn, n int) ([]SlowRails, error) {
	rows, err := conn.QueryContext(ctx, `
		SELECT rails, COUNT(*), median(speed) AS typical, MIN(speed)
		FROM temp.spread WHERE speed IS NOT NULL
		GROUP BY rails HAVING (SELECT COUNT(DISTINCT rails) FROM temp.spread) > 1
		ORDER BY typical, rails LIMIT ?`, n)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []SlowRails{}
	for rows.Next() {
		var r SlowRails
		if err := rows.Scan(&r.Rails, &r.Samples, &r.Typical, &r.Worst); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// sizeSpreads returns the spread per size. SQLite returns the bare column
// rank of the row that MIN(speed) picks, the slowest rank, when MIN is the
// query's only aggregate: the others are in a query of their own.
func sizeSpreads(ctx context.Context, conn *sql.Conn, id int64, m Metric) ([]SizeSpread, error) {
	rows, err := conn.QueryContext(ctx, `
		WITH worst AS (
			SELECT size, MIN(speed), rank FROM temp.spread GROUP BY size
		), ext AS (
			SELECT size, COUNT(*) AS n, `+extremes(m)+` FROM temp.spread GROUP BY size
		)
		SELECT w.size, e.n, med.m, e.worst, e.best, w.rank, COALESCE(k.host, '')
		FROM worst w JOIN ext e USING (size) JOIN temp.spread_med med USING (size)
		LEFT JOIN ranks k ON k.run_id = ?1 AND k.rank = w.rank
		ORDER BY w.size`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []SizeSpread{}
	for rows.Next() {
		var s SizeSpread
		if err := rows.Scan(&s.Size, &s.Samples, &s.Median, &s.Worst, &s.Best, &s.Slowest, &s.Host); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// extremes returns the worst and the best value of x for m, as worst
// and best.
func extremes(m Metric) string {
	if m.Lower {
		return `MAX(x) AS worst, MIN(x) AS best`
	}
	return `MIN(x) AS worst, MAX(x) AS best`
}

// slowRanks returns the n ranks of lowest typical speed.
func slowRanks(ctx context.Context, conn *sql.Conn, id int64, n int) ([]SlowRank, error) {
	rows, err := conn.QueryContext(ctx, `WITH per AS (
			SELECT rank, median(speed) AS typical, MIN(speed) AS worst, size FROM temp.spread GROUP BY rank
		)
		SELECT per.rank, COALESCE(k.host, ''), k.local_rank, per.typical, per.worst, per.size
		FROM per LEFT JOIN ranks k ON k.run_id = ?1 AND k.rank = per.rank
		WHERE per.typical IS NOT NULL
		ORDER BY per.typical, per.rank LIMIT ?2`, id, n)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []SlowRank{}
	for rows.Next() {
		var r SlowRank
		var local sql.NullInt64
		if err := rows.Scan(&r.Rank, &r.Host, &local, &r.Typical, &r.Worst, &r.WorstSize); err != nil {
			return nil, err
		}
		if local.Valid {
			l := int(local.Int64)
			r.LocalRank = &l
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// slowHosts returns the n hosts of lowest typical speed.
func slowHosts(ctx context.Context, conn *sql.Conn, id int64, n int) ([]SlowHost, error) {
	rows, err := conn.QueryContext(ctx, `
		SELECT k.host, COUNT(DISTINCT sp.rank), median(sp.speed) AS typical, MIN(sp.speed)
		FROM temp.spread sp JOIN ranks k ON k.run_id = ?1 AND k.rank = sp.rank
		WHERE k.host <> '' AND sp.speed IS NOT NULL
		GROUP BY k.host
		ORDER BY typical, k.host LIMIT ?2`, id, n)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []SlowHost{}
	for rows.Next() {
		var h SlowHost
		if err := rows.Scan(&h.Host, &h.Ranks, &h.Typical, &h.Worst); err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, rows.Err()
}
