package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"efaxx/results/synth"
)

// TestPlotVariants draws committed GPU runs: each variant of a run is its
// own line, labelled with it, and the axis is in the benchmark's unit
// (show's), not Gbps; runs of different units are refused, not mixed.
func TestPlotVariants(t *testing.T) {
	db := filepath.Join(t.TempDir(), "s.db")
	for _, data := range []string{"../../plots/data/h200/gpu-queue", "../../plots/data/h100x4/gpu-ipc"} {
		if code, stdout, stderr := efaxx(t, "--db", db, "ingest", data); code != 0 {
			t.Fatalf("ingest %s = %d\n%s%s", data, code, stdout, stderr)
		}
	}
	out := t.TempDir()
	for _, tt := range []struct {
		sweep string
		want  []string // in the SVG
	}{
		{"gpu-queue", []string{"Mops", "queue mode=nbi producers=1 variant=ring", "queue mode=nbi producers=1 variant=floor"}},
		{"gpu-ipc", []string{"GB/s", "ipc direction=push launch=auto variant=528x512", "ipc direction=push launch=auto variant=memcpy"}},
	} {
		svg := filepath.Join(out, tt.sweep+".svg")
		if code, stdout, stderr := efaxx(t, "--db", db, "plot", "--sweep", tt.sweep, "--out", svg); code != 0 {
			t.Fatalf("efaxx plot --sweep %s = %d\n%s%s", tt.sweep, code, stdout, stderr)
		}
		b, err := os.ReadFile(svg)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range tt.want {
			if !strings.Contains(string(b), want) {
				t.Errorf("plot --sweep %s: the figure lacks %q", tt.sweep, want)
			}
		}
		if strings.Contains(string(b), "Gbps") {
			t.Errorf("plot --sweep %s: the axis says Gbps, want the benchmark's unit", tt.sweep)
		}
	}
	var queue, ipc string
	sqlRow(t, db, `SELECT MIN(id) FROM runs WHERE benchmark = 'queue'`, &queue)
	sqlRow(t, db, `SELECT MIN(id) FROM runs WHERE benchmark = 'ipc'`, &ipc)
	code, _, stderr := efaxx(t, "--db", db, "plot", "--run", queue, "--run", ipc, "--out", filepath.Join(out, "mixed.svg"))
	if code != 3 || !strings.Contains(stderr, "one plot has one unit") {
		t.Errorf("efaxx plot of a queue run with an ipc run = %d, %q; want 3: their units differ", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "mixed.svg")); !os.IsNotExist(err) {
		t.Errorf("mixed.svg: %v, want no figure", err)
	}
}

// TestPlotFigureFlags: --data and --out-dir are flags of plot SPEC; plot
// --run/--sweep refuses them rather than draw from --db into --out while
// ignoring them, and plot SPEC takes --out or --out-dir, not both.
func TestPlotFigureFlags(t *testing.T) {
	data, specs, _ := figureFixture(t)
	db := filepath.Join(t.TempDir(), "s.db")
	if code, stdout, stderr := efaxx(t, "--db", db, "ingest", data); code != 0 {
		t.Fatalf("ingest = %d\n%s%s", code, stdout, stderr)
	}
	dir := t.TempDir()
	out, outDir := filepath.Join(dir, "p.svg"), filepath.Join(dir, "od")
	for _, tt := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--run", "1", "--out", out, "--out-dir", outDir, "--data", "/nonexist"},
			"efaxx: plot --run/--sweep takes --out and --title, not --data, --out-dir"},
		{[]string{"--sweep", "a", "--out", out, "--data", data}, "efaxx: plot --run/--sweep takes --out and --title, not --data"},
		{[]string{"--run", "1", "--out", out, "--out-dir", outDir}, "efaxx: plot --run/--sweep takes --out and --title, not --out-dir"},
		{[]string{"--data", data, "--out", out}, "efaxx: --data: only with a figure spec"},
		{[]string{"--out", filepath.Join(dir, "a.png"), "--out-dir", outDir, filepath.Join(specs, "ok.toml")},
			"efaxx: plot SPEC takes --out or --out-dir, not both"},
	} {
		code, stdout, stderr := efaxx(t, append([]string{"--db", db, "plot"}, tt.args...)...)
		if code != 2 || stdout != "" || !strings.HasPrefix(stderr, tt.msg) || !strings.Contains(stderr, "usage: efaxx plot") {
			t.Errorf("efaxx plot %v = %d, stdout %q, stderr %q; want 2 and %q", tt.args, code, stdout, stderr, tt.msg)
		}
	}
	for _, f := range []string{out, outDir, filepath.Join(dir, "a.png")} {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Errorf("%s: %v, want nothing written for a wrong command line", f, err)
		}
	}
	// --data and --out-dir still work with a spec, and --out alone.
	if code, stdout, stderr := efaxx(t, "--db", db, "plot", "--data", data, "--out-dir", outDir, filepath.Join(specs, "ok.toml")); code != 0 ||
		!strings.Contains(stdout, "wrote "+filepath.Join(outDir, "ok.png")) {
		t.Errorf("efaxx plot --data --out-dir SPEC = %d\n%s%s", code, stdout, stderr)
	}
}

// TestPlotLeavesOutNotOK: plot --sweep and --run draw the runs that ended
// ok and name the others, rather than drawing a failed run's samples as a
// line like any other; with none ok, nothing is written.
func TestPlotLeavesOutNotOK(t *testing.T) {
	dir := t.TempDir()
	data, db := filepath.Join(dir, "data"), filepath.Join(dir, "s.db")
	for i, strategy := range []string{"single", "split"} {
		r := &synth.Run{UID: "u" + strategy, Sweep: "a", Ranks: 2, Sizes: []uint64{4096, 1 << 20}, Seed: uint64(i + 1),
			Params: map[string]any{"provider": "shm", "strategy": strategy}}
		if strategy == "split" {
			r.Fail = "rank 1: verification failed"
		}
		if err := r.Write(filepath.Join(data, "a", "s1", strategy)); err != nil {
			t.Fatal(err)
		}
	}
	efaxx(t, "--db", db, "ingest", data) // exit 3: a run failed; both are stored
	svg := filepath.Join(dir, "a.svg")
	code, stdout, stderr := efaxx(t, "--db", db, "plot", "--sweep", "a", "--out", svg)
	if code != 0 || !strings.Contains(stdout, "wrote "+svg+" (1 run)") ||
		!strings.Contains(stdout, "left out: run 2 (failed), which did not end ok") {
		t.Fatalf("efaxx plot --sweep a = %d\n%s%s\nwant run 2 left out and named", code, stdout, stderr)
	}
	b, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "strategy=split") {
		t.Error("the figure draws the failed run's samples")
	}
	failed := filepath.Join(dir, "failed.svg")
	code, _, stderr = efaxx(t, "--db", db, "plot", "--run", "2", "--out", failed)
	if code != 3 || !strings.Contains(stderr, "no run that ended ok: run 2 (failed)") {
		t.Errorf("efaxx plot --run 2 = %d (%s), want 3 naming the failed run", code, stderr)
	}
	if _, err := os.Stat(failed); !os.IsNotExist(err) {
		t.Errorf("failed.svg: %v, want no figure", err)
	}
}
