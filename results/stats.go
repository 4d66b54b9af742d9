package results

import (
	"context"
	"fmt"
)

// SizeStat aggregates the samples of one run at one message size. The
// metrics are defined in metric.go and docs/metrics.md.
type SizeStat struct {
	Size         uint64  `json:"size"`        // message size in bytes
	Ranks        int     `json:"samples"`     // samples at this size: one per rank, or per rank and peer
	LatP50Ns     float64 `json:"lat_p50_ns"`  // median over the samples of their p50 latency in ns, one-way
	BwMinGbps    float64 `json:"gbps_min"`    // the slowest sample's bandwidth, Gbps (1e9 bit/s)
	BwMedianGbps float64 `json:"gbps_median"` // the median sample bandwidth, Gbps
	BwMaxGbps    float64 `json:"gbps_max"`    // the fastest sample's bandwidth, Gbps
	Iterations   uint64  `json:"iterations"`  // the fewest timed iterations of any sample
}

// sizeStatsSQL aggregates one run's samples per size in SQL. The rows come
// in size order from the samples key, so no sort is needed; median() sorts
// each size's values in C (SQLite's percentile extension), and Go sees one
// row per size whatever the number of ranks.
var sizeStatsSQL = `
	SELECT s.size, COUNT(*), median(` + sampleLatencyNsSQL + `),
		MIN(` + sampleGbpsSQL + `), median(` + sampleGbpsSQL + `), MAX(` + sampleGbpsSQL + `),
		MIN(s.iterations)
	FROM samples s JOIN runs r ON r.id = s.run_id
	WHERE s.run_id = ?
	GROUP BY s.size
	ORDER BY s.size`

// SizeStats returns one row per message size of run runID, in size order,
// or an error wrapping ErrRunNotFound.
func (db *DB) SizeStats(ctx context.Context, runID int64) ([]SizeStat, error) {
	if err := db.runExists(ctx, runID); err != nil {
		return nil, err
	}
	rows, err := db.db.QueryContext(ctx, sizeStatsSQL, runID)
	if err != nil {
		return nil, fmt.Errorf("size stats of run %d: %w", runID, err)
	}
	defer rows.Close()
	var stats []SizeStat
	for rows.Next() {
		var s SizeStat
		if err := rows.Scan(&s.Size, &s.Ranks, &s.LatP50Ns, &s.BwMinGbps,
			&s.BwMedianGbps, &s.BwMaxGbps, &s.Iterations); err != nil {
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
