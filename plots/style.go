package plots

import (
	"image/color"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// palette is Okabe and Ito's colour-blind safe set, ordered so that
// neighbours also differ in lightness; markers and dashes tell the lines
// apart in greyscale too.
var palette = []color.Color{
	color.RGBA{0x00, 0x72, 0xb2, 0xff}, // blue
	color.RGBA{0xe6, 0x9f, 0x00, 0xff}, // orange
	color.RGBA{0x00, 0x9e, 0x73, 0xff}, // green
	color.RGBA{0xd5, 0x5e, 0x00, 0xff}, // vermillion
	color.RGBA{0x56, 0xb4, 0xe9, 0xff}, // sky blue
	color.RGBA{0xcc, 0x79, 0xa7, 0xff}, // reddish purple
	color.RGBA{0x00, 0x00, 0x00, 0xff}, // black
	color.RGBA{0xf0, 0xe4, 0x42, 0xff}, // yellow
}

var markers = []draw.GlyphDrawer{
	draw.CircleGlyph{}, draw.TriangleGlyph{}, draw.BoxGlyph{}, draw.CrossGlyph{},
	draw.RingGlyph{}, draw.PyramidGlyph{}, draw.SquareGlyph{}, draw.PlusGlyph{},
}

var dashes = [][]vg.Length{nil, {vg.Points(6), vg.Points(3)}, {vg.Points(2), vg.Points(2)}, {vg.Points(8), vg.Points(3), vg.Points(2), vg.Points(3)}}

// seriesStyle returns the line and glyph style of the i-th series.
func seriesStyle(i int) (draw.LineStyle, draw.GlyphStyle) {
	c := palette[i%len(palette)]
	line := draw.LineStyle{Color: c, Width: vg.Points(1.5), Dashes: dashes[(i/len(palette)+i)%len(dashes)]}
	glyph := draw.GlyphStyle{Color: c, Radius: vg.Points(2.5), Shape: markers[i%len(markers)]}
	return line, glyph
}
