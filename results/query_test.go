package results_test

import (
	"errors"
	"math"
	"reflect"
	"testing"

	"efaxx/results"
)

func TestQuery(t *testing.T) {
	db := MustOpenDB(t)
	session := t.TempDir()
	// write: rank 0 sends 1024 bytes x 100 iterations in 1 ms (0.8192
	// Gbps); rank r receives them in r+1 ms (0.8192/(r+1) Gbps).
	shm := newTestRun("uid-1", "write", 4, 1024)
	shm.write(t, session, "000-a")
	again := newTestRun("uid-2", "write", 2, 1024)
	again.write(t, session, "001-b")
	tcp := newTestRun("uid-3", "write", 2, 1024)
	tcp.manifest.Point, tcp.manifest.Params = "point-tcp", map[string]any{"provider": "tcp", "iterations": 100}
	tcp.write(t, session, "002-c")
	mustIngest(t, db, session)
	gbps := mustMetric(t, "gbps")

	tests := []struct {
		name string
		q    results.Query
		want []results.QueryRow
	}{{
		name: "by what varies: provider",
		q:    results.Query{Metric: gbps},
		want: []results.QueryRow{
			// 0.8192/1..4 from run 1 and 0.8192/1..2 from run 2. Sorted:
			// .2048 .27307 .4096 .4096 .8192 .8192; the p99 lies 0.95 of
			// the way from the fifth to the sixth.
			{Benchmark: "write", Params: map[string]any{"provider": "shm"}, Size: 1024, Agg: results.Agg{
				Count: 6, Runs: 2, Min: 0.2048, Median: 0.4096, Max: 0.8192, P99: 0.8192,
				Mean: (0.8192*2 + 0.4096*2 + 0.8192/3 + 0.2048) / 6}},
			{Benchmark: "write", Params: map[string]any{"provider": "tcp"}, Size: 1024, Agg: results.Agg{
				Count: 2, Runs: 1, Min: 0.4096, Median: 0.6144, Mean: 0.6144, Max: 0.8192, P99: 0.4096 + 0.99*0.4096}},
		},
	}, {
		name: "by nothing: one group per size",
		q:    results.Query{Metric: gbps, By: []string{}},
		want: []results.QueryRow{{Benchmark: "write", Params: map[string]any{}, Size: 1024, Agg: results.Agg{
			Count: 8, Runs: 3, Min: 0.2048, Median: 0.4096, Max: 0.8192, P99: 0.8192,
			Mean: (0.8192*3 + 0.4096*3 + 0.8192/3 + 0.2048) / 8}}},
	}, {
		name: "filtered to one run of 4 ranks",
		q:    results.Query{Metric: gbps, By: []string{"iterations"}, Filter: results.RunFilter{IDs: []int64{1}}},
		want: []results.QueryRow{{Benchmark: "write", Params: map[string]any{"iterations": 100.0}, Size: 1024, Agg: results.Agg{
			Count: 4, Runs: 1, Min: 0.2048, Median: (0.4096 + 0.8192/3) / 2, Max: 0.8192,
			Mean: (0.8192 + 0.4096 + 0.8192/3 + 0.2048) / 4, P99: 0.4096 + 0.97*0.4096}}},
	}, {
		name: "a parameter no run has",
		q:    results.Query{Metric: gbps, By: []string{"rails"}, Filter: results.RunFilter{IDs: []int64{3}}},
		want: []results.QueryRow{{Benchmark: "write", Params: map[string]any{"rails": nil}, Size: 1024, Agg: results.Agg{
			Count: 2, Runs: 1, Min: 0.4096, Median: 0.6144, Mean: 0.6144, Max: 0.8192, P99: 0.4096 + 0.99*0.4096}}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := db.Query(t.Context(), tt.q)
			if err != nil {
				t.Fatal(err)
			}
			if !nearRows(got.Rows, tt.want) {
				t.Errorf("Query rows =\n%+v\nwant\n%+v", got.Rows, tt.want)
			}
		})
	}
}

func TestQuery_Latency(t *testing.T) {
	db := MustOpenDB(t)
	// sendrecv p50s of 10·2^r µs are round trips: one-way 5, 10, 20 µs.
	mustIngest(t, db, newTestRun("uid-1", "sendrecv", 3, 1024).write(t, t.TempDir(), "000"))
	got, err := db.Query(t.Context(), results.Query{Metric: mustMetric(t, "lat_us"), By: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	want := []results.QueryRow{{Benchmark: "sendrecv", Params: map[string]any{}, Size: 1024,
		Agg: results.Agg{Count: 3, Runs: 1, Min: 5, Median: 10, Mean: 35.0 / 3, Max: 20, P99: 10 + 0.98*10}}}
	if !nearRows(got.Rows, want) {
		t.Errorf("Query lat_us rows = %+v, want %+v", got.Rows, want)
	}
}

func TestQuery_BadParam(t *testing.T) {
	db := MustOpenDB(t)
	_, err := db.Query(t.Context(), results.Query{Metric: mustMetric(t, "gbps"), By: []string{`a"b`}})
	if !errors.Is(err, results.ErrBadParamName) {
		t.Errorf("Query by a\"b = %v, want ErrBadParamName", err)
	}
	if _, err := results.LookupMetric("bandwidth"); !errors.Is(err, results.ErrUnknownMetric) {
		t.Errorf("LookupMetric(bandwidth) = %v, want ErrUnknownMetric", err)
	}
}

// mustMetric looks a metric up.
func mustMetric(tb testing.TB, name string) results.Metric {
	tb.Helper()
	m, err := results.LookupMetric(name)
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// nearRows reports whether got and want agree, floats to 1e-9.
func nearRows(got, want []results.QueryRow) bool {
	if len(got) != len(want) {
		return false
	}
	for i, g := range got {
		w := want[i]
		a, b := g.Agg, w.Agg
		if g.Benchmark != w.Benchmark || g.Size != w.Size || !reflect.DeepEqual(g.Params, w.Params) ||
			a.Count != b.Count || a.Runs != b.Runs {
			return false
		}
		for _, p := range [][2]float64{{a.Min, b.Min}, {a.Median, b.Median}, {a.Mean, b.Mean}, {a.Max, b.Max}, {a.P99, b.P99}} {
			if math.Abs(p[0]-p[1]) > 1e-9 {
				return false
			}
		}
	}
	return true
}
