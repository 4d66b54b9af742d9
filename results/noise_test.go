package results_test

import (
	"path/filepath"
	"sync"
	"testing"

	"efaxx/results"
)

// noiseData are the stored runs that measured one thing again and again,
// to which compare's noise model is fitted (plots/data/README.md says
// where and when each was measured).
var noiseData = []struct {
	name, dir string
	filter    results.RunFilter
	by        []string
	quiet     bool // a machine to itself: 5 runs a side must catch 10%
}{{
	// The demo's four points in 12 sessions on the 2-core VM, shared by
	// the team's builds and tests while they ran.
	name: "vm-2core", dir: "vm-2core/repeat",
	filter: results.RunFilter{Sweep: "local-repeat"}, by: []string{"provider"},
}, {
	// The copy engines' memcpy, which every ipc run on a pair of a node's
	// H100s measures beside its kernel whatever the kernel's launch
	// shape: the same copy, 5 runs a direction.
	name: "h100x4", dir: "h100x4/gpu-ipc", quiet: true,
	filter: results.RunFilter{Sweep: "gpu-ipc", SampleVariant: ptr("memcpy")}, by: []string{"direction"},
}}

func ptr[T any](v T) *T { return &v }

// noise is one fitted model and the shape of the runs it came from.
type noise struct {
	name  string
	model results.NoiseModel
	sizes int
	quiet bool
}

var (
	fitOnce sync.Once
	fitted  []noise
	fitErr  error
)

// fitNoise fits a model to each of noiseData, once per test binary.
func fitNoise(tb testing.TB) []noise {
	tb.Helper()
	fitOnce.Do(func() {
		db, err := results.Open(tb.Context(), filepath.Join(tb.TempDir(), "noise.db"))
		if err != nil {
			fitErr = err
			return
		}
		defer db.Close()
		for _, d := range noiseData {
			if _, err := db.Ingest(tb.Context(), filepath.Join("..", "plots", "data", d.dir)); err != nil {
				fitErr = err
				return
			}
			m, _ := results.LookupMetric("gbps")
			nm, err := db.FitNoise(tb.Context(), d.filter, m, d.by)
			if err != nil {
				fitErr = err
				return
			}
			stats, err := db.Query(tb.Context(), results.Query{Filter: d.filter, Metric: m, By: d.by})
			if err != nil {
				fitErr = err
				return
			}
			sizes := map[uint64]bool{}
			for _, r := range stats.Rows {
				sizes[r.Size] = true
			}
			fitted = append(fitted, noise{name: d.name, model: nm, sizes: len(sizes), quiet: d.quiet})
		}
	})
	if fitErr != nil {
		tb.Fatal(fitErr)
	}
	return fitted
}

// simulate is a simulation of the fitted runs' shape, runs a side.
func (n noise) simulate(runs int, slowdown float64, seed uint64) results.Simulation {
	return results.Simulation{Runs: runs, Ranks: max(1, n.model.Ranks), Sizes: n.sizes, Slowdown: slowdown,
		Trials: 2000, Seed: seed}
}

// TestCompareFalseAlarms: on noise fitted to the stored repeated runs, an
// A/A compare (both sides the same machine and point) finds a regression
// in at most 5% of comparisons, at every size count and run count; on
// the quiet machine's noise a true 10% slowdown with 5 runs a side is
// caught in at least 90%. The noisy VM's power is measured and reported
// (docs/statistics.md), with the runs a side it would take.
func TestCompareFalseAlarms(t *testing.T) {
	for _, n := range fitNoise(t) {
		t.Run(n.name, func(t *testing.T) {
			t.Logf("%s: %v (fitted to %d groups of %d runs or more, %d ranks, %d sizes)",
				n.name, n.model, n.model.Groups, n.model.Runs, n.model.Ranks, n.sizes)
			for _, runs := range []int{4, 5, 10} {
				if aa := n.model.Regressions(n.simulate(runs, 0, 1)); aa > 0.05 {
					t.Errorf("A/A with %d runs a side: %.1f%% of comparisons found a regression, want at most 5%%", runs, 100*aa)
				} else {
					t.Logf("A/A, %d runs a side: %.1f%% false regressions", runs, 100*aa)
				}
			}
			caught := n.model.Regressions(n.simulate(5, 0.10, 2))
			t.Logf("10%% slowdown, 5 runs a side: caught %.1f%%", 100*caught)
			if n.quiet && caught < 0.90 {
				t.Errorf("10%% slowdown with 5 runs a side caught in %.1f%% of comparisons, want at least 90%%", 100*caught)
			}
			if !n.quiet && caught < 0.90 && !testing.Short() {
				// How many runs this noise takes (docs/statistics.md).
				for runs := 10; runs <= 640; runs *= 2 {
					c := n.model.Regressions(n.simulate(runs, 0.10, 3))
					t.Logf("10%% slowdown, %d runs a side: caught %.1f%%", runs, 100*c)
					if c >= 0.90 {
						break
					}
				}
			}
		})
	}
}

// BenchmarkCompareNoise prints compare's measured false-alarm and
// detection rates on the fitted noise (make bench).
func BenchmarkCompareNoise(b *testing.B) {
	for _, n := range fitNoise(b) {
		b.Run(n.name, func(b *testing.B) {
			var aa, caught float64
			for range b.N {
				aa = n.model.Regressions(n.simulate(5, 0, 1))
				caught = n.model.Regressions(n.simulate(5, 0.10, 2))
			}
			b.ReportMetric(100*aa, "%A/A-regressions")
			b.ReportMetric(100*caught, "%10%-slowdown-caught")
		})
	}
}
