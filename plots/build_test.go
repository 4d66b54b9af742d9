package plots_test

import (
	"database/sql"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"efaxx/plots"
	"efaxx/results"
	"efaxx/results/synth"
)

// synthStore stores synthetic runs (results/synth: a link model, not
// measurements): sweep "a", write over shm at 4K and 1M on 8 ranks,
// strategy single and split; sweep "b", the same points 25% slower; and
// sweep "c", one run whose rank 3 is twice as slow. Ids: a 1-2, b 3-4, c 5.
func synthStore(t *testing.T) *results.DB {
	t.Helper()
	dir := t.TempDir()
	sizes := []uint64{4096, 1 << 20}
	var runs []*synth.Run
	for i, sw := range []string{"a", "b"} {
		for j, strategy := range []string{"single", "split"} {
			r := &synth.Run{UID: fmt.Sprintf("%s-%s", sw, strategy), Sweep: sw, Ranks: 8, Sizes: sizes, Noise: 0.01,
				Seed: uint64(10*i + j + 1), Params: map[string]any{"provider": "shm", "strategy": strategy, "ranks": 8}}
			if sw == "b" {
				r.Slow = map[int]float64{0: 1.25, 1: 1.25, 2: 1.25, 3: 1.25, 4: 1.25, 5: 1.25, 6: 1.25, 7: 1.25}
			}
			runs = append(runs, r)
		}
	}
	runs = append(runs, &synth.Run{UID: "c", Sweep: "c", Ranks: 8, PerHost: 2, Sizes: sizes, Seed: 7, Slow: map[int]float64{3: 2}})
	for i, r := range runs {
		if err := r.Write(filepath.Join(dir, "data", r.Sweep, "session", fmt.Sprintf("%03d", i))); err != nil {
			t.Fatal(err)
		}
	}
	db, err := plots.OpenData(t.Context(), filepath.Join(dir, "data"), filepath.Join(dir, "f.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// build parses a spec of head plus text and builds it.
func build(t *testing.T, db *results.DB, text string) (*plots.Figure, error) {
	t.Helper()
	s, err := plots.ParseSpec("t.toml", []byte("name = \"t\"\ntitle = \"T\"\nout = \"t.png\"\n"+text))
	if err != nil {
		t.Fatal(err)
	}
	return plots.Build(t.Context(), db, s)
}

// TestBuildMissing: a figure whose data is missing says which spec and
// panel, and what is missing, and is not built.
func TestBuildMissing(t *testing.T) {
	db := synthStore(t)
	tests := []struct {
		name, spec, want string
		missing          bool
	}{
		{"no runs match", "y = \"gbps\"\nruns.sweep = \"nope\"\n",
			"figure t (t.toml): missing data: no stored run matches sweep nope (latest session), status ok", true},
		{"filtered to nothing", "y = \"gbps\"\n[panel.tcp]\nruns = { sweep = \"a\", params = { provider = \"tcp\" } }\n",
			"figure t (t.toml), panel tcp: missing data: no stored run matches sweep a (latest session), params provider=tcp, status ok", true},
		{"a dimension no run has", "y = \"gbps\"\nruns.sweep = \"a\"\nseries = [\"cells\", \"variant\"]\n",
			"figure t (t.toml): missing data: parameter \"cells\", which the figure draws by, is missing from runs 1-2 (sweep a, benchmark write): it needs runs whose points set cells", true},
		{"a series without samples", "y = \"gbps\"\nruns.sweep = \"a\"\nseries = \"strategy\"\nseries_values = [\"single\", \"round-robin\"]\n",
			"figure t (t.toml): runs 1-2 (sweep a (latest session), status ok): missing data: no samples of series \"round-robin\" (strategy); the series there are: \"single\", \"split\"", true},
		{"a size not measured", "y = \"gbps\"\nruns.sweep = \"a\"\nsizes = \"64MiB\"\n",
			"figure t (t.toml): missing data: runs 1-2 (sweep a (latest session), status ok) have no samples with a value of gbps at sizes 64M", true},
		{"a metric without values", "y = \"algbw\"\nruns.sweep = \"a\"\n",
			"figure t (t.toml): missing data: runs 1-2 (sweep a (latest session), status ok) have no samples with a value of algbw", true},
		{"two series of one label", "y = \"gbps\"\nruns.sweep = \"a\"\nseries = \"strategy\"\nlabels = { single = \"one rail\", split = \"one rail\" }\n",
			"figure t (t.toml): runs 1-2 (sweep a (latest session), status ok): series \"single\" and \"split\" have the same label \"one rail\": give them labels of their own", false},
		{"x not a number", "y = \"gbps\"\nruns.sweep = \"a\"\nx = \"provider\"\n",
			"figure t (t.toml): x: parameter \"provider\" of run 1 is \"shm\", not a number", false},
		{"spread of two runs", "kind = \"spread\"\ny = \"gbps\"\nruns.sweep = \"a\"\n",
			"figure t (t.toml): a spread figure draws one run, and sweep a (latest session), status ok picks 2 (runs 1-2): narrow it", false},
		{"compare without common groups", "kind = \"compare\"\ny = \"gbps\"\nruns.sweep = \"c\"\nreference.sweep = \"a\"\n",
			"figure t (t.toml): missing data: runs 5 (sweep c (latest session), status ok) and the reference runs 1-2 (sweep a (latest session), status ok) have no benchmark, series and size in common (4 groups only in the reference, 2 only in the runs)", true},
		{"compare without reference runs", "kind = \"compare\"\ny = \"gbps\"\nruns.sweep = \"b\"\nreference.sweep = \"z\"\n",
			"figure t (t.toml): reference: missing data: no stored run matches sweep z (latest session), status ok", true},
		{"baseline not imported", "kind = \"compare\"\ny = \"gbps\"\nruns.sweep = \"b\"\nbaseline = \"libefaxx-p5\"\n",
			"figure t (t.toml): baseline \"libefaxx-p5\": results: baseline not imported", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fig, err := build(t, db, tt.spec)
			if err == nil {
				t.Fatalf("Build succeeded (%d panels), want %q", len(fig.Panels), tt.want)
			}
			var fe *plots.FigureError
			if err.Error() != tt.want || errors.Is(err, plots.ErrMissingData) != tt.missing || !errors.As(err, &fe) {
				t.Errorf("Build error =\n%v\nwant\n%s\n(missing data: %v)", err, tt.want, tt.missing)
			}
		})
	}
}

func TestBuildLines(t *testing.T) {
	db := synthStore(t)
	fig, err := build(t, db, "y = \"gbps\"\nseries = \"strategy\"\nruns.sweep = [\"a\", \"b\"]\n"+
		"[panel.a]\nruns.sweep = \"a\"\n[panel.b]\nruns.sweep = \"b\"\nseries_values = [\"split\", \"single\"]\nlabels.split = \"split over rails\"\n")
	if err != nil {
		t.Fatal(err)
	}
	a, b := fig.Panels[0], fig.Panels[1]
	if got := labels(a.Series) + " | " + labels(b.Series); got != "single/0 split/1 | split over rails/2 single/0" {
		t.Errorf("series = %s, want single/0 split/1 | split over rails/2 single/0 (label/style)", got)
	}
	// The synthetic link: 100 Gbps and 5 us per iteration; sample gbps
	// counts the bytes sent or received once, so 1 MiB is near
	// 8*2^20/(5000+8*2^20/100) Gbps, and sweep b runs 1.25 times slower.
	want := 8 * float64(1<<20) / (5000 + 8*float64(1<<20)/100)
	if y := a.Series[0].Points[1].Y; y < 0.97*want || y > 1.03*want {
		t.Errorf("a single at 1M = %.2f Gbps, want about %.2f", y, want)
	}
	if r := b.Series[1].Points[1].Y / a.Series[0].Points[1].Y; r < 0.78 || r > 0.82 {
		t.Errorf("b/a single at 1M = %.3f, want about 0.8", r)
	}
	if got := strings.Join(fig.Caption, "\n"); got != "Measured on host node0000, no GPU, shm: runs 1-4, 2023-11-14" {
		t.Errorf("caption = %q", got)
	}
}

// labels writes each series as label/style.
func labels(series []plots.SeriesData) string {
	var out []string
	for _, s := range series {
		out = append(out, fmt.Sprintf("%s/%d", s.Label, s.Style))
	}
	return strings.Join(out, " ")
}

func TestBuildCompare(t *testing.T) {
	db := synthStore(t)
	fig, err := build(t, db, "kind = \"compare\"\ny = \"gbps\"\nseries = \"strategy\"\nruns.sweep = \"b\"\nreference.sweep = \"a\"\n")
	if err != nil {
		t.Fatal(err)
	}
	p := fig.Panels[0]
	if len(p.Series) != 2 || len(p.Rules) != 2 || p.Rules[1].Y != 0.95 {
		t.Fatalf("panel = %+v, want 2 series and rules at 1 and 0.95", p)
	}
	for _, s := range p.Series {
		for _, pt := range s.Points {
			if pt.Y < 0.78 || pt.Y > 0.82 || pt.Lo == nil || pt.Hi == nil || *pt.Hi >= 1 || *pt.Lo > pt.Y || *pt.Hi < pt.Y {
				t.Errorf("%s at %v: ratio %v in [%v, %v], want about 0.8 with an interval below 1", s.Key, pt.X, pt.Y, pt.Lo, pt.Hi)
			}
		}
	}
}

func TestBuildCompareBaseline(t *testing.T) {
	db := synthStore(t)
	b := &results.Baseline{Name: "pub", Repository: "r", Text: []byte("pub"), Series: []results.BaselineSeries{{
		Benchmark: "write", Variant: "Pub", Metric: "gbps", File: "f", Commit: "c", Denominator: "d",
		Values: map[uint64]float64{1 << 20: 50}}}}
	if _, err := db.ImportBaseline(t.Context(), b); err != nil {
		t.Fatal(err)
	}
	fig, err := build(t, db, "kind = \"compare\"\ny = \"gbps\"\nruns.sweep = \"a\"\nbaseline = \"pub\"\n")
	if err != nil {
		t.Fatal(err)
	}
	s := fig.Panels[0].Series
	want := 8 * float64(1<<20) / (5000 + 8*float64(1<<20)/100) / 50
	if len(s) != 1 || s[0].Key != "write Pub (gbps)" || len(s[0].Points) != 1 || s[0].Points[0].Y < 0.97*want || s[0].Points[0].Y > 1.03*want {
		t.Errorf("series = %+v, want write Pub (gbps) at 1M near %.3f", s, want)
	}
}

func TestBuildSpread(t *testing.T) {
	db := synthStore(t)
	fig, err := build(t, db, "kind = \"spread\"\ny = \"gbps\"\nruns.sweep = \"c\"\n")
	if err != nil {
		t.Fatal(err)
	}
	p := fig.Panels[0]
	if len(p.Boxes) != 2 || p.Boxes[0].Samples != 8 || p.Boxes[0].Min >= p.Boxes[0].P25 {
		t.Errorf("boxes = %+v, want 2 of 8 samples with rank 3 below the rest", p.Boxes)
	}
	if len(p.Notes) != 2 || p.Notes[0].Text != "rank 3 (node0001)" || p.Notes[0].Y != p.Boxes[0].Min {
		t.Errorf("notes = %+v, want rank 3 (node0001) at each size's minimum", p.Notes)
	}
	if !strings.HasPrefix(p.Footnote, "slowest (typical speed / median): ranks 3 (node0001) 0.5") ||
		!strings.Contains(p.Footnote, "hosts node0001 0.") {
		t.Errorf("footnote = %q, want rank 3 on node0001 named slowest, then its host", p.Footnote)
	}
}

// TestSelectLatest: the latest runs of a sweep are the newest run of each
// point of the sweep file's newest version, across sessions: a retry that
// ran one point in a session of its own joins the first session's other
// points, a point run again replaces its older run, and the points of an
// older version of the file drop out.
func TestSelectLatest(t *testing.T) {
	dir := t.TempDir()
	sizes := []uint64{4096}
	run := func(uid, sweep, spec, strategy, session string, start int64) {
		r := &synth.Run{UID: uid, Sweep: sweep, Spec: spec, Ranks: 2, Sizes: sizes, StartNs: start,
			Params: map[string]any{"provider": "shm", "strategy": strategy}}
		if err := r.Write(filepath.Join(dir, "data", sweep, session, uid)); err != nil {
			t.Fatal(err)
		}
	}
	const t0 = 1_700_000_000_000_000_000
	run("r-single-1", "r", "v1", "single", "s1", t0)      // the first session: split failed, not stored
	run("r-split", "r", "v1", "split", "s2", t0+1e12)     // the retry of split
	run("r-single-2", "r", "v1", "single", "s3", t0+2e12) // single measured again
	run("v-single-old", "v", "old", "single", "s1", t0)
	run("v-split-old", "v", "old", "split", "s1", t0+1)
	run("v-single-new", "v", "new", "single", "s2", t0+1e12) // the file changed: its points only
	db, err := plots.OpenData(t.Context(), filepath.Join(dir, "data"), filepath.Join(dir, "f.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for sweep, want := range map[string]string{"r": "r-split r-single-2", "v": "v-single-new"} {
		runs, err := plots.Selector{Sweeps: []string{sweep}}.Runs(t.Context(), db)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range runs {
			got = append(got, r.UID)
		}
		if strings.Join(got, " ") != want {
			t.Errorf("latest runs of sweep %s = %v, want %s", sweep, got, want)
		}
	}
}

// TestBuildCompareVariants: a compare panel of runs that measure a size
// several ways draws a line per variant with series = "variant" (compare
// gives each variant a row): the queue's ring 20% slower, its floor not.
func TestBuildCompareVariants(t *testing.T) {
	dir := t.TempDir()
	for i := range 8 {
		sw, ring := "qa", uint64(1000+i)
		if i >= 4 {
			sw, ring = "qb", uint64(1250+i)
		}
		r := &synth.Run{UID: fmt.Sprint("q", i), Sweep: sw, Benchmark: "queue", Ranks: 1, Sizes: []uint64{64},
			Params: map[string]any{"mode": "nbi"}, Samples: synth.QueueSamples(ring)}
		if err := r.Write(filepath.Join(dir, "data", sw, "session", fmt.Sprintf("%03d", i))); err != nil {
			t.Fatal(err)
		}
	}
	db, err := plots.OpenData(t.Context(), filepath.Join(dir, "data"), filepath.Join(dir, "f.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	fig, err := build(t, db, "kind = \"compare\"\ny = \"mops\"\nseries = \"variant\"\nruns.sweep = \"qb\"\nreference.sweep = \"qa\"\n")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"floor": 1, "ring": 0.8}
	for _, s := range fig.Panels[0].Series {
		if len(s.Points) != 1 || math.Abs(s.Points[0].Y-want[s.Key]) > 0.01 {
			t.Errorf("series %q: %+v, want one point at %v", s.Key, s.Points, want[s.Key])
		}
		delete(want, s.Key)
	}
	if len(want) != 0 {
		t.Errorf("series %v not drawn", want)
	}
}

// TestSpreadLeavesOutReferences: a spread panel's boxes are the
// benchmark's own samples, as its slowest ranks are: on GPU memory rank 0
// also times cudaMemcpy and a staged copy of the same bytes (committed
// runs of the H200 machine), which are no rank of the write.
func TestSpreadLeavesOutReferences(t *testing.T) {
	db, err := plots.OpenData(t.Context(), "data/h200/gpu-device", filepath.Join(t.TempDir(), "f.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	fig, err := build(t, db, "kind = \"spread\"\ny = \"dir_gbps\"\nruns = { sweep = \"gpu-device\", benchmark = \"write\" }\n")
	if err != nil {
		t.Fatal(err)
	}
	boxes := fig.Panels[0].Boxes
	if len(boxes) == 0 {
		t.Fatal("no boxes")
	}
	for _, b := range boxes {
		if b.Samples != 2 {
			t.Errorf("box at %s: %d samples, want 2: the write's two ranks, not rank 0's cudaMemcpy and staged copies",
				plots.SizeLabel(uint64(b.X)), b.Samples)
		}
	}
}

// TestLinesOneVariant: a line whose series do not name the variant is the
// benchmark's own samples, not pooled with the references measured beside
// it (rank 0's cudaMemcpy and staged copies of a write on GPU memory, in
// committed runs of one H200, where both ranks share the GPU and the
// copy inside it runs 3.7 times the write), and a point that would pool two
// ways of measuring (the copy kernel's launch shapes) is an error.
func TestLinesOneVariant(t *testing.T) {
	db, err := plots.OpenData(t.Context(), "data/h200", filepath.Join(t.TempDir(), "f.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	fig, err := build(t, db, "y = \"dir_gbps\"\nstat = \"max\"\nsizes = \"256MiB\"\nruns = { sweep = \"gpu-device\", benchmark = \"write\" }\n")
	if err != nil {
		t.Fatal(err)
	}
	pts := fig.Panels[0].Series[0].Points
	if len(pts) != 1 || pts[0].Y > 8000 { // the write's ranks 4303 Gbps, rank 0's cudaMemcpy 15954 (2026-11-28)
		t.Errorf("write on GPU memory at 256M: %+v, want the write's ranks (4303 Gbps), not cudaMemcpy's 15954", pts)
	}
	ipc, err := plots.OpenData(t.Context(), "data/h100x4/gpu-ipc", filepath.Join(t.TempDir(), "ipc.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer ipc.Close()
	_, err = build(t, ipc, "y = \"dir_gbs\"\nruns = { sweep = \"gpu-ipc\", params = { direction = \"push\" } }\n")
	if err == nil || !strings.Contains(err.Error(), "would pool samples of variants") {
		t.Errorf("a line over every launch shape = %v, want an error saying it would pool them", err)
	}
}

// TestCaptionNotOK: a figure whose spec selects runs that did not end ok
// (status = "any") says so under the panels, run by run, as it does of
// runs built from uncommitted code.
func TestCaptionNotOK(t *testing.T) {
	dir := t.TempDir()
	for i, strategy := range []string{"single", "split"} {
		r := &synth.Run{UID: strategy, Sweep: "a", Ranks: 2, Sizes: []uint64{4096, 1 << 20}, Seed: uint64(i + 1),
			Params: map[string]any{"provider": "shm", "strategy": strategy}}
		if strategy == "split" {
			r.Fail = "rank 1: verification failed"
		}
		if err := r.Write(filepath.Join(dir, "data", "a", "s", strategy)); err != nil {
			t.Fatal(err)
		}
	}
	db, err := plots.OpenData(t.Context(), filepath.Join(dir, "data"), filepath.Join(dir, "f.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	fig, err := build(t, db, "y = \"gbps\"\nseries = \"strategy\"\nruns = { sweep = \"a\", status = \"any\" }\n")
	if err != nil {
		t.Fatal(err)
	}
	if c := strings.Join(fig.Caption, " "); !strings.Contains(c, "DID NOT END OK: run 2 failed") || strings.Contains(c, "run 1 ok") {
		t.Errorf("caption %q does not name the failed run 2 alone", c)
	}
	if fig, err = build(t, db, "y = \"gbps\"\nruns.sweep = \"a\"\n"); err != nil {
		t.Fatal(err)
	}
	if c := strings.Join(fig.Caption, " "); strings.Contains(c, "DID NOT END OK") {
		t.Errorf("a figure of ok runs: caption %q", c)
	}
}

// TestToolValueUnit: a panel of a value an external tool printed
// (nvbandwidth's bandwidth, in the committed runs of a 4-GPU node) says
// the unit the tool printed it in, which the metric's name does not, and
// values printed in two units are refused rather than drawn on one axis.
func TestToolValueUnit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.db")
	db, err := plots.OpenData(t.Context(), "data/h100x4/gpu-node-nvbandwidth", path)
	if err != nil {
		t.Fatal(err)
	}
	spec := "y = \"tool:bandwidth\"\nseries = \"variant\"\nseries_values = \"device_local_copy\"\nruns.sweep = \"gpu-node-nvbandwidth\"\n"
	fig, err := build(t, db, spec)
	if err != nil {
		t.Fatal(err)
	}
	if l := fig.Panels[0].YLabel; l != "bandwidth, GB/s (as the tool printed it)" {
		t.Errorf("y label %q, want the value's name and its unit, GB/s", l)
	}
	db.Close()
	raw, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`UPDATE tool_values SET unit = 'MB/s' WHERE variant = 'device_local_copy'`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	if db, err = results.Open(t.Context(), path); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := build(t, db, spec); err == nil || !strings.Contains(err.Error(), `in "GB/s" and "MB/s": one axis has one unit`) {
		t.Errorf("a panel of bandwidth in GB/s and MB/s = %v, want an error naming both units", err)
	}
}

// TestMatrixToolUnit: a matrix of a tool's value (nvbandwidth's
// bandwidth, committed runs of a 4-GPU node) names the weakest pair in
// the unit the tool printed, not in the value's name.
func TestMatrixToolUnit(t *testing.T) {
	db, err := plots.OpenData(t.Context(), "data/h100x4/gpu-node-nvbandwidth", filepath.Join(t.TempDir(), "f.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	fig, err := build(t, db, "kind = \"matrix\"\ny = \"tool:bandwidth\"\nvariant = \"device_to_device_memcpy_write_ce\"\nruns.sweep = \"gpu-node-nvbandwidth\"\n")
	if err != nil {
		t.Fatal(err)
	}
	if f := fig.Panels[0].Footnote; !strings.Contains(f, " GB/s, ") || strings.Contains(f, " bandwidth, ") {
		t.Errorf("footnote %q, want the weakest pair in GB/s", f)
	}
}

// TestSelectParams: runs.params reads a value as a sweep's [params] does:
// chunk = "1MiB" selects the runs that stored 1048576 bytes, and chunk =
// "auto" those whose chunk is the one "auto" gave them (8 MiB for a write
// under single, 1 MiB under per-op).
func TestSelectParams(t *testing.T) {
	dir := t.TempDir()
	for i, p := range []struct {
		uid, strategy string
		chunk         uint64
	}{{"single-1m", "single", 1 << 20}, {"single-8m", "single", 8 << 20}, {"per-op-1m", "per-op", 1 << 20}} {
		r := &synth.Run{UID: p.uid, Sweep: "p", Ranks: 2, Sizes: []uint64{4096}, StartNs: 1_700_000_000_000_000_000 + int64(i),
			Params: map[string]any{"provider": "shm", "strategy": p.strategy, "memory": "host", "chunk": p.chunk}}
		if err := r.Write(filepath.Join(dir, "data", "p", "s1", p.uid)); err != nil {
			t.Fatal(err)
		}
	}
	db, err := plots.OpenData(t.Context(), filepath.Join(dir, "data"), filepath.Join(dir, "f.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for chunk, want := range map[string]string{"1MiB": "per-op-1m single-1m", "auto": "per-op-1m single-8m", "8388608": "single-8m"} {
		runs, err := plots.Selector{Sweeps: []string{"p"}, Params: map[string]any{"chunk": chunk}}.Runs(t.Context(), db)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range runs {
			got = append(got, r.UID)
		}
		if slices.Sort(got); strings.Join(got, " ") != want {
			t.Errorf("runs with chunk %q = %v, want %s", chunk, got, want)
		}
	}
}
