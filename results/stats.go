package results

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// SizeStat aggregates the samples of one run at one message size. The
// metrics are defined in metric.go and docs/metrics.md.
type SizeStat struct {
	Size         uint64  `json:"size"`        // message size in bytes
	Variant      string  `json:"variant"`     // how the run measured it, when it measures several ways ("ring", "floor", "memcpy")
	Ranks        int     `json:"samples"`     // samples at this size: one per rank, or per rank and peer
	LatP50Ns     float64 `json:"lat_p50_ns"`  // median over the samples of their p50 latency in ns, one-way
	BwMinGbps    float64 `json:"gbps_min"`    // the slowest sample's bandwidth, Gbps (1e9 bit/s)
	BwMedianGbps float64 `json:"gbps_median"` // the median sample bandwidth, Gbps
	BwMaxGbps    float64 `json:"gbps_max"`    // the fastest sample's bandwidth, Gbps
	Iterations   uint64  `json:"iterations"`  // the fewest timed iterations of any sample
	// The run's benchmark in its own unit (UnitOf): its metric over the
	// samples, lowest, median and highest.
	Metric string  `json:"metric"`
	Min    float64 `json:"min"`
	Median float64 `json:"median"`
	Max    float64 `json:"max"`
}

// sizeStatsSQL aggregates one run's samples per size and variant in SQL,
// with the run's own metric (%s) beside Gbps. The rows come in size order
// from the samples key; median() sorts each group's values in C (SQLite's
// percentile extension), and Go sees one row per size and variant
// whatever the number of ranks.
var sizeStatsSQL = `
	SELECT s.size, s.variant, COUNT(*), median(` + sampleLatencyNsSQL + `),
		MIN(` + sampleGbpsSQL + `), median(` + sampleGbpsSQL + `), MAX(` + sampleGbpsSQL + `),
		MIN(s.iterations), MIN(%[1]s), median(%[1]s), MAX(%[1]s)
	FROM samples s JOIN runs r ON r.id = s.run_id
	WHERE s.run_id = ?
	GROUP BY s.size, s.variant
	ORDER BY s.size, s.variant`

// SizeStats returns one row per message size and variant of run runID, in
// size order, or an error wrapping ErrRunNotFound.
func (db *DB) SizeStats(ctx context.Context, runID int64) ([]SizeStat, error) {
	var bench string
	err := db.db.QueryRowContext(ctx, `SELECT benchmark FROM runs WHERE id = ?`, runID).Scan(&bench)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("run %d: %w", runID, ErrRunNotFound)
	} else if err != nil {
		return nil, fmt.Errorf("run %d: %w", runID, err)
	}
	m, err := LookupMetric(UnitOf(bench).Metric)
	if err != nil {
		return nil, err
	}
	rows, err := db.db.QueryContext(ctx, fmt.Sprintf(sizeStatsSQL, m.sql), runID)
	if err != nil {
		return nil, fmt.Errorf("size stats of run %d: %w", runID, err)
	}
	defer rows.Close()
	var stats []SizeStat
	for rows.Next() {
		s := SizeStat{Metric: m.Name}
		if err := rows.Scan(&s.Size, &s.Variant, &s.Ranks, &s.LatP50Ns, &s.BwMinGbps,
			&s.BwMedianGbps, &s.BwMaxGbps, &s.Iterations, &s.Min, &s.Median, &s.Max); err != nil {
			return nil, fmt.Errorf("size stats of run %d: %w", runID, err)
		}
		stats = append(stats, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("size stats of run %d: %w", runID, err)
	}
	return stats, nil
}

// runExists returns nil when run id is stored, or an error wrapping
// ErrRunNotFound.
func (db *DB) runExists(ctx context.Context, id int64) error {
	var n int
	if err := db.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM runs WHERE id = ?`, id).Scan(&n); err != nil {
		return fmt.Errorf("run %d: %w", id, err)
	} else if n == 0 {
		return fmt.Errorf("run %d: %w", id, ErrRunNotFound)
	}
	return nil
}
