package plots_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"efaxx/harness"
	"efaxx/plots"
	"efaxx/results"
	"efaxx/results/baselines"
)

// Use go test ./plots -update to rewrite the golden files under testdata.
var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// golden is what a golden file of a spec holds: the numbers and labels
// the figure draws, or the error that stops it.
type golden struct {
	Figure *plots.Figure `json:"figure,omitempty"`
	Error  string        `json:"error,omitempty"`
}

// TestFiguresGolden builds every shipped figure from the committed data
// (plots/data) and compares what it would draw with
// testdata/figures/NAME.golden.json: a figure whose data is missing has
// its error there instead.
func TestFiguresGolden(t *testing.T) {
	db, err := plots.OpenData(t.Context(), "data", filepath.Join(t.TempDir(), "figures.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	importBaselines(t, db)
	specs, err := plots.LoadSpecs("figures")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range specs {
		t.Run(s.Name, func(t *testing.T) {
			fig, err := plots.Build(t.Context(), db, s)
			var g golden
			if err != nil {
				if !errors.Is(err, plots.ErrMissingData) {
					t.Fatalf("Build: %v", err)
				}
				g.Error = err.Error()
			} else {
				g.Figure = fig
				checkCommitted(t, s, fig)
			}
			got, err := json.MarshalIndent(g, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			compareGolden(t, filepath.Join("testdata", "figures", s.Name+".golden.json"), append(got, '\n'))
		})
	}
}

// importBaselines stores the shipped baselines in db, as efaxx figures
// --data does: the published figures draw them.
func importBaselines(t *testing.T, db *results.DB) {
	t.Helper()
	for _, name := range baselines.Names() {
		text, _ := baselines.Lookup(name)
		b, err := harness.ParseBaseline(name+".toml", text)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.ImportBaseline(t.Context(), b); err != nil {
			t.Fatal(err)
		}
	}
}

// checkCommitted draws fig as `make figures` does and compares the PNG and
// the SVG with the files committed at the spec's out path: the README's
// figures are what the specs draw from plots/data today.
func checkCommitted(t *testing.T, s *plots.Spec, fig *plots.Figure) {
	t.Helper()
	png := filepath.Join(t.TempDir(), filepath.Base(s.Out))
	if err := fig.Save(png); err != nil {
		t.Fatal(err)
	}
	svg := strings.TrimSuffix(png, ".png") + ".svg"
	for drawn, committed := range map[string]string{png: filepath.Join("..", s.Out), svg: filepath.Join("..", s.SVG())} {
		got, err := os.ReadFile(drawn)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(committed)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s is not what %s draws from plots/data now (%v): run make figures and commit docs/img", committed, s.File, err)
		}
	}
}

// compareGolden compares got with the file at path, or writes it there
// under -update.
func compareGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./plots -update to write it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from what the figure draws now (go test ./plots -update rewrites it; review the diff):\n%s",
			path, firstDiff(got, want))
	}
}

// firstDiff shows the first line where got and want differ.
func firstDiff(got, want []byte) string {
	g, w := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := range max(len(g), len(w)) {
		var a, b []byte
		if i < len(g) {
			a = g[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if !bytes.Equal(a, b) {
			return "line " + itoa(i+1) + ":\n  got:  " + string(a) + "\n  want: " + string(b)
		}
	}
	return ""
}

// itoa formats n.
func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// TestProxyQueueOnceDataExists: proxy_queue, whose data the committed
// runs lack, is drawn as soon as proxy runs set cells. The runs here are
// the committed gpu-proxy runs copied twice with cells = pinned and
// managed written into their manifests: relabelled, not measured.
func TestProxyQueueOnceDataExists(t *testing.T) {
	src, err := filepath.Glob(filepath.Join("data", "h200x2", "gpu-proxy", "*", "0*"))
	if err != nil || len(src) != 4 {
		t.Fatalf("gpu-proxy runs: %v %v", src, err)
	}
	data := filepath.Join(t.TempDir(), "data")
	for _, cells := range []string{"pinned", "managed"} {
		for _, run := range src {
			relabel(t, run, filepath.Join(data, "session", cells+"-"+filepath.Base(run)), cells)
		}
	}
	db, err := plots.OpenData(t.Context(), data, filepath.Join(t.TempDir(), "f.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	spec, err := plots.LoadSpec(filepath.Join("figures", "proxy_queue.toml"))
	if err != nil {
		t.Fatal(err)
	}
	fig, err := plots.Build(t.Context(), db, spec)
	if err != nil {
		t.Fatalf("Build(proxy_queue) with cells = %v", err)
	}
	for _, p := range fig.Panels {
		if len(p.Series) != 2 || p.Series[0].Label != "pinned host cells" || len(p.Series[1].Points) != 7 {
			t.Errorf("panel %q: series %+v, want pinned and managed at 7 sizes", p.Title, p.Series)
		}
	}
}

// relabel copies run directory src to dst with cells set in its manifest,
// and a uid and point of its own.
func relabel(t *testing.T, src, dst, cells string) {
	t.Helper()
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(src, "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Base(f) == "run.json" {
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			m["params"].(map[string]any)["cells"] = cells
			m["uid"], m["point"] = fmt.Sprint(m["uid"], "-", cells), fmt.Sprint(m["point"], "-", cells)
			if b, err = json.Marshal(m); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dst, filepath.Base(f)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPublishedNeedsBaseline: a published figure on a store without its
// baseline is not drawn, and the error says how to import it.
func TestPublishedNeedsBaseline(t *testing.T) {
	db, err := results.Open(t.Context(), filepath.Join(t.TempDir(), "f.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, err := plots.LoadSpec("figures/study_nccl.toml")
	if err != nil {
		t.Fatal(err)
	}
	_, err = plots.Build(t.Context(), db, s)
	if !errors.Is(err, plots.ErrMissingData) || !strings.Contains(err.Error(), "efaxx import baseline aws-gpu-comm-p5") {
		t.Errorf("Build = %v, want missing data naming the import", err)
	}
}
