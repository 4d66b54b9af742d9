package results

import (
	"context"
	"fmt"
)

// PairStat is one ordered pair of a run at its largest size: the rank
// that moved the data, the other rank, how, and the run's metric.
type PairStat struct {
	Rank    int     `json:"rank"`
	Peer    int     `json:"peer"`
	Variant string  `json:"variant"`
	Value   float64 `json:"value"` // in the run's unit (UnitOf)
}

// PairStats returns the run's samples between two distinct ranks at its
// largest size, in the run's unit, by variant, rank and peer: the matrix
// of a run that measures every pair of a node's GPUs (ipc, nvbandwidth).
// It returns the size too; nil when the run has no such samples.
func (db *DB) PairStats(ctx context.Context, runID int64) (uint64, []PairStat, error) {
	var bench string
	if err := db.db.QueryRowContext(ctx, `SELECT benchmark FROM runs WHERE id = ?`, runID).Scan(&bench); err != nil {
		return 0, nil, fmt.Errorf("pairs of run %d: %w", runID, err)
	}
	m, err := LookupMetric(UnitOf(bench).Metric)
	if err != nil {
		return 0, nil, err
	}
	rows, err := db.db.QueryContext(ctx, `
		SELECT s.size, s.rank, s.peer, s.variant, median(`+m.sql+`)
		FROM samples s JOIN runs r ON r.id = s.run_id
		WHERE s.run_id = ?1 AND s.rank >= 0 AND s.peer >= 0
			AND s.size = (SELECT MAX(size) FROM samples WHERE run_id = ?1)
		GROUP BY s.variant, s.rank, s.peer
		ORDER BY s.variant, s.rank, s.peer`, runID)
	if err != nil {
		return 0, nil, fmt.Errorf("pairs of run %d: %w", runID, err)
	}
	defer rows.Close()
	var size uint64
	var out []PairStat
	for rows.Next() {
		var p PairStat
		if err := rows.Scan(&size, &p.Rank, &p.Peer, &p.Variant, &p.Value); err != nil {
			return 0, nil, fmt.Errorf("pairs of run %d: %w", runID, err)
		}
		out = append(out, p)
	}
	return size, out, rows.Err()
}
