package results

import (
	"context"
	"fmt"
)

// RawSample is one stored sample as the runner measured it, with the
// value of one metric: what efaxx query --raw exports.
type RawSample struct {
	Run        int64    `json:"run"`
	Benchmark  string   `json:"benchmark"`
	Size       uint64   `json:"size"`
	Rank       int      `json:"rank"`
	Peer       int      `json:"peer"`
	Variant    string   `json:"variant"`
	Role       string   `json:"role"`
	Host       string   `json:"host"`
	BytesSent  uint64   `json:"bytes_sent"`
	BytesRecv  uint64   `json:"bytes_recv"`
	Iterations uint64   `json:"iterations"`
	ElapsedNs  int64    `json:"elapsed_ns"`
	LatMinNs   int64    `json:"lat_min_ns"`
	LatP50Ns   int64    `json:"lat_p50_ns"`
	LatP99Ns   int64    `json:"lat_p99_ns"`
	LatMaxNs   int64    `json:"lat_max_ns"`
	Value      *float64 `json:"value"` // the metric's value; nil where the sample has none
}

// RawSamples calls fn with every sample of the runs f selects (its Limit
// aside), in run, size, rank, peer and variant order, with the value of
// m. It holds one sample at a time: a store may hold millions.
func (db *DB) RawSamples(ctx context.Context, f RunFilter, m Metric, fn func(*RawSample) error) error {
	where, args := f.where()
	query := `
		SELECT s.run_id, r.benchmark, s.size, s.rank, s.peer, s.variant, s.role, COALESCE(k.host, ''),
			s.bytes_sent, s.bytes_recv, s.iterations, s.elapsed_ns, s.lat_min_ns, s.lat_p50_ns, s.lat_p99_ns,
			s.lat_max_ns, ` + m.sql + `
		FROM samples s JOIN runs r ON r.id = s.run_id
		LEFT JOIN ranks k ON k.run_id = s.run_id AND k.rank = s.rank
		WHERE s.run_id IN (SELECT r.id FROM runs r JOIN points p ON p.id = r.point_id
			JOIN sweeps s ON s.id = p.sweep_id` + where + `)` + variantSQL(f, &args) + `
		ORDER BY s.run_id, s.size, s.rank, s.peer, s.variant`
	rows, err := db.db.QueryContext(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("raw samples: %w", err)
	}
	defer rows.Close()
	var x RawSample
	for rows.Next() {
		x.Value = nil
		if err := rows.Scan(&x.Run, &x.Benchmark, &x.Size, &x.Rank, &x.Peer, &x.Variant, &x.Role, &x.Host,
			&x.BytesSent, &x.BytesRecv, &x.Iterations, &x.ElapsedNs, &x.LatMinNs, &x.LatP50Ns, &x.LatP99Ns,
			&x.LatMaxNs, &x.Value); err != nil {
			return fmt.Errorf("raw samples: %w", err)
		}
		if err := fn(&x); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("raw samples: %w", err)
	}
	return nil
}
