package plots_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"efaxx/plots"
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
				checkSVG(t, fig)
			}
			got, err := json.MarshalIndent(g, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			compareGolden(t, filepath.Join("testdata", "figures", s.Name+".golden.json"), append(got, '\n'))
		})
	}
}

// checkSVG draws fig twice as SVG: the bytes must be the same, and hold
// the title.
func checkSVG(t *testing.T, fig *plots.Figure) {
	t.Helper()
	var out [2][]byte
	for i := range out {
		w, h := fig.Size()
		c := vgsvg.New(w, h)
		if err := fig.Draw(draw.New(c)); err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if _, err := c.WriteTo(&b); err != nil {
			t.Fatal(err)
		}
		out[i] = b.Bytes()
	}
	if !bytes.Equal(out[0], out[1]) {
		t.Error("two drawings of the same figure differ")
	}
	if !bytes.Contains(out[0], []byte(">"+fig.Title[:20])) {
		t.Errorf("the SVG lacks the title %q", fig.Title)
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
