package plots

import (
	"context"
	"fmt"
	"strings"

	"efaxx/results"
)

// metricLabels are the default y-axis labels: the unit, and which bytes or
// times are counted (docs/metrics.md defines each).
var metricLabels = map[string]string{
	"gbps":          "Gbps (1e9 bit/s): bytes each rank sent + received",
	"dir_gbps":      "Gbps (1e9 bit/s): bytes one direction carried",
	"dir_gbs":       "GB/s (1e9 B/s): bytes one direction carried",
	"libefaxx_gbps": "Gbps (1e9 bit/s), as Libefaxx counts the bytes",
	"pct_link":      "% of link: one direction's bytes over NIC capacity",
	"algbw":         "algbw, GB/s (1e9 B/s): one rank's buffer per operation",
	"busbw":         "busbw, GB/s (1e9 B/s): bytes that crossed the network",
	"lat_us":        "latency, us: median iteration (one-way for ping-pong)",
	"lat_p99_us":    "latency, us: p99 iteration (one-way for ping-pong)",
	"iter_us":       "us per iteration (mean; a round trip for ping-pong)",
	"mops":          "Mops: million iterations per second",
}

// yLabel returns the panel's y-axis label. The default says which
// statistic a point is where it is not the median, which a reader takes
// a point for.
func (p *Panel) yLabel(m results.Metric) string {
	if p.YLabel != "" {
		return p.YLabel
	}
	l, ok := metricLabels[m.Name]
	if !ok {
		l = m.Name + ", " + m.Unit
	}
	return l + p.statNote()
}

// statNote says which statistic a point is, for a default label; "" for
// the median, which a reader takes a point for.
func (p *Panel) statNote() string {
	if p.Stat == "" || p.Stat == "median" {
		return ""
	}
	return "; each point the " + p.Stat + " of its samples"
}

// xLabel returns the panel's x-axis label.
func (p *Panel) xLabel() string {
	switch {
	case p.XLabel != "":
		return p.XLabel
	case p.X == results.XSize:
		return "message size (bytes)"
	}
	return p.X
}

// toolLabel returns the y label of a panel of a tool's value (tool:NAME)
// over runs: the spec's, else the value's name and the unit the tool
// printed it in, which the metric alone does not know. Runs whose tool
// printed it in different units are an error: one axis has one unit.
func (p *Panel) toolLabel(ctx context.Context, db *results.DB, m results.Metric, runs []results.Run) (string, error) {
	name := strings.TrimPrefix(m.Name, results.ToolMetricPrefix)
	units, err := db.ToolUnits(ctx, runIDs(runs), name)
	if err != nil {
		return "", err
	}
	if len(units) > 1 {
		return "", fmt.Errorf("runs %s (%s): their tools printed %s in %q and %q: one axis has one unit; draw them apart",
			idRanges(runIDs(runs)), p.Runs, name, units[0], units[1])
	}
	if p.YLabel != "" {
		return p.YLabel, nil
	}
	if len(units) == 0 || units[0] == "" {
		return name + " (unit not stated by the tool)" + p.statNote(), nil
	}
	return name + ", " + units[0] + " (as the tool printed it)" + p.statNote(), nil
}
