package results

import (
	"context"
	"fmt"
)

// The variants of an ipc-all2all run (native/ipc_all2all.c) are its
// method, the copy kernel's launch ("528x512") or "memcpy" (the copy
// engines): that alone for each ordered pair copying alone, with
// AllToAllSuffix for each pair during the all-to-all, with AllToAllTotal
// for each rank's whole all-to-all (peer -1: one buffer per peer).
const (
	AllToAllSuffix = " all2all"
	AllToAllTotal  = " all2all total"
)

// AllToAllStat is one method of an ipc-all2all run at one size: what the
// node moved with every GPU writing into every other (at once, or one peer
// at a time: the run's schedule), against the
// sum of the rates of its ordered pairs each copying alone, measured in
// the same run. GB/s count the bytes copied (1e9 B/s).
type AllToAllStat struct {
	Size      uint64  `json:"size"`
	Method    string  `json:"method"`
	Ranks     int     `json:"ranks"`     // ranks with an all-to-all total
	Pairs     int     `json:"pairs"`     // ordered pairs measured alone
	Aggregate float64 `json:"aggregate"` // every rank's bytes over the slowest rank's time, all starting together
	SumPairs  float64 `json:"sum_pairs"` // the pairs' rates alone, added
}

// Ratio is the aggregate over the sum of the pairs alone: 1 when running
// all at once costs nothing, less where they share a link, a switch or
// the GPU's memory.
func (s AllToAllStat) Ratio() float64 { return s.Aggregate / s.SumPairs }

// allToAllSQL reads both sides per size and method; the ranks of an
// all-to-all start together after a barrier, so the node moved all their
// bytes in the slowest rank's time.
const allToAllSQL = `
WITH pairs AS (
	SELECT size, variant AS method, COUNT(*) AS n, SUM(gbs) AS gbs FROM (
		SELECT s.size, s.variant, median(1.0 * s.bytes_sent * s.iterations / s.elapsed_ns) AS gbs
		FROM samples s
		WHERE s.run_id = ?1 AND s.rank >= 0 AND s.peer >= 0 AND s.rank != s.peer
			AND instr(s.variant, ?2) = 0
		GROUP BY s.size, s.variant, s.rank, s.peer)
	GROUP BY size, variant),
totals AS (
	SELECT s.size, substr(s.variant, 1, length(s.variant) - length(?3)) AS method,
		COUNT(DISTINCT s.rank) AS ranks, SUM(s.bytes_sent * s.iterations) AS bytes, MAX(s.elapsed_ns) AS ns
	FROM samples s
	WHERE s.run_id = ?1 AND s.peer = -1 AND s.elapsed_ns > 0 AND substr(s.variant, -length(?3)) = ?3
	GROUP BY s.size, s.variant)
SELECT t.size, t.method, t.ranks, p.n, 1.0 * t.bytes / t.ns, p.gbs
FROM totals t JOIN pairs p ON p.size = t.size AND p.method = t.method
ORDER BY t.size, t.method`

// AllToAllStats returns, per size and method, an ipc-all2all run's
// aggregate beside the sum of its pairs alone; nil for a run without both.
func (db *DB) AllToAllStats(ctx context.Context, runID int64) ([]AllToAllStat, error) {
	if err := db.runExists(ctx, runID); err != nil {
		return nil, err
	}
	rows, err := db.db.QueryContext(ctx, allToAllSQL, runID, AllToAllSuffix, AllToAllTotal)
	if err != nil {
		return nil, fmt.Errorf("all-to-all of run %d: %w", runID, err)
	}
	defer rows.Close()
	var out []AllToAllStat
	for rows.Next() {
		var s AllToAllStat
		if err := rows.Scan(&s.Size, &s.Method, &s.Ranks, &s.Pairs, &s.Aggregate, &s.SumPairs); err != nil {
			return nil, fmt.Errorf("all-to-all of run %d: %w", runID, err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}
