package results_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"efaxx/results"
	"efaxx/results/record"
	"efaxx/results/synth"
)

// testBaseline returns a baseline of write numbers against which a synth
// run on its default 100 Gbps link is the same at 64 MiB (99.9 Gbps) and
// half as fast at 4 KiB (6.15 Gbps).
func testBaseline(text string) *results.Baseline {
	return &results.Baseline{Name: "paper", Repository: "r", Text: []byte(text), Series: []results.BaselineSeries{
		{Benchmark: "write", Variant: "Single", Metric: "libefaxx_gbps", File: "f", Commit: "c", Denominator: "d",
			Values: map[uint64]float64{4096: 12.3, 64 << 20: 99.9, 1 << 30: 100}},
		{Benchmark: "write", Variant: "RoundRobin", Metric: "libefaxx_aggregate_gbps", File: "f", Commit: "c", Denominator: "d",
			Values: map[uint64]float64{4096: 30}},
		{Benchmark: "sendrecv", Variant: "Device", Metric: "libefaxx_gbps", File: "f", Commit: "c", Denominator: "d",
			Values: map[uint64]float64{4096: 3}},
	}}
}

func TestCompareBaseline(t *testing.T) {
	db := MustOpenDB(t)
	if changed, err := db.ImportBaseline(t.Context(), testBaseline("v1")); err != nil || !changed {
		t.Fatalf("ImportBaseline = %v, %v; want true", changed, err)
	}
	if changed, err := db.ImportBaseline(t.Context(), testBaseline("v1")); err != nil || changed {
		t.Errorf("second ImportBaseline of the same text = %v, %v; want false", changed, err)
	}
	if changed, err := db.ImportBaseline(t.Context(), testBaseline("v2")); err != nil || !changed {
		t.Errorf("ImportBaseline of a new text = %v, %v; want true", changed, err)
	}
	var ids []int64
	rng := rand.New(rand.NewPCG(1, 1))
	for i := range 8 {
		ids = append(ids, ingestSynth(t, db, &synth.Run{UID: fmt.Sprint("run", i), Ranks: 16, Sizes: []uint64{4096, 64 << 20},
			Noise: 0.01, Seed: uint64(i + 1), Offset: math.Exp(0.01 * rng.NormFloat64())}))
	}

	c, err := db.CompareBaseline(t.Context(), results.BaselineCompare{Baseline: "paper", Runs: results.RunFilter{IDs: ids}})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Rows) != 2 || len(c.Skipped) != 2 || len(c.Series) != 1 {
		t.Fatalf("comparison = %d rows, skipped %q, %d series; want 2 rows of one series, 2 skipped", len(c.Rows), c.Skipped, len(c.Series))
	}
	small, large := c.Rows[0], c.Rows[1]
	if small.Size != 4096 || small.Verdict != results.VerdictRegression || small.Ratio > 0.55 || small.Runs.Runs != 8 ||
		small.Runs.Samples != 128 || small.Test != results.TestSignedRank {
		t.Errorf("at 4KiB: %+v, want a regression to half, by the signed-rank test over 8 runs", small)
	}
	if large.Size != 64<<20 || large.Verdict != results.VerdictSame || *large.Lo > 1 || *large.Hi < 1 || large.Interval != results.IntervalRuns {
		t.Errorf("at 64MiB: %+v, want the same, its interval over runs around 1", large)
	}
	// Five runs: no arrangement of five signs reaches p < 0.05.
	c, err = db.CompareBaseline(t.Context(), results.BaselineCompare{Baseline: "paper", Runs: results.RunFilter{IDs: ids[:5]}})
	if err != nil || c.Rows[0].Verdict != results.VerdictInconclusive ||
		c.Rows[0].Note != "5 runs: no test of so few runs reaches p < 0.05" {
		t.Errorf("five runs: %+v, %v; want inconclusive", c.Rows[0], err)
	}
	if _, err := db.CompareBaseline(t.Context(), results.BaselineCompare{Baseline: "none"}); !errors.Is(err, results.ErrBaselineNotFound) {
		t.Errorf("CompareBaseline(none) = %v, want ErrBaselineNotFound", err)
	}
}

// TestImportBaselines_AllOrNothing: one baseline that cannot be stored
// leaves out the others given with it.
func TestImportBaselines_AllOrNothing(t *testing.T) {
	db := MustOpenDB(t)
	good := testBaseline("v1")
	bad := testBaseline("v1")
	bad.Name = "dup"
	bad.Series = append(bad.Series, bad.Series[0]) // the same series twice breaks UNIQUE
	if _, err := db.ImportBaselines(t.Context(), []*results.Baseline{good, bad}); err == nil {
		t.Fatal("ImportBaselines with a duplicate series succeeded, want an error")
	}
	if _, err := db.Baseline(t.Context(), good.Name); !errors.Is(err, results.ErrBaselineNotFound) {
		t.Errorf("Baseline(%q) after a failed import = %v, want ErrBaselineNotFound", good.Name, err)
	}
}

// TestCompareBaselineBenchmark: runs selected by benchmark are put beside
// that benchmark's series alone, and a benchmark or variant the baseline
// has no series of is ErrNoSeries.
func TestCompareBaselineBenchmark(t *testing.T) {
	db := MustOpenDB(t)
	if _, err := db.ImportBaseline(t.Context(), testBaseline("v1")); err != nil {
		t.Fatal(err)
	}
	for i, b := range []string{"write", "sendrecv"} {
		ingestSynth(t, db, &synth.Run{UID: b, Benchmark: b, Ranks: 2, Sizes: []uint64{4096}, Seed: uint64(i + 1)})
	}
	c, err := db.CompareBaseline(t.Context(), results.BaselineCompare{Baseline: "paper", Runs: results.RunFilter{Benchmark: "sendrecv"}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range c.Rows {
		got = append(got, r.Series.Benchmark+" "+r.Variant)
	}
	if len(got) != 1 || got[0] != "sendrecv Device" || len(c.Skipped) != 0 {
		t.Errorf("sendrecv runs beside the baseline: rows %q, skipped %q; want sendrecv Device's one row alone", got, c.Skipped)
	}
	for _, tt := range []struct {
		c    results.BaselineCompare
		want string
	}{
		{results.BaselineCompare{Runs: results.RunFilter{Benchmark: "all2all"}},
			`baseline "paper" has no series of benchmark "all2all" (it has sendrecv, write)`},
		{results.BaselineCompare{Variants: []string{"Single", "Nope"}},
			`baseline "paper" has no variant "Nope" (the variants: Device, RoundRobin, Single)`},
		{results.BaselineCompare{Runs: results.RunFilter{Benchmark: "sendrecv"}, Variants: []string{"Single"}},
			`baseline "paper" has no variant "Single" of sendrecv (the variants of sendrecv: Device)`},
	} {
		tt.c.Baseline = "paper"
		if _, err := db.CompareBaseline(t.Context(), tt.c); !errors.Is(err, results.ErrNoSeries) || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("CompareBaseline(%s, %q) = %v, want ErrNoSeries: %s", tt.c.Runs.Benchmark, tt.c.Variants, err, tt.want)
		}
	}
}

// TestCompareBaselineSetup: a series is compared only with the runs of its
// params; where runs of its benchmark are selected but none has them, it
// is left out, and the comparison says how the runs differ. A run that
// fits no compared series is named.
func TestCompareBaselineSetup(t *testing.T) {
	db := MustOpenDB(t)
	b := testBaseline("v1")
	b.Series[0].Params = map[string]any{"provider": "efa", "ranks": int64(2)}
	if _, err := db.ImportBaseline(t.Context(), b); err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for i, p := range []string{"shm", "tcp", "efa"} {
		ids = append(ids, ingestSynth(t, db, &synth.Run{UID: p, Ranks: 2, Sizes: []uint64{4096}, Seed: uint64(i + 1),
			Params: map[string]any{"provider": p, "ranks": 2}}))
	}
	single := []string{"Single"}
	c, err := db.CompareBaseline(t.Context(), results.BaselineCompare{Baseline: "paper", Variants: single,
		Runs: results.RunFilter{IDs: ids[:2]}})
	if err != nil {
		t.Fatal(err)
	}
	want := []results.SeriesDiff{{Benchmark: "write", Variant: "Single", Metric: "libefaxx_gbps",
		Params: []results.ParamDiff{{Key: "provider", A: []any{"efa"}, B: []any{"shm", "tcp"}}}}}
	if len(c.Rows) != 0 || !reflect.DeepEqual(c.Differ, want) ||
		!slices.Equal(c.Skipped, []string{"write Single libefaxx_gbps: no selected run has its setup: provider efa (runs: shm, tcp)"}) {
		t.Errorf("shm and tcp runs beside an efa series: %d rows, differ %+v, skipped %q; want none, the provider named",
			len(c.Rows), c.Differ, c.Skipped)
	}
	c, err = db.CompareBaseline(t.Context(), results.BaselineCompare{Baseline: "paper", Variants: single})
	if err != nil || len(c.Rows) != 1 || c.Rows[0].Runs.Runs != 1 || len(c.Differ) != 0 || !slices.Equal(c.NotCompared, ids[:2]) {
		t.Errorf("all three runs: %+v, %v; want the efa run's one row, the others named not compared", c, err)
	}
}

// TestCompareBaselineReferences: runs on GPU memory are put beside a
// series by their network samples alone, not with the cudaMemcpy and
// staged copies rank 0 times beside them, which pooled moved each run's
// median; a series whose runs measure it several ways must name one.
func TestCompareBaselineReferences(t *testing.T) {
	db := MustOpenDB(t)
	b := testBaseline("v1")
	b.Series = append(b.Series[:1], results.BaselineSeries{Benchmark: "write", Variant: "Ways", Metric: "gbps",
		File: "f", Commit: "c", Denominator: "d", Params: map[string]any{"memory": "pinned"}, Values: map[uint64]float64{4096: 8}})
	if _, err := db.ImportBaseline(t.Context(), b); err != nil {
		t.Fatal(err)
	}
	// Each rank writes at 8 Gbps (4096 B in 4096 ns); rank 0 also copies at 800 and 80.
	sample := func(variant string, ns uint64) record.Sample {
		return record.Sample{Role: "initiator", Variant: variant, BytesSent: 4096, Iterations: 100, ElapsedNs: 100 * ns,
			Lat: record.Lat{Min: ns, P50: ns, P99: ns, Max: ns}}
	}
	var ids []int64
	for i, memory := range []string{"device", "device", "device", "device", "device", "device", "pinned"} {
		ids = append(ids, ingestSynth(t, db, &synth.Run{UID: fmt.Sprint("run", i), Ranks: 2, Sizes: []uint64{4096},
			Params: map[string]any{"memory": memory}, Samples: func(rank int, size uint64) []record.Sample {
				var ss []record.Sample
				switch {
				case memory == "pinned":
					ss = []record.Sample{sample("a", 4096), sample("b", 2048)}
				case rank == 0:
					ss = []record.Sample{sample("", 4096+uint64(i)), sample("cudaMemcpy", 41), sample("staged", 410)}
				default:
					ss = []record.Sample{sample("", 4096+uint64(i))}
				}
				for k := range ss {
					ss[k].Peer = 1 - rank // the other rank: ingest refuses a rank's own
				}
				return ss
			}}))
	}
	c, err := db.CompareBaseline(t.Context(), results.BaselineCompare{Baseline: "paper", Variants: []string{"Single"},
		Runs: results.RunFilter{IDs: ids[:6]}})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Rows) != 1 || c.Rows[0].Runs.Samples != 12 || math.Abs(c.Rows[0].Runs.Median-8) > 0.01 {
		t.Fatalf("device runs beside a write series: %+v; want one row of their 12 network samples, 8 Gbps", c.Rows)
	}
	c, err = db.CompareBaseline(t.Context(), results.BaselineCompare{Baseline: "paper", Variants: []string{"Ways"},
		Runs: results.RunFilter{IDs: ids[6:]}})
	if err == nil && len(c.Rows) == 0 && slices.Equal(c.Skipped,
		[]string{"write Ways gbps: its runs measure it several ways (variants a, b): the series must name one (sample_variant)"}) {
		return
	}
	t.Errorf("a run of two variants beside a series that names none: %+v, %v; want it skipped, naming them", c, err)
}
