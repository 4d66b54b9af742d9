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

// spreadCTE reads the samples of run ?1 as sp(size, rank, x, speed),
// speed as described at Spread. It needs the metric's SQL spliced in
// twice (for x and for the median); the run id is the one argument.
func spreadCTE(m Metric) string {
	speed := `v.x / med.m`
	if m.Lower {
		speed = `med.m / v.x`
	}
	return `WITH v AS (
		SELECT s.size, s.rank, ` + m.sql + ` AS x
		FROM samples s JOIN runs r ON r.id = s.run_id WHERE s.run_id = ?1
	), med AS (
		SELECT size, median(x) AS m FROM v GROUP BY size
	), sp AS (
		SELECT v.size, v.rank, v.x, CASE WHEN med.m > 0 AND v.x > 0 THEN ` + speed + ` END AS speed
		FROM v JOIN med USING (size)
	)`
}

// RankSpread returns the spread of run id for metric m, naming the n
// slowest ranks and hosts, or an error wrapping ErrRunNotFound.
func (db *DB) RankSpread(ctx context.Context, id int64, m Metric, n int) (*Spread, error) {
	if err := db.runExists(ctx, id); err != nil {
		return nil, err
	}
	sp := &Spread{Metric: m}
	var err error
	if sp.Sizes, err = db.sizeSpreads(ctx, id, m); err == nil {
		if sp.Ranks, err = db.slowRanks(ctx, id, m, n); err == nil {
			sp.Hosts, err = db.slowHosts(ctx, id, m, n)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("rank spread of run %d: %w", id, err)
	}
	return sp, nil
}

// sizeSpreads returns the spread per size. SQLite returns the bare column
// rank of the row that MIN(speed) picks: the slowest rank.
func (db *DB) sizeSpreads(ctx context.Context, id int64, m Metric) ([]SizeSpread, error) {
	rows, err := db.db.QueryContext(ctx, spreadCTE(m)+`, worst AS (
			SELECT size, COUNT(*) AS n, MIN(speed) AS speed, rank FROM sp GROUP BY size
		)
		SELECT w.size, w.n, med.m, `+extremes(m)+`, w.rank, COALESCE(k.host, '')
		FROM worst w JOIN med USING (size) JOIN v ON v.size = w.size
		LEFT JOIN ranks k ON k.run_id = ?1 AND k.rank = w.rank
		GROUP BY w.size ORDER BY w.size`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []SizeSpread
	for rows.Next() {
		var s SizeSpread
		if err := rows.Scan(&s.Size, &s.Samples, &s.Median, &s.Worst, &s.Best, &s.Slowest, &s.Host); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// extremes returns the worst and the best value of v.x for m.
func extremes(m Metric) string {
	if m.Lower {
		return `MAX(v.x), MIN(v.x)`
	}
	return `MIN(v.x), MAX(v.x)`
}

// slowRanks returns the n ranks of lowest typical speed.
func (db *DB) slowRanks(ctx context.Context, id int64, m Metric, n int) ([]SlowRank, error) {
	rows, err := db.db.QueryContext(ctx, spreadCTE(m)+`, per AS (
			SELECT rank, median(speed) AS typical, MIN(speed) AS worst, size FROM sp GROUP BY rank
		)
		SELECT per.rank, COALESCE(k.host, ''), k.local_rank, per.typical, per.worst, per.size
		FROM per LEFT JOIN ranks k ON k.run_id = ?1 AND k.rank = per.rank
		WHERE per.typical IS NOT NULL
		ORDER BY per.typical, per.rank LIMIT ?2`, id, n)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []SlowRank
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
func (db *DB) slowHosts(ctx context.Context, id int64, m Metric, n int) ([]SlowHost, error) {
	rows, err := db.db.QueryContext(ctx, spreadCTE(m)+`
		SELECT k.host, COUNT(DISTINCT sp.rank), median(sp.speed) AS typical, MIN(sp.speed)
		FROM sp JOIN ranks k ON k.run_id = ?1 AND k.rank = sp.rank
		WHERE k.host <> '' AND sp.speed IS NOT NULL
		GROUP BY k.host
		ORDER BY typical, k.host LIMIT ?2`, id, n)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []SlowHost
	for rows.Next() {
		var h SlowHost
		if err := rows.Scan(&h.Host, &h.Ranks, &h.Typical, &h.Worst); err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, rows.Err()
}
