package plots

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"efaxx/atomicfile"
)

// Geometry of a figure: README width, a panel's height, PNG resolution.
const (
	figureWidth = 8 * vg.Inch
	panelHeight = 3.4 * vg.Inch // in a row of several panels
	soloHeight  = 4.6 * vg.Inch // a figure of one panel
	pngDPI      = 150           // 1200 px across: sharp on a README at any zoom
	margin      = 6             // points around the title and the caption
)

// Size returns the figure's width and height.
func (f *Figure) Size() (w, h vg.Length) {
	rows := (len(f.Panels) + f.Columns - 1) / f.Columns
	ph := panelHeight
	if len(f.Panels) == 1 {
		ph = soloHeight
	}
	return figureWidth, vg.Length(rows)*ph + f.titleHeight() + f.legendHeight() + f.captionHeight()
}

// Save writes f as a PNG at path and as an SVG beside it.
func (f *Figure) Save(path string) error {
	w, h := f.Size()
	png := vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(pngDPI))}
	if err := f.write(path, png); err != nil {
		return err
	}
	return f.write(strings.TrimSuffix(path, filepath.Ext(path))+".svg", vgsvg.New(w, h))
}

// write draws f on c and writes it to path, whole: nothing is written
// when drawing or writing fails.
func (f *Figure) write(path string, c vg.CanvasWriterTo) error {
	if err := f.Draw(draw.New(c)); err != nil {
		return fmt.Errorf("draw figure %q: %w", path, err)
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return fmt.Errorf("draw figure %q: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write figure %q: %w", path, err)
	}
	if err := atomicfile.Write(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("figure: %w", err)
	}
	return nil
}

// Draw draws f on c: the title, the panels aligned in a grid, the caption.
func (f *Figure) Draw(c draw.Canvas) error {
	grid, err := f.plots()
	if err != nil {
		return err
	}
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
	title := textStyle(13, color.Black, draw.XCenter, draw.YTop)
	c.FillText(title, vg.Point{X: c.Center().X, Y: c.Max.Y - margin}, f.Title)
	capStyle := textStyle(8, color.Gray{Y: 0x40}, draw.XLeft, draw.YBottom)
	lineH := capStyle.Height("Mg")
	for i, line := range f.Caption {
		y := c.Min.Y + margin + vg.Length(len(f.Caption)-1-i)*lineH
		c.FillText(capStyle, vg.Point{X: c.Min.X + margin, Y: y}, line)
	}
	below := f.captionHeight() + f.legendHeight()
	band := c
	band.Min.Y, band.Max.Y = c.Min.Y+f.captionHeight(), c.Min.Y+below
	f.drawLegend(band)
	area := draw.Crop(c, 0, 0, below, -f.titleHeight())
	tiles := draw.Tiles{Rows: len(grid), Cols: f.Columns, PadX: vg.Points(14), PadY: vg.Points(12),
		PadLeft: margin, PadRight: vg.Points(12)}
	canvases := plot.Align(grid, tiles, area)
	for j, row := range grid {
		for i, p := range row {
			if p != nil {
				p.Draw(canvases[j][i])
			}
		}
	}
	return nil
}

// plots returns the panels as gonum plots in rows of f.Columns, nil where
// a row has no panel left. A panel shows its legend only when it has a
// label that no panel before it showed.
func (f *Figure) plots() ([][]*plot.Plot, error) {
	shown := map[string]bool{}
	var grid [][]*plot.Plot
	for i, pd := range f.Panels {
		legend := f.Legend != LegendNone && f.Legend != LegendBelow && hasNewLabel(pd, shown)
		p, err := pd.plot(f.Legend, legend, f.Columns)
		if err != nil {
			return nil, fmt.Errorf("panel %d %q: %w", i+1, pd.Title, err)
		}
		if i%f.Columns == 0 {
			grid = append(grid, make([]*plot.Plot, f.Columns))
		}
		grid[len(grid)-1][i%f.Columns] = p
	}
	if f.ShareY {
		shareY(grid)
	}
	return grid, nil
}

// shareY gives every plot of grid the union of their y ranges.
func shareY(grid [][]*plot.Plot) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, row := range grid {
		for _, p := range row {
			if p != nil {
				lo, hi = math.Min(lo, p.Y.Min), math.Max(hi, p.Y.Max)
			}
		}
	}
	for _, row := range grid {
		for _, p := range row {
			if p != nil {
				p.Y.Min, p.Y.Max = lo, hi
			}
		}
	}
}

// hasNewLabel reports whether pd has a series label not in shown, and
// adds its labels to shown when it does.
func hasNewLabel(pd PanelData, shown map[string]bool) bool {
	fresh := false
	for _, s := range pd.Series {
		if s.Label != "" && !shown[s.Label] {
			fresh = true
		}
	}
	if fresh {
		for _, s := range pd.Series {
			shown[s.Label] = true
		}
	}
	return fresh
}

// titleHeight is the band above the panels.
func (f *Figure) titleHeight() vg.Length {
	return textStyle(13, color.Black, draw.XCenter, draw.YTop).Height(f.Title) + 2*margin
}

// captionHeight is the band under the panels.
func (f *Figure) captionHeight() vg.Length {
	return vg.Length(len(f.Caption))*textStyle(8, color.Black, draw.XLeft, draw.YBottom).Height("Mg") + 2*margin
}

// textStyle returns a style of the default font at size points.
func textStyle(size float64, c color.Color, x draw.XAlignment, y draw.YAlignment) text.Style {
	return text.Style{Color: c, Font: font.From(plot.DefaultFont, vg.Points(size)), XAlign: x, YAlign: y,
		Handler: plot.DefaultTextHandler}
}
