package results_test

import (
	"testing"

	"efaxx/results"
)

// TestPairStats: a run of three ranks where every rank moved data to the
// next has a pair per rank at its largest size, in the benchmark's unit
// (ipc: GB/s), and nothing from smaller sizes.
func TestPairStats(t *testing.T) {
	db := MustOpenDB(t)
	run := newTestRun("pairs", "ipc", 3, 1<<20, 4<<20)
	mustIngest(t, db, run.write(t, t.TempDir(), "000-pairs"))
	size, pairs, err := db.PairStats(t.Context(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if size != 4<<20 || len(pairs) != 3 {
		t.Fatalf("PairStats = %d, %+v: want 3 pairs at 4 MiB", size, pairs)
	}
	// rank r moved 4 MiB 100 times in (r+1) ms: 4194304*100/(r+1)/1e6 GB/s, to rank r+1 mod 3
	for r, p := range pairs {
		want := 4194304.0 * 100 / float64(r+1) / 1e6
		if p.Rank != r || p.Peer != (r+1)%3 || p.Value < want*0.999 || p.Value > want*1.001 {
			t.Errorf("pair %d = %+v, want %d -> %d at %.2f GB/s", r, p, r, (r+1)%3, want)
		}
	}
	if u := results.UnitOf("ipc"); u.Metric != "dir_gbs" {
		t.Errorf("ipc's unit = %+v", u)
	}
}
