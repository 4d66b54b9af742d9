package plots

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// legendItem is one entry of a figure's legend band.
type legendItem struct {
	label  string
	thumbs []plot.Thumbnailer
}

// legendFont is the size of legend text, in points.
const legendFont = 8

// legendItems returns the entries of the band under the panels: each
// series label once, in style order, then the boxes and the rules.
func (f *Figure) legendItems() []legendItem {
	if f.Legend != LegendBelow {
		return nil
	}
	var items []legendItem
	seen := map[string]bool{}
	boxes := false
	for _, pd := range f.Panels {
		for _, s := range pd.Series {
			if s.Label != "" && !seen[s.Label] {
				seen[s.Label] = true
				line, glyph := seriesStyle(s.Style)
				items = append(items, legendItem{s.Label, []plot.Thumbnailer{&plotter.Line{LineStyle: line}, &plotter.Scatter{GlyphStyle: glyph}}})
			}
		}
		boxes = boxes || len(pd.Boxes) > 0
	}
	if boxes {
		items = append(items, legendItem{"samples: p25 to p75, median across, whiskers to min and max", []plot.Thumbnailer{newBoxes([]Box{{}})}})
	}
	for _, pd := range f.Panels {
		for i, r := range pd.Rules {
			if !seen["rule "+r.Label] {
				seen["rule "+r.Label] = true
				items = append(items, legendItem{r.Label, []plot.Thumbnailer{&plotter.Line{LineStyle: ruleStyle(i)}}})
			}
		}
	}
	return items
}

// ruleStyle is the style of a panel's i-th rule: grey, dashed.
func ruleStyle(i int) draw.LineStyle {
	return draw.LineStyle{Color: color.Gray{Y: 0x60}, Width: vg.Points(1), Dashes: dashes[(i+1)%len(dashes)]}
}

// legendColumns returns how many columns of width fit the items.
func legendColumns(items []legendItem, width vg.Length) int {
	sty := textStyle(legendFont, color.Black, draw.XLeft, draw.YBottom)
	widest := vg.Length(0)
	for _, it := range items {
		widest = max(widest, sty.Width(it.label))
	}
	for cols := min(4, len(items)); cols > 1; cols-- {
		if widest+vg.Points(40) <= width/vg.Length(cols) {
			return cols
		}
	}
	return 1
}

// legendHeight is the height of the band; 0 without one.
func (f *Figure) legendHeight() vg.Length {
	items := f.legendItems()
	if len(items) == 0 {
		return 0
	}
	cols := legendColumns(items, figureWidth-2*margin)
	rows := (len(items) + cols - 1) / cols
	return vg.Length(rows)*entryHeight() + 2*margin
}

// entryHeight is the height of one legend row.
func entryHeight() vg.Length {
	return textStyle(legendFont, color.Black, draw.XLeft, draw.YBottom).Height("Mg") * 1.35
}

// drawLegend draws the band in c: items in rows, left to right.
func (f *Figure) drawLegend(c draw.Canvas) {
	items := f.legendItems()
	if len(items) == 0 {
		return
	}
	c = draw.Crop(c, margin, -margin, margin, -margin)
	cols := legendColumns(items, c.Size().X)
	colW := c.Size().X / vg.Length(cols)
	for j := range cols {
		l := plot.NewLegend()
		l.TextStyle = textStyle(legendFont, color.Black, draw.XLeft, draw.YBottom)
		l.ThumbnailWidth = vg.Points(22)
		l.Padding = entryHeight() - l.TextStyle.Height("Mg")
		l.Top, l.Left = true, true
		for i := j; i < len(items); i += cols {
			l.Add(items[i].label, items[i].thumbs...)
		}
		col := c
		col.Min.X = c.Min.X + vg.Length(j)*colW
		col.Max.X = col.Min.X + colW
		l.Draw(col)
	}
}
