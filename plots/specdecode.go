package plots

import (
	"cmp"
	"maps"
	"regexp"
	"slices"
	"strings"

	"efaxx/lineerr"
	"efaxx/tomldoc"
)

// field is one key of a spec, with the value the toml package decoded
// and its line.
type field = tomldoc.Entry

// specDecoder decodes one spec file and collects every error.
type specDecoder struct {
	file string
	doc  *tomldoc.Document
	errs lineerr.Errors
}

// ParseSpec parses and checks a figure spec; file names it in messages.
// An invalid spec gives a lineerr.Errors of "file:line: key: message".
func ParseSpec(file string, data []byte) (*Spec, error) {
	doc, top, err := tomldoc.Parse(file, data)
	if err != nil {
		return nil, err
	}
	d := &specDecoder{file: file, doc: doc}
	s := d.spec(top)
	d.errs.Sort()
	if err := d.errs.Err(); err != nil {
		return nil, err
	}
	return s, nil
}

// fail records err at field f.
func (d *specDecoder) fail(f field, err error) {
	d.errs = append(d.errs, &lineerr.Error{File: d.file, Line: f.Line, Key: f.Key.String(), Err: err})
}

// table returns the keys of table f, or fails and returns false when f is
// not a table.
func (d *specDecoder) table(f field) ([]field, bool) {
	if _, ok := f.Value.(map[string]any); !ok {
		d.fail(f, tomldoc.TypeError("table", f.Value))
		return nil, false
	}
	return d.doc.Children(f), true
}

// specKeys decode the keys of the top level that are not panel keys.
var specKeys = map[string]func(d *specDecoder, f field, s *Spec){
	"name":  func(d *specDecoder, f field, s *Spec) { d.name(f, &s.Name) },
	"title": func(d *specDecoder, f field, s *Spec) { d.text(f, &s.Title) },
	"kind": func(d *specDecoder, f field, s *Spec) {
		d.oneOf(f, &s.Kind, KindLines, KindSpread, KindCompare, KindPublished, KindMatrix)
	},
	"out":     (*specDecoder).out,
	"columns": func(d *specDecoder, f field, s *Spec) { d.count(f, &s.Columns, 1, 4) },
	"share_y": func(d *specDecoder, f field, s *Spec) { d.boolean(f, &s.ShareY) },
	"legend": func(d *specDecoder, f field, s *Spec) {
		d.oneOf(f, &s.Legend, LegendBelow, LegendTopLeft, LegendTopRight, LegendBottomLeft, LegendBottomRight, LegendNone)
	},
}

// spec decodes the top level.
func (d *specDecoder) spec(fields []field) *Spec {
	s := &Spec{File: d.file, Kind: KindLines, Legend: LegendBelow}
	var base Panel
	var panels []field
	var shareY field
	seen := map[string]bool{}
	for _, f := range fields {
		n := f.Name()
		seen[n] = true
		if n == "share_y" {
			shareY = f
		}
		switch {
		case n == "panel":
			panels, _ = d.table(f)
			// Panels are drawn in the order the file writes them.
			slices.SortStableFunc(panels, func(a, b field) int { return cmp.Compare(a.Line, b.Line) })
		case specKeys[n] != nil:
			specKeys[n](d, f, s)
		case panelKeys[n] != nil:
			panelKeys[n](d, f, &base)
		default:
			d.fail(f, tomldoc.UnknownKey(n, slices.Concat(slices.Collect(maps.Keys(specKeys)), []string{"panel"}, slices.Collect(maps.Keys(panelKeys)))))
		}
	}
	for _, k := range []string{"name", "title", "out"} {
		if !seen[k] {
			d.errs = append(d.errs, &lineerr.Error{File: d.file, Key: k, Err: ErrMissingKey})
		}
	}
	if len(panels) == 0 {
		s.Panels = []Panel{base}
		d.checkPanel(s, &s.Panels[0], field{})
		return s
	}
	for _, pf := range panels {
		p := base.clone()
		p.ID = pf.Name()
		d.panel(pf, &p)
		d.checkPanel(s, &p, pf)
		s.Panels = append(s.Panels, p)
	}
	if s.ShareY {
		d.checkShareY(s, shareY)
	}
	return s
}

// checkShareY checks that the panels of a shared y range are on one
// scale, and but for ratios (compare) of one metric: a log10 panel's range
// is of logarithms, and one range over Gbps and us compares no heights.
func (d *specDecoder) checkShareY(s *Spec, f field) {
	first := s.Panels[0]
	for _, p := range s.Panels[1:] {
		switch {
		case p.yScale() != first.yScale():
			d.fail(f, badValue("panels %q and %q have y scales %s and %s: a shared y range needs one", first.ID, p.ID, first.yScale(), p.yScale()))
			return
		case s.Kind != KindCompare && p.Y != first.Y:
			d.fail(f, badValue("panels %q and %q draw y = %q and %q: a shared y range needs one metric", first.ID, p.ID, first.Y, p.Y))
			return
		}
	}
}

// panel decodes the keys of a [panel.ID] table over the defaults in p.
func (d *specDecoder) panel(pf field, p *Panel) {
	fields, ok := d.table(pf)
	if !ok {
		return
	}
	for _, f := range fields {
		switch n := f.Name(); {
		case n == "title":
			d.text(f, &p.Title)
		case panelKeys[n] != nil:
			panelKeys[n](d, f, p)
		default:
			d.fail(f, tomldoc.UnknownKey(n, append(slices.Collect(maps.Keys(panelKeys)), "title")))
		}
	}
}

// validName is the form of a spec's name: it names files.
var validName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)

// name reads a figure name.
func (d *specDecoder) name(f field, dst *string) {
	if d.text(f, dst) && !validName.MatchString(*dst) {
		d.fail(f, badValue("%q: use lower-case letters, digits, '_' and '-'", *dst))
	}
}

// out reads the output path: a .png file.
func (d *specDecoder) out(f field, s *Spec) {
	if d.text(f, &s.Out) && !strings.EqualFold(pathExt(s.Out), ".png") {
		d.fail(f, badValue("%q: want a .png path (the .svg is written beside it)", s.Out))
	}
}

// pathExt returns the extension of p, "" without one.
func pathExt(p string) string {
	i := strings.LastIndexAny(p, "./")
	if i < 0 || p[i] != '.' {
		return ""
	}
	return p[i:]
}
