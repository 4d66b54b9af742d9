package results_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"efaxx/results"
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

// verdicts compares runs a and b by metric and returns the verdict per size.
func verdicts(tb testing.TB, db *results.DB, a, b int64, metric string) (map[uint64]string, *results.Comparison) {
	tb.Helper()
	c, err := db.Compare(tb.Context(), results.Compare{
		A: results.RunFilter{IDs: []int64{a}}, B: results.RunFilter{IDs: []int64{b}},
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
// in runs of 64 ranks with 3% noise between ranks: compare must flag that
// size, and only that size, for bandwidth and latency alike.
func TestCompare_PlantedRegression(t *testing.T) {
	db := MustOpenDB(t)
	all := map[int]float64{}
	for r := range 64 {
		all[r] = 1 / 0.9 // 10% less bandwidth: each iteration takes 1/0.9 as long
	}
	a := ingestSynth(t, db, &synth.Run{UID: "a", Ranks: 64, Sizes: compareSizes, Noise: 0.03, Seed: 1})
	b := ingestSynth(t, db, &synth.Run{UID: "b", Ranks: 64, Sizes: compareSizes, Noise: 0.03, Seed: 2,
		Slow: all, SlowSizes: map[uint64]bool{65536: true}})
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
		if n := c.Regressions(); n != 1 {
			t.Errorf("%s: %d regressions, want 1", metric, n)
		}
	}
}

// TestCompare_SameDistribution compares pairs of runs drawn from one
// distribution: none may be called a regression, and at a confidence of
// 95% about one group in twenty may differ significantly by chance.
func TestCompare_SameDistribution(t *testing.T) {
	db := MustOpenDB(t)
	groups, significant := 0, 0
	for pair := range 10 {
		seed := uint64(100 + 2*pair)
		a := ingestSynth(t, db, &synth.Run{UID: fmt.Sprint("a", pair), Ranks: 64, Sizes: compareSizes, Noise: 0.03, Seed: seed})
		b := ingestSynth(t, db, &synth.Run{UID: fmt.Sprint("b", pair), Ranks: 64, Sizes: compareSizes, Noise: 0.03, Seed: seed + 1})
		got, c := verdicts(t, db, a, b, "gbps")
		for size, v := range got {
			groups++
			if v == results.VerdictRegression {
				t.Errorf("pair %d at %d: regression between runs of one distribution (%+v)", pair, size, c.Rows)
			}
			if v != results.VerdictSame {
				significant++
			}
		}
		if c.Rows[0].Test != results.TestBootstrap || c.Rows[0].Lo == nil || *c.Rows[0].Lo > *c.Rows[0].Hi {
			t.Errorf("pair %d: first row %+v, want a bootstrap interval", pair, c.Rows[0])
		}
	}
	if groups != 40 || significant > 6 {
		t.Errorf("%d of %d groups differ significantly, want at most 6 (about 2 expected)", significant, groups)
	}
}

// TestCompare_OneSamplePerSide falls back to the samples' iteration times.
func TestCompare_OneSamplePerSide(t *testing.T) {
	db := MustOpenDB(t)
	// synth spreads iterations from 0.97 to 1.2 of their time, p99 at 1.05.
	a := ingestSynth(t, db, &synth.Run{UID: "a", Ranks: 1, Sizes: compareSizes})
	same := ingestSynth(t, db, &synth.Run{UID: "same", Ranks: 1, Sizes: compareSizes, Slow: map[int]float64{0: 1.02}})
	slow := ingestSynth(t, db, &synth.Run{UID: "slow", Ranks: 1, Sizes: compareSizes, Slow: map[int]float64{0: 1.1}})
	fast := ingestSynth(t, db, &synth.Run{UID: "fast", Ranks: 1, Sizes: compareSizes, Slow: map[int]float64{0: 0.9}})
	for _, tt := range []struct {
		b    int64
		want string
	}{{same, results.VerdictSame}, {slow, results.VerdictRegression}, {fast, results.VerdictBetter}} {
		got, c := verdicts(t, db, a, tt.b, "gbps")
		for size, v := range got {
			if v != tt.want {
				t.Errorf("run %d at %d: verdict %q, want %q", tt.b, size, v, tt.want)
			}
		}
		if c.Rows[0].Test != results.TestPerIteration || c.Rows[0].Lo != nil {
			t.Errorf("run %d: test %q, want %q without an interval", tt.b, c.Rows[0].Test, results.TestPerIteration)
		}
	}
}

// TestCompare_Groups matches groups by the parameters that vary within a
// side, and counts the groups only one side has.
func TestCompare_Groups(t *testing.T) {
	db := MustOpenDB(t)
	for i, prov := range []string{"shm", "tcp"} {
		for _, tag := range []string{"old", "new"} {
			ingestSynth(t, db, &synth.Run{UID: prov + tag, Ranks: 8, Sizes: compareSizes[:2], Seed: uint64(i + 1),
				Params: map[string]any{"provider": prov}, Tags: map[string]string{"build": tag}})
		}
	}
	ingestSynth(t, db, &synth.Run{UID: "extra", Ranks: 8, Sizes: []uint64{1 << 30},
		Params: map[string]any{"provider": "shm"}, Tags: map[string]string{"build": "new"}})
	c, err := db.Compare(t.Context(), results.Compare{
		A:      results.RunFilter{Tags: []results.TagFilter{{Key: "build", Value: "old"}}},
		B:      results.RunFilter{Tags: []results.TagFilter{{Key: "build", Value: "new"}}},
		Metric: mustMetric(t, "gbps"),
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
}
