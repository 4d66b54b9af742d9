// Package plots draws efaxx figures from the results store with gonum/plot.
package plots

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"efaxx/atomicfile"
	"efaxx/results"
)

// ErrNoData is returned when there is nothing to draw: a figure is never
// saved empty.
var ErrNoData = errors.New("plots: no samples to draw")

// curveLabels are the y-axis labels of Bandwidth for the metrics whose
// label says more there than a figure's (metricLabels).
var curveLabels = map[string]string{
	"gbps":  "bandwidth, Gbps (1e9 bit/s; bytes each rank sent + received)",
	"busbw": "busbw, GB/s (1e9 B/s; nccl-tests' bus bandwidth, as it printed it)",
	"mops":  "Mops: million iterations per second (queue: commands)",
}

// Bandwidth draws the curves' metric against message size on a log2 axis,
// one line per curve, in the curves' own unit (results.Curves): Gbps for a
// network, GB/s for NVLink copies, Mops for the queue, nccl-tests' busbw in
// GB/s for its collectives. Curves of different metrics are an error: one
// axis has one unit. caption goes under the axis label: which machine,
// when, which runs. Points of size 0 are left out, and the axis label says
// how many: a log axis cannot place them.
func Bandwidth(curves []results.Curve, title, caption string) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "message size (bytes)"
	if caption != "" {
		p.X.Label.Text += "\n" + caption
	}
	metric := "gbps" // a curve that does not say is in Gbps
	for i, c := range curves {
		m := c.Metric
		if m == "" {
			m = "gbps"
		}
		if i == 0 {
			metric = m
		} else if m != metric {
			return nil, fmt.Errorf("curves %q (%s) and %q (%s): one axis has one unit", curves[0].Label, metric, c.Label, m)
		}
	}
	label, err := curveLabel(metric)
	if err != nil {
		return nil, err
	}
	p.Y.Label.Text = label
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = SizeTicks{}
	p.Y.Min = 0
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Legend.Left = true
	drawn, zero := 0, 0
	for i, c := range curves {
		var xys plotter.XYs
		for _, pt := range c.Points {
			if pt.Size == 0 { // a log axis has no place for 0 bytes (OSU's latency, nccl-tests' small all_gather)
				zero++
				continue
			}
			xys = append(xys, plotter.XY{X: float64(pt.Size), Y: pt.Value})
		}
		if len(xys) == 0 {
			continue
		}
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, fmt.Errorf("curve %q: %w", c.Label, err)
		}
		line.LineStyle, points.GlyphStyle = seriesStyle(i)
		p.Add(line, points)
		p.Legend.Add(c.Label, line, points)
		drawn++
	}
	if drawn == 0 {
		return nil, ErrNoData
	}
	if zero > 0 {
		what := fmt.Sprintf("%d points", zero)
		if zero == 1 {
			what = "1 point"
		}
		p.X.Label.Text += "\nnot drawn: " + what + " at size 0, which a log axis cannot place"
	}
	return p, nil
}

// curveLabel returns Bandwidth's y-axis label for metric: its own, else
// a figure's, else the metric's name and unit.
func curveLabel(metric string) (string, error) {
	if l, ok := curveLabels[metric]; ok {
		return l, nil
	}
	if l, ok := metricLabels[metric]; ok {
		return l, nil
	}
	m, err := results.LookupMetric(metric)
	if err != nil {
		return "", fmt.Errorf("curves of %s: %w", metric, err)
	}
	return m.Name + ", " + m.Unit, nil
}

// Save writes p to path as PNG or SVG (by extension) at README width.
func Save(p *plot.Plot, path string) error {
	ext := strings.ToLower(filepath.Ext(path))
	switch ext {
	case ".png", ".svg":
	default:
		return fmt.Errorf("save figure %q: want a .png or .svg file, got %q", path, ext)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("save figure %q: %w", path, err)
	}
	// Drawn whole before path is touched: gonum's own Save empties the
	// file first, and a drawing that fails would leave it so.
	wt, err := p.WriterTo(8*vg.Inch, 5*vg.Inch, ext[1:])
	if err != nil {
		return fmt.Errorf("save figure %q: %w", path, err)
	}
	var buf bytes.Buffer
	if _, err := wt.WriteTo(&buf); err != nil {
		return fmt.Errorf("save figure %q: %w", path, err)
	}
	if err := atomicfile.Write(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("save figure: %w", err)
	}
	return nil
}
