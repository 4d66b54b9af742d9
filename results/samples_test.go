package results_test

import (
	"math"
	"testing"

	"efaxx/results/record"
)

// TestSamples_Metrics checks each derived number of docs/metrics.md on
// a sample whose numbers are easy to check by hand.
func TestSamples_Metrics(t *testing.T) {
	db := MustOpenDB(t)
	session := t.TempDir()
	run := newTestRun("uid-a2a", "all2all", 3, 1<<20)
	// Rank 0: 2 peers × 1 MiB each way per iteration, 1000 iterations in 1 s, over 2 NICs of 50 Gbps.
	run.lines[0][1] = mustJSON(record.Sample{Type: record.TypeSample, Rank: 0, Peer: -1, Role: "both", Size: 1 << 20,
		BytesSent: 2 << 20, BytesRecv: 2 << 20, Iterations: 1000, ElapsedNs: 1e9, Lat: record.Lat{P50: 1e6},
		Peers: "all", Strategy: "split", Rails: []int{0, 1}, RailBytes: []uint64{1000 << 20, 1000 << 20}, LinkBps: 100e9})
	run.write(t, session, "000-a2a")
	if _, err := db.Ingest(t.Context(), session); err != nil {
		t.Fatal(err)
	}
	ms, err := db.Samples(t.Context(), 1)
	if err != nil {
		t.Fatal(err)
	}
	m := ms[0]
	mib := float64(1 << 20)
	near := func(name string, got, want float64) {
		if math.Abs(got-want) > 1e-9*want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	near("Gbps", m.Gbps, 8*4*mib*1000/1e9)
	near("DirGbps", m.DirGbps, 8*2*mib*1000/1e9)
	if m.PercentLink == nil {
		t.Fatal("PercentLink = nil with a known link")
	}
	near("PercentLink", *m.PercentLink, 100*8*2*mib*1000/1e9/100)
	near("LibefaxxGbps", m.LibefaxxGbps, 8*mib*1000/1e9)
	near("AlgBW", *m.AlgBW, 3*mib*1000/1e9)
	near("BusBW", *m.BusBW, 2*mib*1000/1e9)
	if m.Strategy != "split" || len(m.Rails) != 2 || len(m.RailBytes) != 2 || m.Peers != "all" {
		t.Errorf("facts = %+v", m)
	}
	// Samples written before rails existed read back with empty facts.
	if old := ms[1]; old.Strategy != "" || len(old.Rails) != 0 || old.RailBytes != nil || old.PercentLink != nil {
		t.Errorf("old-style sample = %+v, want no rail facts", old)
	}
}
