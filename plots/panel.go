package plots

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// plot makes the gonum plot of one panel in a row of columns; legend says
// whether it shows a legend, at pos.
func (pd *PanelData) plot(pos string, legend bool, columns int) (*plot.Plot, error) {
	if pd.Heat != nil {
		return pd.heatPlot(columns)
	}
	p := plot.New()
	styleAxes(p)
	p.Title.Text = pd.Title
	p.X.Label.Text, p.Y.Label.Text = pd.XLabel, pd.YLabel
	if pd.Footnote != "" {
		p.X.Label.Text += "\n" + strings.Join(wrap(pd.Footnote, 150/columns), "\n")
	}
	if err := pd.checkLog(); err != nil {
		return nil, err
	}
	tx, ty := axisOf(pd.XScale, columns), axisOf(pd.YScale, columns)
	p.X.Tick.Marker, p.Y.Tick.Marker = tx.ticks, ty.ticks
	if len(pd.XTicks) > 0 {
		p.X.Tick.Marker = valueTicks(pd.XTicks, tx)
	}
	p.Add(plotter.NewGrid())
	if len(pd.Boxes) > 0 {
		p.Add(newBoxes(mapBoxes(pd.Boxes, tx, ty)))
	}
	for _, s := range pd.Series {
		if err := addSeries(p, mapSeries(s, tx, ty), legend); err != nil {
			return nil, fmt.Errorf("series %q: %w", s.Label, err)
		}
	}
	if err := addNotes(p, mapNotes(pd.Notes, tx, ty)); err != nil {
		return nil, err
	}
	addRules(p, mapRules(pd.Rules, ty), legend)
	if pd.YScale == ScaleLinear && p.Y.Min >= 0 {
		p.Y.Min = 0 // rates and times start at zero, so that ratios read true
	}
	placeLegend(p, pos)
	return p, nil
}

// styleAxes sets the fonts of a panel: smaller than gonum's defaults, so
// that two panels fit side by side at README width.
func styleAxes(p *plot.Plot) {
	p.Title.TextStyle.Font.Size = vg.Points(11)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font.Size = vg.Points(9)
		a.Tick.Label.Font.Size = vg.Points(8)
	}
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	p.Legend.ThumbnailWidth = vg.Points(22)
	p.Legend.Padding = vg.Points(1)
}

// addSeries adds a line with markers, and its interval bars when its
// points have them.
func addSeries(p *plot.Plot, s SeriesData, legend bool) error {
	xys := make(plotter.XYs, len(s.Points))
	for i, pt := range s.Points {
		xys[i] = plotter.XY{X: pt.X, Y: pt.Y}
	}
	line, points, err := plotter.NewLinePoints(xys)
	if err != nil {
		return err
	}
	line.LineStyle, points.GlyphStyle = seriesStyle(s.Style)
	p.Add(line, points)
	if bars := intervals(s.Points); bars != nil {
		eb, err := plotter.NewYErrorBars(bars)
		if err != nil {
			return err
		}
		eb.LineStyle = line.LineStyle
		eb.LineStyle.Dashes = nil
		p.Add(eb)
	}
	if legend && s.Label != "" {
		p.Legend.Add(s.Label, line, points)
	}
	return nil
}

// errorPoints are points with intervals, as plotter.YErrorBars reads them.
type errorPoints []Point

// Len implements plotter.XYer.
func (e errorPoints) Len() int { return len(e) }

// XY implements plotter.XYer.
func (e errorPoints) XY(i int) (x, y float64) { return e[i].X, e[i].Y }

// YError implements plotter.YErrorer: the distances down to Lo and up to Hi.
func (e errorPoints) YError(i int) (lo, hi float64) { return e[i].Y - *e[i].Lo, *e[i].Hi - e[i].Y }

// intervals returns the points that have intervals, or nil.
func intervals(pts []Point) errorPoints {
	var out errorPoints
	for _, pt := range pts {
		if pt.Lo != nil && pt.Hi != nil {
			out = append(out, pt)
		}
	}
	return out
}

// addNotes writes each note beside its point.
func addNotes(p *plot.Plot, notes []Note) error {
	if len(notes) == 0 {
		return nil
	}
	xyl := plotter.XYLabels{XYs: make(plotter.XYs, len(notes)), Labels: make([]string, len(notes))}
	for i, n := range notes {
		xyl.XYs[i] = plotter.XY{X: n.X, Y: n.Y}
		xyl.Labels[i] = n.Text
	}
	labels, err := plotter.NewLabels(xyl)
	if err != nil {
		return err
	}
	for i := range labels.TextStyle {
		labels.TextStyle[i].Font.Size = vg.Points(7)
		labels.TextStyle[i].Color = palette[3]
		labels.TextStyle[i].YAlign = draw.YTop
	}
	labels.Offset = vg.Point{X: vg.Points(8), Y: vg.Points(-2)}
	p.Add(labels)
	return nil
}

// addRules draws each rule across the panel, grey and dashed.
func addRules(p *plot.Plot, rules []Rule, legend bool) {
	for i, r := range rules {
		y := r.Y
		f := plotter.NewFunction(func(float64) float64 { return y })
		f.LineStyle = ruleStyle(i)
		p.Add(f)
		if legend {
			p.Legend.Add(r.Label, f)
		}
		p.Y.Min, p.Y.Max = math.Min(p.Y.Min, y), math.Max(p.Y.Max, y)
	}
}

// placeLegend puts the legend in a corner.
func placeLegend(p *plot.Plot, pos string) {
	p.Legend.Top = pos == LegendTopLeft || pos == LegendTopRight
	p.Legend.Left = pos == LegendTopLeft || pos == LegendBottomLeft
	p.Legend.XOffs, p.Legend.YOffs = vg.Points(4), vg.Points(-4)
	if !p.Legend.Left {
		p.Legend.XOffs = -vg.Points(4)
	}
	if !p.Legend.Top {
		p.Legend.YOffs = vg.Points(4)
	}
}

// checkLog fails where a log axis would have to place a value of 0 or
// less, naming it: its logarithm is no point ("infinite data point", as
// gonum says, names neither the value nor the axis).
func (pd *PanelData) checkLog() error {
	bad := func(scale string, v float64) bool { return scale != ScaleLinear && !(v > 0) }
	for _, s := range pd.Series {
		for _, pt := range s.Points {
			switch {
			case bad(pd.XScale, pt.X):
				return fmt.Errorf("series %q: x = %g on a %s axis, which places only values above 0", s.Label, pt.X, pd.XScale)
			case bad(pd.YScale, pt.Y):
				return fmt.Errorf("series %q: y = %g at x = %g on a %s axis, which places only values above 0", s.Label, pt.Y, pt.X, pd.YScale)
			case pt.Lo != nil && bad(pd.YScale, *pt.Lo):
				return fmt.Errorf("series %q: interval down to %g at x = %g on a %s axis, which places only values above 0", s.Label, *pt.Lo, pt.X, pd.YScale)
			}
		}
	}
	for _, b := range pd.Boxes {
		if bad(pd.XScale, b.X) || bad(pd.YScale, b.Min) {
			return fmt.Errorf("box at x = %g down to %g on a %s y axis and %s x axis, which place only values above 0", b.X, b.Min, pd.YScale, pd.XScale)
		}
	}
	return nil
}
