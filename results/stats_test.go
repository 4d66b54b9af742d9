package results_test

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"efaxx/results"
	"efaxx/results/record"
)

// near reports whether a and b agree to 1e-9, relative.
func near(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b))
}

// nearStats reports whether got and want agree, floats to 1e-9.
func nearStats(got, want []results.SizeStat) bool {
	if len(got) != len(want) {
		return false
	}
	for i, g := range got {
		w := want[i]
		if g.Size != w.Size || g.Ranks != w.Ranks || g.Iterations != w.Iterations ||
			!near(g.LatP50Ns, w.LatP50Ns) || !near(g.BwMinGbps, w.BwMinGbps) ||
			!near(g.BwMedianGbps, w.BwMedianGbps) || !near(g.BwMaxGbps, w.BwMaxGbps) {
			return false
		}
	}
	return true
}

func TestSizeStats(t *testing.T) {
	// Rank r of newTestRun times 100 iterations in (r+1) ms with a p50 of
	// 10·2^r µs. sendrecv moves 2·size per iteration per rank, so rank 0
	// runs at 8·2·1024·100/1e6 = 1.6384 Gbps at 1 KiB; write moves size.
	tests := []struct {
		name      string
		benchmark string
		ranks     int
		want      []results.SizeStat
	}{{
		name: "sendrecv, 2 ranks", benchmark: "sendrecv", ranks: 2,
		want: []results.SizeStat{
			// p50s 10 and 20 µs are round trips: one-way 5 and 10 µs, median 7.5 µs.
			{Size: 1024, Ranks: 2, LatP50Ns: 7500, BwMinGbps: 0.8192, BwMedianGbps: 1.2288, BwMaxGbps: 1.6384, Iterations: 100},
			{Size: 4096, Ranks: 2, LatP50Ns: 7500, BwMinGbps: 3.2768, BwMedianGbps: 4.9152, BwMaxGbps: 6.5536, Iterations: 100},
		},
	}, {
		name: "sendrecv, 3 ranks", benchmark: "sendrecv", ranks: 3,
		want: []results.SizeStat{
			// 1.6384/1, /2, /3 Gbps; one-way 5, 10, 20 µs: medians, not means.
			{Size: 1024, Ranks: 3, LatP50Ns: 10000, BwMinGbps: 1.6384 / 3, BwMedianGbps: 0.8192, BwMaxGbps: 1.6384, Iterations: 100},
			{Size: 4096, Ranks: 3, LatP50Ns: 10000, BwMinGbps: 6.5536 / 3, BwMedianGbps: 3.2768, BwMaxGbps: 6.5536, Iterations: 100},
		},
	}, {
		name: "write, 2 ranks", benchmark: "write", ranks: 2,
		want: []results.SizeStat{
			// One-way already: p50s 10 and 20 µs, median 15 µs.
			{Size: 1024, Ranks: 2, LatP50Ns: 15000, BwMinGbps: 0.4096, BwMedianGbps: 0.6144, BwMaxGbps: 0.8192, Iterations: 100},
			{Size: 4096, Ranks: 2, LatP50Ns: 15000, BwMinGbps: 1.6384, BwMedianGbps: 2.4576, BwMaxGbps: 3.2768, Iterations: 100},
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := MustOpenDB(t)
			dir := newTestRun("uid-1", tt.benchmark, tt.ranks, 4096, 1024).write(t, t.TempDir(), "000-p1")
			id := mustIngest(t, db, dir).Runs[0].ID
			got, err := db.SizeStats(t.Context(), id)
			if err != nil {
				t.Fatal(err)
			}
			if !nearStats(got, tt.want) {
				t.Errorf("SizeStats(%d) = %+v, want %+v", id, got, tt.want)
			}
		})
	}
}

func TestCurves(t *testing.T) {
	db := MustOpenDB(t)
	session := t.TempDir()
	write := func(name, uid, benchmark, provider string) int64 {
		r := newTestRun(uid, benchmark, 2, 1024, 4096)
		r.manifest.Point = "point-" + benchmark + "-" + provider
		r.manifest.Params["provider"] = provider
		return mustIngest(t, db, r.write(t, session, name)).Runs[0].ID
	}
	shm := write("000-a", "uid-1", "write", "shm")
	tcp := write("001-b", "uid-2", "write", "tcp")
	pingpong := write("002-c", "uid-3", "sendrecv", "shm")
	again := write("003-d", "uid-4", "sendrecv", "shm")

	writeShm := []results.CurvePoint{{Size: 1024, Value: 0.6144}, {Size: 4096, Value: 2.4576}}
	sendrecv := []results.CurvePoint{{Size: 1024, Value: 1.2288}, {Size: 4096, Value: 4.9152}}
	tests := []struct {
		name string
		ids  []int64
		want []results.Curve
	}{{
		name: "params differ",
		ids:  []int64{shm, tcp},
		want: []results.Curve{
			{RunID: shm, Label: "write provider=shm", Metric: "gbps", Points: writeShm},
			{RunID: tcp, Label: "write provider=tcp", Metric: "gbps", Points: writeShm},
		},
	}, {
		name: "benchmarks differ",
		ids:  []int64{pingpong, shm},
		want: []results.Curve{
			{RunID: pingpong, Label: "sendrecv", Metric: "gbps", Points: sendrecv},
			{RunID: shm, Label: "write", Metric: "gbps", Points: writeShm},
		},
	}, {
		name: "identical points",
		ids:  []int64{pingpong, again},
		want: []results.Curve{
			{RunID: pingpong, Label: "sendrecv (run 3)", Metric: "gbps", Points: sendrecv},
			{RunID: again, Label: "sendrecv (run 4)", Metric: "gbps", Points: sendrecv},
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := db.Curves(t.Context(), tt.ids)
			if err != nil {
				t.Fatal(err)
			}
			if !nearCurves(got, tt.want) {
				t.Errorf("Curves(%v) = %+v, want %+v", tt.ids, got, tt.want)
			}
		})
	}
}

// nearCurves reports whether got and want agree, floats to 1e-9.
func nearCurves(got, want []results.Curve) bool {
	if len(got) != len(want) {
		return false
	}
	for i, g := range got {
		w := want[i]
		if g.RunID != w.RunID || g.Variant != w.Variant || g.Label != w.Label || g.Metric != w.Metric || len(g.Points) != len(w.Points) {
			return false
		}
		for j, p := range g.Points {
			if p.Size != w.Points[j].Size || !near(p.Value, w.Points[j].Value) {
				return false
			}
		}
	}
	return true
}

func TestRunNotFound(t *testing.T) {
	db := MustOpenDB(t)
	mustIngest(t, db, newTestRun("uid-1", "sendrecv", 2, 1024).write(t, t.TempDir(), "000-p1"))
	tests := []struct {
		name string
		call func() error
	}{
		{"Run", func() error { _, err := db.Run(t.Context(), 999); return err }},
		{"SizeStats", func() error { _, err := db.SizeStats(t.Context(), 999); return err }},
		{"Curves", func() error { _, err := db.Curves(t.Context(), []int64{1, 999}); return err }},
	}
	for _, tt := range tests {
		if err := tt.call(); !errors.Is(err, results.ErrRunNotFound) {
			t.Errorf("%s(999) error = %v, want ErrRunNotFound", tt.name, err)
		}
	}
}

func TestSizeStats_NoSamples(t *testing.T) {
	db := MustOpenDB(t)
	r := newTestRun("uid-1", "sendrecv", 2)
	id := mustIngest(t, db, r.write(t, t.TempDir(), "000-p1")).Runs[0].ID
	got, err := db.SizeStats(t.Context(), id)
	if err != nil || len(got) != 0 {
		t.Errorf("SizeStats of a run without samples = %v, %v; want none, nil", got, err)
	}
	curves, err := db.Curves(t.Context(), []int64{id})
	if err != nil || !reflect.DeepEqual(curves, []results.Curve{{RunID: id, Label: "sendrecv", Metric: "gbps", Points: []results.CurvePoint{}}}) {
		t.Errorf("Curves of a run without samples = %+v, %v; want one empty curve", curves, err)
	}
}

// TestCurves_Variants draws each variant of a run as its own curve, in the
// benchmark's own metric: a queue's ring beside its floor in Mops, an ipc
// copy kernel beside the copy engines in GB/s. One curve through both
// variants would zig-zag between them at every size.
func TestCurves_Variants(t *testing.T) {
	db := MustOpenDB(t)
	session := t.TempDir()
	// withVariants returns r with each sample of a size repeated per
	// variant, the variant's elapsed time multiplied by its factor.
	withVariants := func(r *testRun, variants []string, factor []uint64) *testRun {
		for rank, lines := range r.lines {
			var out []string
			for _, line := range lines {
				var s record.Sample
				if json.Unmarshal([]byte(line), &s) != nil || s.Type != record.TypeSample {
					out = append(out, line)
					continue
				}
				for i, v := range variants {
					s := s
					s.Variant, s.ElapsedNs = v, s.ElapsedNs*factor[i]
					out = append(out, mustJSON(s))
				}
			}
			r.lines[rank] = out
		}
		return r
	}
	queue := withVariants(newTestRun("uid-q", "queue", 1, 8, 16), []string{"floor", "ring"}, []uint64{1, 4})
	queue.manifest.Params["mode"] = "nbi"
	q := mustIngest(t, db, queue.write(t, session, "000-q")).Runs[0].ID
	ipc := withVariants(newTestRun("uid-i", "ipc", 2, 1024), []string{"528x512", "memcpy"}, []uint64{2, 1})
	i := mustIngest(t, db, ipc.write(t, session, "001-i")).Runs[0].ID
	w := mustIngest(t, db, newTestRun("uid-w", "write", 2, 1024).write(t, session, "002-w")).Runs[0].ID

	got, err := db.Curves(t.Context(), []int64{q})
	// 100 commands in 1 ms (floor) and 4 ms (ring): 0.1 and 0.025 Mops;
	// the reference, floor, comes last.
	want := []results.Curve{
		{RunID: q, Variant: "ring", Label: "queue variant=ring", Metric: "mops",
			Points: []results.CurvePoint{{Size: 8, Value: 0.025}, {Size: 16, Value: 0.025}}},
		{RunID: q, Variant: "floor", Label: "queue variant=floor", Metric: "mops",
			Points: []results.CurvePoint{{Size: 8, Value: 0.1}, {Size: 16, Value: 0.1}}},
	}
	if err != nil || !nearCurves(got, want) {
		t.Errorf("Curves(queue) = %+v, %v; want %+v", got, err, want)
	}
	// 1024 bytes copied 100 times by the busier rank in 2 or 4 ms (kernel)
	// and 1 or 2 ms (memcpy): medians 0.0384 and 0.0768 GB/s.
	got, err = db.Curves(t.Context(), []int64{i})
	want = []results.Curve{
		{RunID: i, Variant: "528x512", Label: "ipc variant=528x512", Metric: "dir_gbs",
			Points: []results.CurvePoint{{Size: 1024, Value: 0.0384}}},
		{RunID: i, Variant: "memcpy", Label: "ipc variant=memcpy", Metric: "dir_gbs",
			Points: []results.CurvePoint{{Size: 1024, Value: 0.0768}}},
	}
	if err != nil || !nearCurves(got, want) {
		t.Errorf("Curves(ipc) = %+v, %v; want %+v", got, err, want)
	}
	for _, ids := range [][]int64{{i, w}, {q, w}, {q, i}} {
		if _, err := db.Curves(t.Context(), ids); err == nil || !strings.Contains(err.Error(), "one plot has one unit") {
			t.Errorf("Curves(%v) = %v; want an error: their units differ", ids, err)
		}
	}
}
