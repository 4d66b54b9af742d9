package plots_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
		b, err := baselines.Parse(name+".toml", text)
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
