package results_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"efaxx/results"
	"efaxx/results/record"
	"efaxx/results/synth"
)

// compareSizes are the sizes of the synthetic runs compared below.
var compareSizes = []uint64{4096, 65536, 1 << 20, 16 << 20}

// ingestSynth writes and ingests run, and returns its id.
func ingestSynth(tb testing.TB, db *results.DB, run *synth.Run) int64 {
	tb.Helper()
	dir := filepath.Join(tb.TempDir(), run.UID)
	if err := run.Write(dir); err != nil {
		tb.Fatal(err)
	}
	return mustIngest(tb, db, dir).Runs[0].ID
}

// runSet ingests n runs of ranks ranks with 3% noise between ranks and,
// from rng, 3% between runs, each changed by edit, and returns their ids.
func runSet(tb testing.TB, db *results.DB, name string, n, ranks int, rng *rand.Rand, edit func(*synth.Run)) []int64 {
	tb.Helper()
	var ids []int64
	for i := range n {
		r := &synth.Run{UID: fmt.Sprint(name, i), Ranks: ranks, Sizes: compareSizes, Noise: 0.03,
			Seed: rng.Uint64(), Offset: math.Exp(0.03 * rng.NormFloat64())}
		if edit != nil {
			edit(r)
		}
		ids = append(ids, ingestSynth(tb, db, r))
	}
	return ids
}

// verdicts compares runs a and b by metric and returns the verdict per size.
func verdicts(tb testing.TB, db *results.DB, a, b []int64, metric string) (map[uint64]string, *results.Comparison) {
	tb.Helper()
	c, err := db.Compare(tb.Context(), results.Compare{
		A: results.RunFilter{IDs: a}, B: results.RunFilter{IDs: b},
		Metric: mustMetric(tb, metric), Bootstrap: results.Bootstrap{Seed: 1},
	})
	if err != nil {
		tb.Fatal(err)
	}
	out := map[uint64]string{}
	for _, r := range c.Rows {
		out[r.Size] = r.Verdict
	}
	return out, c
}

// TestCompare_PlantedRegression plants a 10% loss of bandwidth at one size
// in 5 runs against 5: compare must flag that size, and only that size,
// for bandwidth and latency alike.
func TestCompare_PlantedRegression(t *testing.T) {
	db := MustOpenDB(t)
	rng := rand.New(rand.NewPCG(1, 1))
	all := map[int]float64{}
	for r := range 16 {
		all[r] = 1 / 0.9 // 10% less bandwidth: each iteration takes 1/0.9 as long
	}
	a := runSet(t, db, "a", 5, 16, rng, nil)
	b := runSet(t, db, "b", 5, 16, rng, func(r *synth.Run) { r.Slow, r.SlowSizes = all, map[uint64]bool{65536: true} })
	for _, metric := range []string{"gbps", "lat_us"} {
		got, c := verdicts(t, db, a, b, metric)
		for _, size := range compareSizes {
			want := results.VerdictSame
			if size == 65536 {
				want = results.VerdictRegression
			}
			if got[size] != want {
				t.Errorf("%s at %d: verdict %q, want %q (%+v)", metric, size, got[size], want, c.Rows)
			}
		}
		r := c.Rows[1]
		if r.Test != results.TestMannWhitney || r.A.Runs != 5 || r.A.Samples != 80 || r.P == nil || r.PAdjusted == nil ||
			*r.PAdjusted < *r.P || r.Interval != results.IntervalRuns || r.Lo == nil || *r.Hi >= 1 && metric == "gbps" {
			t.Errorf("%s at 64KiB: %+v, want Mann-Whitney over 5 runs a side, p adjusted up, an interval of runs below 1", metric, r)
		}
	}
}

// TestCompare_RanksAreNotRuns is the case: copies of one run, the
// same true speed and 5% noise per sample, compared one against the next.
// Counting each rank as a sample called 8 pairs in 10 a regression; one
// run a side is too little evidence to say anything.
func TestCompare_RanksAreNotRuns(t *testing.T) {
	db := MustOpenDB(t)
	var ids []int64
	for i := range 11 {
		ids = append(ids, ingestSynth(t, db, &synth.Run{UID: fmt.Sprint("copy", i), Ranks: 32, Sizes: compareSizes,
			Noise: 0.05, Seed: uint64(10 + i)}))
	}
	for i := range 10 {
		got, c := verdicts(t, db, ids[i:i+1], ids[i+1:i+2], "gbps")
		for size, v := range got {
			if v != results.VerdictInconclusive {
				t.Errorf("runs %d and %d at %d: %q, want inconclusive", ids[i], ids[i+1], size, v)
			}
		}
		r := c.Rows[0]
		if r.Test != results.TestNone || r.P != nil || r.Interval != results.IntervalRanks || r.Lo == nil ||
			!strings.Contains(r.Note, "1 run in A, 1 run in B: a verdict needs 4 runs a side") {
			t.Errorf("one run a side: %+v, want no test, an interval over ranks and a note", r)
		}
	}
}

// TestCompare_SameDistribution compares sets of 5 runs drawn from one
// distribution, with offsets between runs: none may be a regression.
func TestCompare_SameDistribution(t *testing.T) {
	db := MustOpenDB(t)
	rng := rand.New(rand.NewPCG(2, 2))
	for pair := range 10 {
		a := runSet(t, db, fmt.Sprint("a", pair), 5, 8, rng, nil)
		b := runSet(t, db, fmt.Sprint("b", pair), 5, 8, rng, nil)
		got, c := verdicts(t, db, a, b, "gbps")
		for size, v := range got {
			if v == results.VerdictRegression {
				t.Errorf("pair %d at %d: regression between runs of one distribution (%+v)", pair, size, c.Rows)
			}
		}
	}
}

// TestCompare_Groups matches groups by the parameters that vary within a
// side, counts the groups only one side has, and names the parameters
// whose values differ between the sides.
func TestCompare_Groups(t *testing.T) {
	db := MustOpenDB(t)
	for i, prov := range []string{"shm", "tcp"} {
		for _, tag := range []string{"old", "new"} {
			chunk := map[string]int{"old": 1 << 20, "new": 1 << 21}[tag]
			ingestSynth(t, db, &synth.Run{UID: prov + tag, Ranks: 8, Sizes: compareSizes[:2], Seed: uint64(i + 1),
				Params: map[string]any{"provider": prov, "chunk": chunk}, Tags: map[string]string{"build": tag}})
		}
	}
	ingestSynth(t, db, &synth.Run{UID: "extra", Ranks: 8, Sizes: []uint64{1 << 30},
		Params: map[string]any{"provider": "shm", "chunk": 1 << 21}, Tags: map[string]string{"build": "new"}})
	c, err := db.Compare(t.Context(), results.Compare{
		A:      results.RunFilter{Tags: []results.TagFilter{{Key: "build", Value: "old"}}},
		B:      results.RunFilter{Tags: []results.TagFilter{{Key: "build", Value: "new"}}},
		Metric: mustMetric(t, "gbps"), By: []string{"provider"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Rows) != 4 || c.OnlyA != 0 || c.OnlyB != 1 || len(c.By) != 1 || c.By[0] != "provider" {
		t.Fatalf("comparison = %d rows, only A %d, only B %d, by %v; want 4, 0, 1, [provider]", len(c.Rows), c.OnlyA, c.OnlyB, c.By)
	}
	if p := c.Rows[2].Params["provider"]; p != "tcp" || c.Rows[2].A.Samples != 8 || c.Rows[2].B.Samples != 8 {
		t.Errorf("third row = %+v, want tcp with 8 samples a side", c.Rows[2])
	}
	if d := c.Differ; len(d) != 1 || d[0].Key != "chunk" || len(d[0].A) != 1 || results.ParamText(d[0].A[0]) != "1048576" ||
		len(d[0].B) != 1 || results.ParamText(d[0].B[0]) != "2097152" {
		t.Errorf("differ = %+v, want chunk: 1048576 in A, 2097152 in B", c.Differ)
	}
}

// TestCompare_TooFewForManySizes: 4 runs a side reach p = 2/70 at best,
// which testing 4 sizes at once asks below 0.05/4 of a lone difference:
// one size slowed by 20% is "~", and the comparison says why.
func TestCompare_TooFewForManySizes(t *testing.T) {
	db := MustOpenDB(t)
	rng := rand.New(rand.NewPCG(3, 3))
	all := map[int]float64{}
	for r := range 8 {
		all[r] = 1.25
	}
	a := runSet(t, db, "a", 4, 8, rng, nil)
	b := runSet(t, db, "b", 4, 8, rng, func(r *synth.Run) { r.Slow, r.SlowSizes = all, map[uint64]bool{65536: true} })
	got, c := verdicts(t, db, a, b, "gbps")
	if got[65536] != results.VerdictSame || !strings.Contains(c.Note, "4 of the 4 rows tested cannot be significant alone") {
		t.Errorf("4 runs a side, one of 4 sizes 20%% slower: %q, note %q; want ~ and a note", got[65536], c.Note)
	}
}

// queueRun is a queue run of one rank whose ring takes ring ns a command
// and whose floor, measured beside it, 300 ns.
func queueRun(uid string, ring float64) *synth.Run {
	return &synth.Run{UID: uid, Benchmark: "queue", Ranks: 1, Sizes: []uint64{64}, Params: map[string]any{"mode": "nbi"},
		Samples: func(rank int, size uint64) []record.Sample {
			sample := func(variant string, ns float64) record.Sample {
				t := uint64(ns)
				return record.Sample{Peer: -1, Role: "initiator", Variant: variant, BytesSent: size, Iterations: 1000,
					ElapsedNs: 1000 * t, Lat: record.Lat{Min: t, P50: t, P99: t, Max: t}}
			}
			return []record.Sample{sample("ring", ring), sample("floor", 300)}
		}}
}

// TestCompare_VariantsApart: what a run measures beside its benchmark
// (the queue's floor) is compared apart from it. Pooled, each run's value
// was the mean of ring and floor, and a ring 20% slower read as 5%
// worse, no regression.
func TestCompare_VariantsApart(t *testing.T) {
	db := MustOpenDB(t)
	var a, b []int64
	for i := range 5 {
		a = append(a, ingestSynth(t, db, queueRun(fmt.Sprint("a", i), 1000+float64(i))))
		b = append(b, ingestSynth(t, db, queueRun(fmt.Sprint("b", i), 1250+float64(i))))
	}
	_, c := verdicts(t, db, a, b, "mops")
	if len(c.Rows) != 2 {
		t.Fatalf("compare of ring and floor: %d rows, want 2, one a variant: %+v", len(c.Rows), c.Rows)
	}
	floor, ring := c.Rows[0], c.Rows[1]
	if floor.Variant != "floor" || floor.Verdict != results.VerdictSame || math.Abs(float64(floor.Ratio)-1) > 1e-9 {
		t.Errorf("floor row: %+v, want the floor unchanged", floor)
	}
	if ring.Variant != "ring" || ring.Verdict != results.VerdictRegression || math.Abs(float64(ring.Ratio)-0.8) > 0.01 {
		t.Errorf("ring row: %+v, want a regression to 0.8", ring)
	}
	q, err := db.Query(t.Context(), results.Query{Filter: results.RunFilter{IDs: a}, Metric: mustMetric(t, "mops"), By: []string{},
		ByVariant: true})
	if err != nil || len(q.Rows) != 2 || q.Rows[0].Variant != "floor" || q.Rows[1].Variant != "ring" || q.Rows[1].Max > 1.001 {
		t.Errorf("query by variant: %+v, %v; want a floor row and a ring row of at most 1 Mops", q, err)
	}
}
