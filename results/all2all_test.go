package results_test

import (
	"fmt"
	"math"
	"testing"

	"efaxx/results/record"
)

// TestAllToAllStats: an ipc-all2all run of three ranks at one size, as the
// runner records it: each ordered pair alone (rank r to peer p at 100 +
// 10r + p GB/s), each pair during the all-to-all, and each rank's total.
// The aggregate is every rank's bytes over the slowest rank's time; the
// reference, the pairs' rates alone added.
func TestAllToAllStats(t *testing.T) {
	db := MustOpenDB(t)
	const size, iters = 1 << 20, 10
	run := newTestRun("a2a", "ipc-all2all", 3, size)
	sample := func(rank, peer int, variant string, bytes uint64, gbs float64) string {
		ns := float64(bytes*iters) / gbs
		return mustJSON(record.Sample{Type: record.TypeSample, Rank: rank, Peer: peer, Role: "initiator", Size: size,
			Variant: variant, BytesSent: bytes, Iterations: iters, ElapsedNs: uint64(math.Round(ns)),
			Lat: record.Lat{Min: 1, P50: 1, P99: 1, Max: 1}})
	}
	sumPairs := 0.0
	for r := range 3 {
		lines := run.lines[r][:1] // the rank's fingerprint
		for _, method := range []string{"528x512", "memcpy"} {
			for p := range 3 {
				if p != r {
					gbs := 100 + 10*float64(r) + float64(p)
					if method == "528x512" {
						sumPairs += gbs
					}
					lines = append(lines, sample(r, p, method, size, gbs), sample(r, p, method+" all2all", size, gbs/2))
				}
			}
			// rank 2 is the slowest: 40 GB/s for its two buffers, the others 50
			lines = append(lines, sample(r, -1, method+" all2all total", 2*size, map[bool]float64{true: 40, false: 50}[r == 2]))
		}
		run.lines[r] = append(lines, run.lines[r][len(run.lines[r])-1])
	}
	mustIngest(t, db, run.write(t, t.TempDir(), "000-a2a"))
	stats, err := db.AllToAllStats(t.Context(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(stats) != 2 || stats[0].Method != "528x512" || stats[1].Method != "memcpy" {
		t.Fatalf("AllToAllStats = %+v, want the kernel and the engines", stats)
	}
	s := stats[0]
	// 3 ranks x 2 MiB x 10 iterations in the slowest rank's 2 MiB x 10 / 40 ns
	if got := fmt.Sprintf("%d %d %d %.2f %.2f %.3f", s.Size, s.Ranks, s.Pairs, s.Aggregate, s.SumPairs, s.Ratio()); got != fmt.Sprintf("%d 3 6 120.00 %.2f %.3f", size, sumPairs, 120/sumPairs) {
		t.Errorf("kernel = %s, want 3 ranks, 6 pairs, aggregate 120 GB/s, pairs %.2f", got, sumPairs)
	}
	if _, err := db.AllToAllStats(t.Context(), 9); err == nil {
		t.Error("AllToAllStats(9) of no run succeeded")
	}
}
