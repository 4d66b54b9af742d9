package plots_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"efaxx/plots"
)

// sampleFigure is a figure of every element the renderer draws: lines
// with markers and intervals on a log2 size axis, rules, a log10 axis, a
// parameter on x, boxes with notes and a footnote, the legend band and a
// caption. Its numbers are made up for the drawing test.
func sampleFigure() *plots.Figure {
	lo, hi := 0.7, 0.9
	return &plots.Figure{Name: "sample", Title: "Sample figure: made-up numbers", Columns: 2, Legend: plots.LegendBelow,
		Caption: []string{"Measured on host test, no GPU, shm: runs 1-3, 2026-11-22"},
		Panels: []plots.PanelData{{
			Title: "lines", XLabel: "message size (bytes)", YLabel: "Gbps", XScale: plots.ScaleLog2, YScale: plots.ScaleLinear,
			Series: []plots.SeriesData{
				{Key: "a", Label: "single", Style: 0, Points: []plots.Point{{X: 4096, Y: 1}, {X: 1 << 20, Y: 8}, {X: 1 << 26, Y: 9.5}}},
				{Key: "b", Label: "split", Style: 1, Points: []plots.Point{{X: 4096, Y: 0.8, Lo: &lo, Hi: &hi}, {X: 1 << 26, Y: 30}}},
			},
			Rules: []plots.Rule{{Y: 1, Label: "same"}},
		}, {
			Title: "log y, hosts on x", XLabel: "hosts", YLabel: "us", XScale: plots.ScaleLinear, YScale: plots.ScaleLog10,
			XTicks: []float64{2, 3, 4},
			Series: []plots.SeriesData{{Key: "a", Label: "single", Style: 0, Points: []plots.Point{{X: 2, Y: 3}, {X: 3, Y: 40}, {X: 4, Y: 700}}}},
		}, {
			Title: "boxes", XLabel: "message size (bytes)", YLabel: "Gbps", XScale: plots.ScaleLog2, YScale: plots.ScaleLinear,
			Boxes:    []plots.Box{{X: 4096, Samples: 4, Min: 1, P25: 2, Median: 3, P75: 4, Max: 5}, {X: 65536, Samples: 4, Min: 0.5, P25: 3, Median: 3.5, P75: 4, Max: 4.5}},
			Notes:    []plots.Note{{X: 65536, Y: 0.5, Text: "rank 3 (h4)"}},
			Footnote: "slowest (typical speed / median): ranks 3 (h4) 0.50x",
		}}}
}

// TestDrawGolden draws sampleFigure as SVG and compares the bytes with
// testdata/sample.golden.svg: a change in how figures look shows as a
// diff of that file (go test ./plots -update rewrites it).
func TestDrawGolden(t *testing.T) {
	f := sampleFigure()
	w, h := f.Size()
	c := vgsvg.New(w, h)
	if err := f.Draw(draw.New(c)); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	compareGolden(t, filepath.Join("testdata", "sample.golden.svg"), b.Bytes())
}

// TestSave writes the PNG and the SVG beside it, twice: the same bytes.
func TestSave(t *testing.T) {
	dir := t.TempDir()
	var first [2][]byte
	for i := range 2 {
		png := filepath.Join(dir, "out", "sample.png")
		if err := sampleFigure().Save(png); err != nil {
			t.Fatal(err)
		}
		for j, p := range []string{png, filepath.Join(dir, "out", "sample.svg")} {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				first[j] = b
			} else if !bytes.Equal(b, first[j]) {
				t.Errorf("%s differs between two saves of the same figure", p)
			}
		}
	}
	if !bytes.HasPrefix(first[0], []byte("\x89PNG")) || !bytes.HasPrefix(first[1], []byte("<?xml")) {
		t.Error("Save did not write a PNG and an SVG")
	}
}

// TestDrawRefusesBadData: a non-positive value on a log axis is an error,
// not a picture with a hole.
func TestDrawRefusesBadData(t *testing.T) {
	f := sampleFigure()
	f.Panels[1].Series[0].Points[0].Y = 0
	err := f.Save(filepath.Join(t.TempDir(), "bad.png"))
	if err == nil || !strings.Contains(err.Error(), `series "single": y = 0 at x = 2 on a log10 axis, which places only values above 0`) {
		t.Errorf("Save(0 on a log axis) = %v, want an error naming the value and the axis", err)
	}
}
