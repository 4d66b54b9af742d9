package plots

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// boxes draws Boxes from their quantiles, as the store aggregates them:
// gonum's BoxPlot computes quantiles from every value, which a figure of
// thousands of ranks must not load. Each box spans p25 to p75 with a line
// at the median; whiskers reach the extremes.
type boxes struct {
	data  []Box
	width vg.Length
	line  draw.LineStyle
	fill  color.Color
}

var (
	_ plot.Plotter    = (*boxes)(nil)
	_ plot.DataRanger = (*boxes)(nil)
	_ plot.GlyphBoxer = (*boxes)(nil)
)

// newBoxes returns a plotter of bs in the style of series 0.
func newBoxes(bs []Box) *boxes {
	line, _ := seriesStyle(0)
	line.Dashes = nil
	return &boxes{data: bs, width: vg.Points(12), line: line, fill: color.RGBA{0xd6, 0xe6, 0xf2, 0xff}}
}

// Plot implements plot.Plotter.
func (b *boxes) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	half := b.width / 2
	for _, bx := range b.data {
		x := trX(bx.X)
		lo, q1, med, q3, hi := trY(bx.Min), trY(bx.P25), trY(bx.Median), trY(bx.P75), trY(bx.Max)
		rect := vg.Rectangle{Min: vg.Point{X: x - half, Y: q1}, Max: vg.Point{X: x + half, Y: q3}}
		c.SetColor(b.fill)
		c.Fill(rect.Path())
		c.StrokeLines(b.line, []vg.Point{{X: x - half, Y: q1}, {X: x + half, Y: q1}, {X: x + half, Y: q3},
			{X: x - half, Y: q3}, {X: x - half, Y: q1}})
		c.StrokeLine2(b.line, x-half, med, x+half, med)
		c.StrokeLine2(b.line, x, q3, x, hi)
		c.StrokeLine2(b.line, x, q1, x, lo)
		c.StrokeLine2(b.line, x-half/2, hi, x+half/2, hi)
		c.StrokeLine2(b.line, x-half/2, lo, x+half/2, lo)
	}
}

// DataRange implements plot.DataRanger.
func (b *boxes) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin = b.data[0].X, b.data[0].Min
	xmax, ymax = xmin, b.data[0].Max
	for _, bx := range b.data {
		xmin, xmax = min(xmin, bx.X), max(xmax, bx.X)
		ymin, ymax = min(ymin, bx.Min), max(ymax, bx.Max)
	}
	return xmin, xmax, ymin, ymax
}

// GlyphBoxes implements plot.GlyphBoxer, so that the axes leave room for
// the boxes' width at the ends.
func (b *boxes) GlyphBoxes(plt *plot.Plot) []plot.GlyphBox {
	out := make([]plot.GlyphBox, len(b.data))
	for i, bx := range b.data {
		out[i].X = plt.X.Norm(bx.X)
		out[i].Y = plt.Y.Norm(bx.Median)
		out[i].Rectangle = vg.Rectangle{Min: vg.Point{X: -b.width / 2}, Max: vg.Point{X: b.width / 2}}
	}
	return out
}

// Thumbnail implements plot.Thumbnailer, for a legend entry.
func (b *boxes) Thumbnail(c *draw.Canvas) {
	r := c.Rectangle
	c.SetColor(b.fill)
	c.Fill(r.Path())
	c.StrokeLines(b.line, []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}, r.Min})
}
