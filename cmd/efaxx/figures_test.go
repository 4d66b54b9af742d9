package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"efaxx/results/synth"
)

// figureFixture writes synthetic run directories (results/synth, not
// measurements) of sweep "a" under data, and two specs: ok draws them,
// gone draws a sweep that has no runs.
func figureFixture(t *testing.T) (data, specs, out string) {
	t.Helper()
	dir := t.TempDir()
	data, specs, out = filepath.Join(dir, "data"), filepath.Join(dir, "specs"), filepath.Join(dir, "out")
	for i, strategy := range []string{"single", "split"} {
		r := &synth.Run{UID: "u" + strategy, Sweep: "a", Ranks: 4, Sizes: []uint64{4096, 1 << 20}, Seed: uint64(i + 1),
			Params: map[string]any{"provider": "shm", "strategy": strategy}}
		if err := r.Write(filepath.Join(data, "a", "s1", strategy)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(specs, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(specs, "ok.toml"), "name = \"ok\"\ntitle = \"OK\"\nout = \"ok.png\"\ny = \"gbps\"\n"+
		"series = \"strategy\"\nruns.sweep = \"a\"\n")
	writeFile(t, filepath.Join(specs, "gone.toml"), "name = \"gone\"\ntitle = \"Gone\"\nout = \"gone.png\"\ny = \"gbps\"\n"+
		"runs.sweep = \"nope\"\n")
	return data, specs, out
}

func TestFiguresCommand(t *testing.T) {
	data, specs, out := figureFixture(t)
	args := []string{"figures", "--data", data, "--specs", specs, "--out-dir", out}
	code, stdout, stderr := efaxx(t, args...)
	if code != 3 || !strings.Contains(stdout, "wrote "+filepath.Join(out, "ok.png")+" and .svg") ||
		!strings.Contains(stdout, "1 of 2 figures drawn") ||
		!strings.Contains(stderr, "efaxx: not drawn: figure gone ("+filepath.Join(specs, "gone.toml")+"): missing data: no stored run matches sweep nope") {
		t.Fatalf("efaxx figures = %d\n%s%s\nwant 3, ok drawn, gone not drawn for missing data", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "gone.png")); !os.IsNotExist(err) {
		t.Errorf("gone.png: %v, want no file for a figure without data", err)
	}
	first := readAll(t, filepath.Join(out, "ok.png"), filepath.Join(out, "ok.svg"))
	if code, stdout, stderr := efaxx(t, append(args, "--allow-missing")...); code != 0 {
		t.Fatalf("efaxx figures --allow-missing = %d, want 0\n%s%s", code, stdout, stderr)
	}
	if again := readAll(t, filepath.Join(out, "ok.png"), filepath.Join(out, "ok.svg")); !bytes.Equal(first, again) {
		t.Error("drawing the same data twice gave different files")
	}
	if code, _, stderr := efaxx(t, append(args, "nosuch")...); code != 2 || !strings.Contains(stderr, `no figure spec is named "nosuch"`) {
		t.Errorf("efaxx figures nosuch = %d (%s), want 2 naming it", code, stderr)
	}
}

func TestPlotSpec(t *testing.T) {
	data, specs, out := figureFixture(t)
	db := filepath.Join(t.TempDir(), "s.db")
	if code, stdout, stderr := efaxx(t, "--db", db, "ingest", data); code != 0 {
		t.Fatalf("ingest = %d\n%s%s", code, stdout, stderr)
	}
	png := filepath.Join(out, "mine.png")
	code, stdout, stderr := efaxx(t, "--db", db, "plot", "--out", png, filepath.Join(specs, "ok.toml"))
	if code != 0 || !strings.Contains(stdout, "wrote "+png) {
		t.Fatalf("efaxx plot SPEC = %d\n%s%s", code, stdout, stderr)
	}
	readAll(t, png, filepath.Join(out, "mine.svg"))
	if code, _, stderr := efaxx(t, "--db", db, "plot", "--run", "1", filepath.Join(specs, "ok.toml")); code != 2 {
		t.Errorf("efaxx plot --run 1 SPEC = %d (%s), want 2", code, stderr)
	}
	bad := writeFile(t, filepath.Join(t.TempDir(), "bad.toml"), "name = \"bad\"\ntitle = \"B\"\nout = \"b.png\"\ny = \"gbpz\"\nruns.ids = [1]\n")
	code, _, stderr = efaxx(t, "--db", db, "plot", bad)
	if code != 3 || !strings.Contains(stderr, bad+":4: y: invalid value: metric \"gbpz\": unknown metric") {
		t.Errorf("efaxx plot BAD = %d (%s), want 3 and file:line: key: message", code, stderr)
	}
}

// readAll returns the files' bytes joined, failing when one is missing or
// empty.
func readAll(t *testing.T, paths ...string) []byte {
	t.Helper()
	var all []byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil || len(b) == 0 {
			t.Fatalf("%s: %v (%d bytes)", p, err, len(b))
		}
		all = append(all, b...)
	}
	return all
}

// TestFiguresSpecsMissing: --specs naming no directory says so, rather
// than that the directory holds no *.toml files.
func TestFiguresSpecsMissing(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, filepath.Join(dir, "f.toml"), "")
	for path, want := range map[string]string{filepath.Join(dir, "nope"): "does not exist", file: "is not a directory"} {
		code, _, stderr := efaxx(t, "figures", "--specs", path)
		if code != 3 || !strings.Contains(stderr, fmt.Sprintf("%q %s", path, want)) || strings.Contains(stderr, "no *.toml files") {
			t.Errorf("efaxx figures --specs %s = %d (%s), want 3 saying it %s", path, code, stderr, want)
		}
	}
}

// TestFiguresSameOut: two specs whose figures would go to one file (one
// file name under --out-dir) are refused before anything is drawn,
// rather than the second replacing the first with both reported written.
func TestFiguresSameOut(t *testing.T) {
	data, specs, out := figureFixture(t)
	writeFile(t, filepath.Join(specs, "gone.toml"), "name = \"other\"\ntitle = \"Other\"\nout = \"elsewhere/ok.png\"\ny = \"gbps\"\n"+
		"runs.sweep = \"a\"\n")
	code, stdout, stderr := efaxx(t, "figures", "--data", data, "--specs", specs, "--out-dir", out)
	if code != 3 || !strings.Contains(stderr, "would both be written to "+filepath.Join(out, "ok.png")) {
		t.Errorf("efaxx figures of two specs writing ok.png = %d\n%s%s\nwant 3 naming the file", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "ok.png")); !os.IsNotExist(err) {
		t.Errorf("ok.png: %v, want nothing drawn", err)
	}
}
