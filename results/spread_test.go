package results_test

import (
	"math"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"efaxx/results/record"
	"efaxx/results/synth"
)

func TestRankSpread(t *testing.T) {
	db := MustOpenDB(t)
	// 16 ranks, 4 per host. Rank 5 takes 1.5 times as long as the others,
	// and every rank of node0003 (ranks 12-15) 1.2 times, at every size.
	slow := map[int]float64{5: 1.5, 12: 1.2, 13: 1.2, 14: 1.2, 15: 1.2}
	run := &synth.Run{UID: "spread", Ranks: 16, PerHost: 4, Sizes: []uint64{4096, 1 << 20}, Noise: 0.005, Slow: slow}
	dir := filepath.Join(t.TempDir(), "run")
	if err := run.Write(dir); err != nil {
		t.Fatal(err)
	}
	id := mustIngest(t, db, dir).Runs[0].ID

	// Bandwidth and latency both say the same: speed is inverted for
	// metrics where lower is better.
	for _, name := range []string{"gbps", "lat_us"} {
		t.Run(name, func(t *testing.T) {
			sp, err := db.RankSpread(t.Context(), id, mustMetric(t, name), 5)
			if err != nil {
				t.Fatal(err)
			}
			if len(sp.Sizes) != 2 || sp.Sizes[0].Slowest != 5 || sp.Sizes[0].Host != "node0001" || sp.Sizes[0].Samples != 16 {
				t.Errorf("sizes = %+v, want 2, the slowest rank 5 on node0001", sp.Sizes)
			}
			if len(sp.Ranks) != 5 {
				t.Fatalf("slowest ranks = %+v, want 5", sp.Ranks)
			}
			if r := sp.Ranks[0]; r.Rank != 5 || math.Abs(r.Typical-1/1.5) > 0.02 || r.Host != "node0001" ||
				r.LocalRank == nil || *r.LocalRank != 1 {
				t.Errorf("slowest rank = %+v, want rank 5 at speed 0.67 on node0001, local rank 1", r)
			}
			var next []int
			for _, r := range sp.Ranks[1:] {
				next = append(next, r.Rank)
			}
			if sort.Ints(next); !reflect.DeepEqual(next, []int{12, 13, 14, 15}) {
				t.Errorf("next slowest ranks = %v, want 12-15", next)
			}
			if h := sp.Hosts[0]; h.Host != "node0003" || h.Ranks != 4 || math.Abs(h.Typical-1/1.2) > 0.02 {
				t.Errorf("slowest host = %+v, want node0003 (4 ranks) at speed 0.83", h)
			}
			if len(sp.Hosts) != 4 {
				t.Errorf("hosts = %+v, want all 4", sp.Hosts)
			}
		})
	}
	if _, err := db.RankSpread(t.Context(), 99, mustMetric(t, "gbps"), 5); err == nil {
		t.Error("RankSpread(99) succeeded, want ErrRunNotFound")
	}
}

// TestRankSpread_Rails names the slow rail when samples ran on single
// rails, and names none when every sample used the same rails.
func TestRankSpread_Rails(t *testing.T) {
	db := MustOpenDB(t)
	railed := ingestSynth(t, db, &synth.Run{UID: "railed", Ranks: 16, Sizes: []uint64{4096, 1 << 20}, Noise: 0.005,
		Rails: 4, SlowRail: 1.25})
	plain := ingestSynth(t, db, &synth.Run{UID: "plain", Ranks: 16, Sizes: []uint64{4096}})
	sp, err := db.RankSpread(t.Context(), railed, mustMetric(t, "gbps"), 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(sp.Rails) != 4 || sp.Rails[0].Rails != "[0]" || sp.Rails[0].Samples != 8 || math.Abs(sp.Rails[0].Typical-0.8) > 0.02 {
		t.Errorf("rails = %+v, want rail 0 first, 8 samples at speed 0.8, then the other 3", sp.Rails)
	}
	if sp, err := db.RankSpread(t.Context(), plain, mustMetric(t, "gbps"), 5); err != nil || len(sp.Rails) != 0 {
		t.Errorf("rails of a run without them = %+v, %v; want none", sp.Rails, err)
	}
}

// TestRankSpread_References: the copies rank 0 times beside a network
// benchmark on GPU memory are not ranks' samples of it. Pooled, two ranks
// at one rate had a median half as high again, and rank 1 was named
// slowest at 0.67.
func TestRankSpread_References(t *testing.T) {
	db := MustOpenDB(t)
	sample := func(variant string, ns uint64) record.Sample {
		return record.Sample{Peer: -1, Role: "initiator", Variant: variant, BytesSent: 4096, Iterations: 100, ElapsedNs: 100 * ns,
			Lat: record.Lat{Min: ns, P50: ns, P99: ns, Max: ns}}
	}
	id := ingestSynth(t, db, &synth.Run{UID: "device", Ranks: 2, Sizes: []uint64{4096}, Params: map[string]any{"memory": "device"},
		Samples: func(rank int, _ uint64) []record.Sample {
			if rank == 0 {
				return []record.Sample{sample("", 4096), sample("cudaMemcpy", 410), sample("staged", 2048)}
			}
			return []record.Sample{sample("", 4096)}
		}})
	sp, err := db.RankSpread(t.Context(), id, mustMetric(t, "gbps"), 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(sp.Sizes) != 1 || sp.Sizes[0].Samples != 2 || sp.Sizes[0].Median != 8 || sp.Sizes[0].Best != 8 {
		t.Errorf("sizes: %+v; want the two ranks' samples at 8 Gbps", sp.Sizes)
	}
	for _, r := range sp.Ranks {
		if r.Typical != 1 {
			t.Errorf("rank %d: typical speed %.2f, want 1: the ranks ran alike", r.Rank, r.Typical)
		}
	}
}
