package results

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
)

// SampleMetrics are one stored sample's raw facts and the numbers derived
// from them by the definitions in metric.go (docs/metrics.md).
type SampleMetrics struct {
	Size         uint64
	Rank, Peer   int
	Role         string
	Peers        string   // "3", or "all"
	Strategy     string   // "" for samples written before rails existed
	Rails        []int    // rails used
	RailBytes    []uint64 // bytes sent per rail over the timed iterations; nil when none were sent
	LatP50Ns     int64
	Gbps         float64  // both directions, as efaxx counts (metric.go sampleGbpsSQL)
	DirGbps      float64  // the busier direction
	PercentLink  *float64 // of the capacity behind Rails; nil when unknown
	LibefaxxGbps float64
	AlgBW, BusBW *float64 // GB/s: all2all's, or as an external tool printed them; nil for others
}

const sampleMetricsSQL = `
	SELECT s.size, s.rank, s.peer, s.role, s.peers, s.strategy, s.rails, s.rail_bytes, s.lat_p50_ns,
		` + sampleGbpsSQL + `, ` + directionGbpsSQL + `, ` + percentLinkSQL + `,
		` + libefaxxGbpsSQL + `, ` + algbwSQL + `, ` + busbwSQL + `
	FROM samples s JOIN runs r ON r.id = s.run_id
	WHERE s.run_id = ?
	ORDER BY s.size, s.rank, s.peer`

// Samples returns every sample of run runID with its derived metrics, in
// (size, rank, peer) order, or an error wrapping ErrRunNotFound.
func (db *DB) Samples(ctx context.Context, runID int64) ([]SampleMetrics, error) {
	if err := db.runExists(ctx, runID); err != nil {
		return nil, err
	}
	rows, err := db.db.QueryContext(ctx, sampleMetricsSQL, runID)
	if err != nil {
		return nil, fmt.Errorf("samples of run %d: %w", runID, err)
	}
	defer rows.Close()
	var out []SampleMetrics
	for rows.Next() {
		m, err := scanSampleMetrics(rows)
		if err != nil {
			return nil, fmt.Errorf("samples of run %d: %w", runID, err)
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

func scanSampleMetrics(rows *sql.Rows) (SampleMetrics, error) {
	var m SampleMetrics
	var rails, railBytes string
	if err := rows.Scan(&m.Size, &m.Rank, &m.Peer, &m.Role, &m.Peers, &m.Strategy, &rails, &railBytes,
		&m.LatP50Ns, &m.Gbps, &m.DirGbps, &m.PercentLink, &m.LibefaxxGbps, &m.AlgBW, &m.BusBW); err != nil {
		return m, err
	}
	if err := json.Unmarshal([]byte(rails), &m.Rails); err != nil {
		return m, fmt.Errorf("rails %q: %w", rails, err)
	}
	if err := json.Unmarshal([]byte(railBytes), &m.RailBytes); err != nil {
		return m, fmt.Errorf("rail_bytes %q: %w", railBytes, err)
	}
	if len(m.RailBytes) == 0 {
		m.RailBytes = nil
	}
	return m, nil
}
