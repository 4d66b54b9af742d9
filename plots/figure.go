package plots

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"efaxx/results"
)

// ErrMissingData is matched by every error of a figure whose data the
// store does not hold: no runs match, or the runs lack a dimension, a
// series or samples that the spec draws. A figure is never drawn empty.
var ErrMissingData = errors.New("missing data")

// FigureError is an error of one figure: its spec, the panel, and what
// went wrong, "figure proxy_queue (plots/figures/proxy_queue.toml), panel
// single-blocking: missing data: ...".
type FigureError struct {
	Spec  *Spec
	Panel string // the panel's ID; "" for the whole figure
	Err   error
}

// Error names the figure, its file and the panel.
func (e *FigureError) Error() string {
	s := fmt.Sprintf("figure %s (%s)", e.Spec.Name, e.Spec.File)
	if e.Panel != "" {
		s += ", panel " + e.Panel
	}
	return s + ": " + e.Err.Error()
}

// Unwrap returns the underlying error.
func (e *FigureError) Unwrap() error { return e.Err }

// missing returns an error matching ErrMissingData.
func missing(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrMissingData, fmt.Sprintf(format, args...))
}

// Figure is what a spec draws, read from the store and not yet drawn: the
// numbers of every panel, and the caption. Golden tests compare it.
type Figure struct {
	Name    string      `json:"name"`
	Title   string      `json:"title"`
	Columns int         `json:"columns"`
	Legend  string      `json:"legend"`
	ShareY  bool        `json:"share_y"`
	Panels  []PanelData `json:"panels"`
	Caption []string    `json:"caption"` // lines under the panels: machines, dates, run ids
}

// PanelData is one panel's numbers and labels.
type PanelData struct {
	Title    string       `json:"title,omitempty"`
	XLabel   string       `json:"x_label"`
	YLabel   string       `json:"y_label"`
	XScale   string       `json:"x_scale"`
	XTicks   []float64    `json:"x_ticks,omitempty"` // the x values to label, for a parameter on x (hosts: 2, 3, 4); nil for the scale's own
	YScale   string       `json:"y_scale"`
	Series   []SeriesData `json:"series,omitempty"`
	Boxes    []Box        `json:"boxes,omitempty"`
	Notes    []Note       `json:"notes,omitempty"`
	Rules    []Rule       `json:"rules,omitempty"`
	Footnote string       `json:"footnote,omitempty"` // a line under the x label
	Heat     *HeatMap     `json:"heat,omitempty"`     // a matrix panel's cells, drawn instead of lines

	runs   []results.Run // the runs drawn, for the caption
	source []string      // a published panel's caption: where its numbers come from
}

// SeriesData is one line of a panel.
type SeriesData struct {
	Key    string  `json:"key"`   // the dimensions' values joined by " "
	Label  string  `json:"label"` // what the legend says
	Style  int     `json:"style"` // index of its colour, marker and dashes: the same label has the same style in every panel
	Points []Point `json:"points"`
}

// Point is one point of a line, with an interval when it has one.
type Point struct {
	X  float64  `json:"x"`
	Y  float64  `json:"y"`
	Lo *float64 `json:"lo,omitempty"`
	Hi *float64 `json:"hi,omitempty"`
}

// Box is the spread of the samples at one x: whiskers at the extremes.
type Box struct {
	X       float64 `json:"x"`
	Samples int     `json:"samples"`
	Min     float64 `json:"min"`
	P25     float64 `json:"p25"`
	Median  float64 `json:"median"`
	P75     float64 `json:"p75"`
	Max     float64 `json:"max"`
}

// Note is a text at a point of a panel.
type Note struct {
	X    float64 `json:"x"`
	Y    float64 `json:"y"`
	Text string  `json:"text"`
}

// Rule is a horizontal reference line.
type Rule struct {
	Y     float64 `json:"y"`
	Label string  `json:"label"`
}

// kind reads one panel of a figure of its kind from the store, and
// returns the runs it drew. Adding a kind of figure is one such function.
type kind func(ctx context.Context, db *results.DB, p *Panel) (*PanelData, error)

// kinds are the kinds of figure, by the spec's kind key.
var kinds = map[string]kind{
	KindLines:     lines,
	KindSpread:    spread,
	KindCompare:   compare,
	KindPublished: published,
	KindMatrix:    matrix,
}

// Build reads what spec draws from db. A panel without data fails the
// whole figure with a FigureError matching ErrMissingData.
func Build(ctx context.Context, db *results.DB, spec *Spec) (*Figure, error) {
	f := &Figure{Name: spec.Name, Title: spec.Title, Columns: spec.columns(), Legend: spec.Legend, ShareY: spec.ShareY}
	var runs []results.Run
	var sources []string
	for i := range spec.Panels {
		p := &spec.Panels[i]
		pd, err := kinds[spec.Kind](ctx, db, p)
		if err != nil {
			return nil, &FigureError{Spec: spec, Panel: p.ID, Err: err}
		}
		pd.Title = p.Title
		f.Panels = append(f.Panels, *pd)
		runs = append(runs, pd.runs...)
		if !slices.Equal(sources, pd.source) {
			sources = append(sources, pd.source...)
		}
	}
	assignStyles(f)
	if spec.ShareY {
		shareHeat(f)
	}
	if len(runs) == 0 {
		f.Caption = sources // a published figure draws no runs
		return f, nil
	}
	var err error
	if f.Caption, err = caption(ctx, db, runs); err != nil {
		return nil, &FigureError{Spec: spec, Err: err}
	}
	return f, nil
}

// assignStyles gives each distinct label a style, in order of first
// appearance, so that a series looks the same in every panel.
func assignStyles(f *Figure) {
	styles := map[string]int{}
	for i := range f.Panels {
		for j := range f.Panels[i].Series {
			s := &f.Panels[i].Series[j]
			if _, ok := styles[s.Label]; !ok {
				styles[s.Label] = len(styles)
			}
			s.Style = styles[s.Label]
		}
	}
}
