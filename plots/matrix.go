package plots

import (
	"context"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"efaxx/results"
)

// HeatMap is a matrix panel's cells: Values[row][column] in the panel's
// metric, nil where nothing was measured (a GPU with itself); Weakest is
// the row and column of the worst cell; Min and Max are the ends of the
// colour scale (the panel's own, or every panel's under share_y).
type HeatMap struct {
	Size    uint64       `json:"size"`
	Values  [][]*float64 `json:"values"`
	Weakest [2]int       `json:"weakest"`
	Min     float64      `json:"min"`
	Max     float64      `json:"max"`
}

// matrix reads a panel of one variant's pairs of ranks (a node's GPUs):
// per ordered pair, the stat of y over the selected runs' samples at one
// size (the panel's, or the largest they measured the variant at). A row
// is the sample's rank, the GPU that moved the data, its column the peer;
// transposed, a row is the peer. The weakest pair is named under the axis.
func matrix(ctx context.Context, db *results.DB, p *Panel) (*PanelData, error) {
	runs, err := selectRuns(ctx, db, p.Runs)
	if err != nil {
		return nil, err
	}
	m, err := results.LookupMetric(p.Y)
	if err != nil {
		return nil, err
	}
	rows, err := db.Series(ctx, results.SeriesQuery{Runs: runIDs(runs), Metric: m, X: results.XSize, Sizes: p.Sizes,
		Dims: []string{results.DimVariant, results.DimRank, results.DimPeer}})
	if err != nil {
		return nil, err
	}
	cells, variants, size := pairCells(p, rows)
	if len(cells) == 0 {
		return nil, missing("runs %s (%s) have no samples of variant %q between two ranks%s; their variants: %s",
			idRanges(runIDs(runs)), p.Runs, p.Variant, sizesText(p.Sizes), quoteAll(variants))
	}
	h := heatOf(cells, size, m.Lower)
	pd := &PanelData{XLabel: orDefault(p.XLabel, "destination GPU"), YLabel: orDefault(p.YLabel, "source GPU"),
		XScale: ScaleLinear, YScale: ScaleLinear, Heat: h, runs: runs}
	unit := m.Unit
	if strings.HasPrefix(m.Name, results.ToolMetricPrefix) { // a tool metric's Unit is its name; the unit is stored with the values
		units, err := db.ToolUnits(ctx, runIDs(runs), strings.TrimPrefix(m.Name, results.ToolMetricPrefix))
		switch {
		case err != nil:
			return nil, err
		case len(units) > 1:
			return nil, fmt.Errorf("runs %s (%s): their tools printed %s in %q and %q: one colour scale has one unit",
				idRanges(runIDs(runs)), p.Runs, m.Unit, units[0], units[1])
		case len(units) == 1:
			unit = units[0]
		}
	}
	pd.Footnote = weakestNote(h, unit)
	return pd, nil
}

// pairCell is one ordered pair's value: row, column, value.
type pairCell struct {
	row, col int
	v        float64
}

// pairCells keeps the rows of p's variant between two distinct ranks at
// one size (p's, or the largest there is), as cells; it returns the
// variants there are too, for a message.
func pairCells(p *Panel, rows []results.SeriesRow) ([]pairCell, []string, uint64) {
	var variants []string
	var kept []results.SeriesRow
	size := 0.0
	for _, r := range rows {
		if !slices.Contains(variants, r.Keys[0]) {
			variants = append(variants, r.Keys[0])
		}
		rank, err1 := strconv.Atoi(r.Keys[1])
		peer, err2 := strconv.Atoi(r.Keys[2])
		if r.Keys[0] != p.Variant || err1 != nil || err2 != nil || rank < 0 || peer < 0 || rank == peer {
			continue
		}
		kept = append(kept, r)
		size = math.Max(size, r.X)
	}
	var cells []pairCell
	for _, r := range kept {
		if r.X != size {
			continue
		}
		rank, _ := strconv.Atoi(r.Keys[1])
		peer, _ := strconv.Atoi(r.Keys[2])
		c := pairCell{rank, peer, p.stat(r)}
		if p.Transpose {
			c.row, c.col = peer, rank
		}
		cells = append(cells, c)
	}
	return cells, variants, uint64(size)
}

// heatOf lays cells out as a square matrix over every rank they name and
// finds the worst cell: the lowest, or the highest of a metric where lower
// is better.
func heatOf(cells []pairCell, size uint64, lower bool) *HeatMap {
	n := 0
	for _, c := range cells {
		n = max(n, c.row+1, c.col+1)
	}
	h := &HeatMap{Size: size, Values: make([][]*float64, n), Min: math.Inf(1), Max: math.Inf(-1)}
	for i := range h.Values {
		h.Values[i] = make([]*float64, n)
	}
	slices.SortFunc(cells, func(a, b pairCell) int { return (a.row*n + a.col) - (b.row*n + b.col) })
	worst := cells[0] // of equals, the first in row order
	for _, c := range cells {
		v := c.v
		h.Values[c.row][c.col] = &v
		h.Min, h.Max = math.Min(h.Min, v), math.Max(h.Max, v)
		if (!lower && c.v < worst.v) || (lower && c.v > worst.v) {
			worst = c
		}
	}
	h.Weakest = [2]int{worst.row, worst.col}
	return h
}

// weakestNote names the weakest pair against the median pair, in unit.
func weakestNote(h *HeatMap, unit string) string {
	var vals []float64
	for _, row := range h.Values {
		for _, v := range row {
			if v != nil {
				vals = append(vals, *v)
			}
		}
	}
	slices.Sort(vals)
	median := vals[len(vals)/2]
	if len(vals)%2 == 0 {
		median = (vals[len(vals)/2-1] + vals[len(vals)/2]) / 2
	}
	w := *h.Values[h.Weakest[0]][h.Weakest[1]]
	return fmt.Sprintf("weakest (boxed) %d -> %d: %.1f %s, %.2f of the median pair (%.1f); %d pairs, %s",
		h.Weakest[0], h.Weakest[1], w, unit, w/median, median, len(vals), SizeLabel(h.Size))
}

// shareHeat gives every matrix panel of f one colour scale, so that a
// colour reads the same in each.
func shareHeat(f *Figure) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, pd := range f.Panels {
		if pd.Heat != nil {
			lo, hi = math.Min(lo, pd.Heat.Min), math.Max(hi, pd.Heat.Max)
		}
	}
	for i := range f.Panels {
		if h := f.Panels[i].Heat; h != nil {
			h.Min, h.Max = lo, hi
		}
	}
}

// heatGrid is a HeatMap as plotter.GridXYZ reads it: row 0 at the top.
type heatGrid struct{ h *HeatMap }

func (g heatGrid) Dims() (c, r int) { return len(g.h.Values), len(g.h.Values) }
func (g heatGrid) X(c int) float64  { return float64(c) }
func (g heatGrid) Y(r int) float64  { return float64(r) }

// Z returns the value of column c, row r counted from the bottom; NaN for none.
func (g heatGrid) Z(c, r int) float64 {
	if v := g.h.Values[len(g.h.Values)-1-r][c]; v != nil {
		return *v
	}
	return math.NaN()
}

// heatPlot draws a matrix panel: a cell per pair coloured on the panel's
// scale, its value written in it, the weakest cell boxed, row 0 at the top.
func (pd *PanelData) heatPlot(columns int) (*plot.Plot, error) {
	h := pd.Heat
	n := len(h.Values)
	p := plot.New()
	styleAxes(p)
	p.Title.Text = pd.Title
	p.X.Label.Text, p.Y.Label.Text = pd.XLabel, pd.YLabel
	if pd.Footnote != "" {
		p.X.Label.Text += "\n" + strings.Join(wrap(pd.Footnote, 150/columns), "\n")
	}
	lo, hi := h.Min, h.Max
	if hi <= lo { // one value: a scale of some width, so that the palette maps it
		lo, hi = lo-1, hi+1
	}
	cm := moreland.SmoothBlueTan()
	cm.SetMin(lo)
	cm.SetMax(hi)
	hm := plotter.NewHeatMap(heatGrid{h}, cm.Palette(255))
	hm.Min, hm.Max = lo, hi
	hm.NaN = color.Gray{Y: 0xe8}
	p.Add(hm)
	if err := addCellValues(p, h, columns); err != nil {
		return nil, err
	}
	r, c := float64(n-1-h.Weakest[0]), float64(h.Weakest[1])
	box, err := plotter.NewLine(plotter.XYs{{X: c - 0.45, Y: r - 0.45}, {X: c + 0.45, Y: r - 0.45},
		{X: c + 0.45, Y: r + 0.45}, {X: c - 0.45, Y: r + 0.45}, {X: c - 0.45, Y: r - 0.45}})
	if err != nil {
		return nil, err
	}
	box.LineStyle = draw.LineStyle{Color: color.Black, Width: vg.Points(1.5)}
	p.Add(box)
	var xt, yt plot.ConstantTicks
	for i := range n {
		xt = append(xt, plot.Tick{Value: float64(i), Label: strconv.Itoa(i)})
		yt = append(yt, plot.Tick{Value: float64(n - 1 - i), Label: strconv.Itoa(i)})
	}
	p.X.Tick.Marker, p.Y.Tick.Marker = xt, yt
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = -0.5, float64(n)-0.5, -0.5, float64(n)-0.5
	return p, nil
}

// addCellValues writes each cell's value in it, smaller as cells shrink.
func addCellValues(p *plot.Plot, h *HeatMap, columns int) error {
	n := len(h.Values)
	var xyl plotter.XYLabels
	for r, row := range h.Values {
		for c, v := range row {
			if v == nil {
				continue
			}
			xyl.XYs = append(xyl.XYs, plotter.XY{X: float64(c), Y: float64(n - 1 - r)})
			xyl.Labels = append(xyl.Labels, cellText(*v))
		}
	}
	labels, err := plotter.NewLabels(xyl)
	if err != nil {
		return err
	}
	size := math.Max(4, math.Min(8, 40/float64(n*max(1, columns/2))))
	for i := range labels.TextStyle {
		labels.TextStyle[i].Font.Size = vg.Points(size)
		labels.TextStyle[i].XAlign, labels.TextStyle[i].YAlign = draw.XCenter, draw.YCenter
	}
	p.Add(labels)
	return nil
}

// cellText is a value as a cell shows it: three figures at most.
func cellText(v float64) string {
	if math.Abs(v) >= 100 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// orDefault returns s, or def when s is empty.
func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
