package results_test

import (
	"errors"
	"math"
	"reflect"
	"testing"

	"efaxx/results"
	"efaxx/results/record"
)

// seriesStore stores two write runs, shm over 4 ranks and tcp over 2, each
// at 1024 and 2048 bytes; rank 0 of the shm run also measures 1024 bytes a
// second way (variant "memcpy"), in 0.5 ms, and has a GPU.
func seriesStore(t *testing.T) *results.DB {
	t.Helper()
	db := MustOpenDB(t)
	session := t.TempDir()
	shm := newTestRun("uid-1", "write", 4, 1024, 2048)
	extra := sampleOf("write", 0, 4, 1024)
	extra.Variant, extra.ElapsedNs = "memcpy", 500_000
	end := len(shm.lines[0]) - 1
	shm.lines[0] = append(shm.lines[0][:end], mustJSON(extra), shm.lines[0][end])
	shm.lines[0][0] = mustJSON(record.Rank{Type: record.TypeRank, Rank: 0, World: 4, Host: "node0",
		Benchmark: "write", GPU: "NVIDIA H200, sm_90, 132 SMs"})
	shm.write(t, session, "000-a")
	tcp := newTestRun("uid-2", "write", 2, 1024, 2048)
	tcp.manifest.Point, tcp.manifest.Params = "point-tcp", map[string]any{"provider": "tcp", "iterations": 100}
	tcp.write(t, session, "001-b")
	mustIngest(t, db, session)
	return db
}

func TestSeries(t *testing.T) {
	db := seriesStore(t)
	gbs := mustMetric(t, "dir_gbs")
	// Rank r moves 1024 B x 100 in (r+1) ms: 0.1024/(r+1) GB/s.
	const g = 0.1024
	tests := []struct {
		name string
		q    results.SeriesQuery
		want []results.SeriesRow
	}{{
		name: "by provider and variant, one size",
		q:    results.SeriesQuery{Runs: []int64{1, 2}, Metric: gbs, Dims: []string{"provider", "variant"}, X: "size", Sizes: []uint64{1024}},
		want: []results.SeriesRow{
			{Keys: []string{"shm", ""}, X: 1024, Samples: 4, Runs: 1, Min: g / 4, P25: g/4 + 0.75*(g/3-g/4),
				Median: (g/3 + g/2) / 2, P75: g/2 + 0.25*(g-g/2), Max: g, Mean: (g + g/2 + g/3 + g/4) / 4, P99: g/2 + 0.97*(g-g/2)},
			{Keys: []string{"shm", "memcpy"}, X: 1024, Samples: 1, Runs: 1, Min: 2 * g, P25: 2 * g, Median: 2 * g, P75: 2 * g,
				Max: 2 * g, Mean: 2 * g, P99: 2 * g},
			{Keys: []string{"tcp", ""}, X: 1024, Samples: 2, Runs: 1, Min: g / 2, P25: g/2 + 0.25*g/2, Median: 0.75 * g,
				P75: g/2 + 0.75*g/2, Max: g, Mean: 0.75 * g, P99: g/2 + 0.99*g/2},
		},
	}, {
		name: "initiators only, against a numeric parameter",
		q:    results.SeriesQuery{Runs: []int64{1, 2}, Metric: gbs, Dims: []string{results.DimRun}, X: "iterations", Roles: []string{"initiator"}, Sizes: []uint64{2048}},
		want: []results.SeriesRow{
			{Keys: []string{"1"}, X: 100, Samples: 1, Runs: 1, Min: 2 * g, P25: 2 * g, Median: 2 * g, P75: 2 * g, Max: 2 * g, Mean: 2 * g, P99: 2 * g},
			{Keys: []string{"2"}, X: 100, Samples: 1, Runs: 1, Min: 2 * g, P25: 2 * g, Median: 2 * g, P75: 2 * g, Max: 2 * g, Mean: 2 * g, P99: 2 * g},
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := db.Series(t.Context(), tt.q)
			if err != nil {
				t.Fatal(err)
			}
			if !seriesEqual(got, tt.want) {
				t.Errorf("Series() =\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}

// seriesEqual compares rows, numbers to 1e-9.
func seriesEqual(a, b []results.SeriesRow) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		nums := [][2]float64{{x.X, y.X}, {x.Min, y.Min}, {x.P25, y.P25}, {x.Median, y.Median}, {x.P75, y.P75},
			{x.Max, y.Max}, {x.Mean, y.Mean}, {x.P99, y.P99}}
		for _, n := range nums {
			if math.Abs(n[0]-n[1]) > 1e-9 {
				return false
			}
		}
		if !reflect.DeepEqual(x.Keys, y.Keys) || x.Samples != y.Samples || x.Runs != y.Runs {
			return false
		}
	}
	return true
}

func TestSeriesMops(t *testing.T) {
	db := seriesStore(t)
	rows, err := db.Series(t.Context(), results.SeriesQuery{Runs: []int64{2}, Metric: mustMetric(t, "mops"),
		X: "size", Roles: []string{"target"}})
	if err != nil {
		t.Fatal(err)
	}
	// Rank 1 of run 2 times 100 iterations in 2 ms: 0.05 M/s.
	if len(rows) != 2 || math.Abs(rows[0].Median-0.05) > 1e-12 || rows[1].X != 2048 {
		t.Errorf("mops of run 2's target = %+v, want 0.05 at 1024 and 2048", rows)
	}
}

func TestSeriesBadParam(t *testing.T) {
	db := seriesStore(t)
	_, err := db.Series(t.Context(), results.SeriesQuery{Runs: []int64{1}, Metric: mustMetric(t, "gbps"), Dims: []string{`a"b`}, X: "size"})
	if !errors.Is(err, results.ErrBadParamName) {
		t.Errorf("Series(dimension a\"b) = %v, want ErrBadParamName", err)
	}
}

func TestRunGPUs(t *testing.T) {
	db := seriesStore(t)
	keep := func(s string) string { return s }
	mustIngest(t, db, toolRun(t, "nvb", "nvbandwidth:nvbandwidth", "nvbandwidth", "nvbandwidth", 1, "nvbandwidth/h100x4-node.txt", keep))
	mustIngest(t, db, externalRun(t, "osu", keep))
	got, err := db.RunGPUs(t.Context(), []int64{1, 2, 3, 4, 5})
	if err != nil {
		t.Fatal(err)
	}
	// efaxx's own runs say which GPU they used, or none; an external
	// program's, what the tool printed of its devices, or that efaxx cannot tell
	want := map[int64]string{1: "NVIDIA H200, sm_90, 132 SMs", 2: "", 3: "NVIDIA H100 80GB HBM3", 4: results.GPUNotRecorded}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("RunGPUs = %v, want %v", got, want)
	}
}
