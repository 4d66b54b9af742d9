package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
