package plots

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Spec is a figure spec: one TOML file under plots/figures that says which
// stored runs a figure draws and how. The top level names the figure and
// sets the defaults of its panels; each [panel.ID] table is one panel and
// replaces the defaults it sets. docs/figures.md describes every key.
type Spec struct {
	File    string  // the file it was read from, for messages
	Name    string  // the name key: what `efaxx figures NAME` selects
	Title   string  // the title above every panel
	Kind    string  // KindLines, KindSpread or KindCompare
	Out     string  // the PNG to write; the SVG goes beside it
	Columns int     // panels per row; 0: up to two
	ShareY  bool    // every panel gets the same y range, so that heights compare across panels
	Legend  string  // LegendBelow, or a corner of each panel that has a label no panel before it had
	Panels  []Panel // in file order; one panel from the top level when there are no [panel] tables
}

// Panel is one panel of a figure: a selection of runs and what to draw of
// their samples.
type Panel struct {
	ID    string // the table's name ("blocking" for [panel.blocking]); "" for a figure of one panel
	Title string // above the panel; "" for none

	Runs   Selector // which runs (for KindCompare: the runs compared)
	X      string   // results.XSize or a numeric parameter
	Y      string   // a metric name (docs/metrics.md)
	Stat   string   // how samples aggregate into a point: median, mean, min, max or p99
	Sizes  []uint64 // only these message sizes; nil for all
	Roles  []string // only the samples of these roles (initiator, target, both); nil for all
	Series []string // the dimensions that tell lines apart; nil for one line

	// SeriesValues, when set, are the series to draw, in legend order,
	// each as its key text (the dimension values joined by " "): every one
	// must have data, and series not listed are left out.
	SeriesValues []string
	Labels       map[string]string // legend text per series key; the key itself where absent

	XLabel, YLabel string // axis labels; defaults say the unit and the bytes counted
	XScale, YScale string // ScaleLog2, ScaleLog10 or ScaleLinear; "" for the default

	// KindCompare: the runs compared against, or a stored baseline.
	Reference *Selector
	Baseline  string
	Threshold float64 // a change beyond which a worse ratio is a regression; 0.05 when 0

	Slowest int // KindSpread: how many of the slowest ranks, hosts and rails to name; 2 when 0

	// KindMatrix: the samples' variant the panel draws, and whether its
	// rows are the samples' peers (the source of a copy its target moved:
	// ipc's pull, nvbandwidth's read testcases) rather than their ranks.
	Variant   string
	Transpose bool
}

// Selector picks stored runs. Every key set narrows the selection.
type Selector struct {
	Sweeps     []string          // by sweep name
	Session    string            // SessionLatest (the default), SessionAll, or a session directory's name
	Benchmarks []string          // by benchmark
	IDs        []int64           // by run id
	Status     string            // by status; "ok" when ""
	Tags       map[string]string // runs with every one of these tags
	Params     map[string]any    // runs whose point has every one of these values
}

// Kinds of figure.
const (
	KindLines   = "lines"   // a metric against x, one line per series
	KindSpread  = "spread"  // one run's samples per size as boxes, the slowest ranks named
	KindCompare = "compare" // the ratio of runs to a reference per size, with its bootstrap interval
	KindMatrix  = "matrix"  // one variant's pairs of ranks at one size as a heat map, the weakest pair marked
)

// Axis scales.
const (
	ScaleLog2   = "log2"   // powers of two, labelled 4K, 1M, 1G (the size axis' default)
	ScaleLog10  = "log10"  // powers of ten
	ScaleLinear = "linear" // the default for every other axis
)

// Legend positions.
const (
	LegendBelow       = "below" // one band under the panels, every label once (the default)
	LegendTopLeft     = "top-left"
	LegendTopRight    = "top-right"
	LegendBottomLeft  = "bottom-left"
	LegendBottomRight = "bottom-right"
	LegendNone        = "none"
)

// Sessions of a Selector.
const (
	SessionLatest = "latest" // the newest run of each point of each sweep file's newest version
	SessionAll    = "all"    // every session
)

// LoadSpec reads and checks the figure spec at path. An invalid spec gives
// a lineerr.Errors of "file:line: key: message".
func LoadSpec(path string) (*Spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read figure spec %q: %w", path, err)
	}
	return ParseSpec(path, data)
}

// LoadSpecs reads every *.toml in dir, in name order. It reads them all and
// returns the first error met, with the specs read before it.
func LoadSpecs(dir string) ([]*Spec, error) {
	switch fi, err := os.Stat(dir); {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("figure specs: directory %q does not exist", dir)
	case err != nil:
		return nil, fmt.Errorf("figure specs: %w", err)
	case !fi.IsDir():
		return nil, fmt.Errorf("figure specs: %q is not a directory", dir)
	}
	paths, err := filepath.Glob(filepath.Join(dir, "*.toml"))
	if err != nil {
		return nil, fmt.Errorf("figure specs in %q: %w", dir, err)
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("figure specs in %q: no *.toml files", dir)
	}
	sort.Strings(paths)
	var specs []*Spec
	names := map[string]string{}
	for _, p := range paths {
		s, err := LoadSpec(p)
		if err != nil {
			return specs, err
		}
		if prev, dup := names[s.Name]; dup {
			return specs, fmt.Errorf("figure spec %q: name %q is %s's already", p, s.Name, prev)
		}
		names[s.Name] = p
		specs = append(specs, s)
	}
	return specs, nil
}

// SVG returns the path of the SVG written beside the spec's PNG.
func (s *Spec) SVG() string { return strings.TrimSuffix(s.Out, filepath.Ext(s.Out)) + ".svg" }

// columns returns the panels per row.
func (s *Spec) columns() int {
	if s.Columns > 0 {
		return s.Columns
	}
	return min(len(s.Panels), 2)
}

// knownStats are the values of a panel's stat key.
var knownStats = []string{"median", "mean", "min", "max", "p99"}

// xScale returns the panel's x scale: log2 for sizes, else linear.
func (p *Panel) xScale() string {
	switch {
	case p.XScale != "":
		return p.XScale
	case p.X == "size":
		return ScaleLog2
	}
	return ScaleLinear
}

// yScale returns the panel's y scale.
func (p *Panel) yScale() string {
	if p.YScale != "" {
		return p.YScale
	}
	return ScaleLinear
}

// clone returns a deep copy of p, so that a panel's keys replace the
// defaults without touching them.
func (p Panel) clone() Panel {
	p.Runs = p.Runs.clone()
	if p.Reference != nil {
		r := p.Reference.clone()
		p.Reference = &r
	}
	p.Labels = cloneMap(p.Labels)
	p.Series = slices.Clone(p.Series)
	p.SeriesValues = slices.Clone(p.SeriesValues)
	p.Sizes = slices.Clone(p.Sizes)
	p.Roles = slices.Clone(p.Roles)
	return p
}

// clone returns a deep copy of s.
func (s Selector) clone() Selector {
	s.Sweeps, s.Benchmarks, s.IDs = slices.Clone(s.Sweeps), slices.Clone(s.Benchmarks), slices.Clone(s.IDs)
	s.Tags, s.Params = cloneMap(s.Tags), cloneMap(s.Params)
	return s
}

// cloneMap copies m; nil stays nil.
func cloneMap[V any](m map[string]V) map[string]V {
	if m == nil {
		return nil
	}
	out := make(map[string]V, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
