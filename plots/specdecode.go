package plots

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// field is one key of a spec, with the value the toml package decoded
// (string, int64, float64, bool, []any, map[string]any) and its line.
type field struct {
	key   toml.Key
	line  int
	value any
	prim  toml.Primitive // the value undecoded, to list a table's keys
}

// name returns the last part of the key.
func (f field) name() string { return f.key[len(f.key)-1] }

// specDecoder decodes one spec file and collects every error.
type specDecoder struct {
	file string
	md   toml.MetaData
	errs SpecErrors
}

// ParseSpec parses and checks a figure spec; file names it in messages.
func ParseSpec(file string, data []byte) (*Spec, error) {
	var top map[string]toml.Primitive
	md, err := toml.Decode(string(data), &top)
	if err != nil {
		return nil, SpecErrors{syntaxError(file, err)}
	}
	d := &specDecoder{file: file, md: md}
	s := d.spec(d.fields(nil, top))
	if len(d.errs) > 0 {
		slices.SortStableFunc(d.errs, func(a, b *SpecError) int { return cmp.Compare(lineOrder(a), lineOrder(b)) })
		return nil, d.errs
	}
	return s, nil
}

// lineOrder sorts errors without a line (missing keys) last.
func lineOrder(e *SpecError) int {
	if e.Line == 0 {
		return math.MaxInt
	}
	return e.Line
}

// syntaxError turns the toml package's error into a SpecError.
func syntaxError(file string, err error) *SpecError {
	var perr toml.ParseError
	if errors.As(err, &perr) {
		return &SpecError{File: file, Line: perr.Position.Line, Err: fmt.Errorf("%w: %s", ErrSpecSyntax, perr.Message)}
	}
	return &SpecError{File: file, Err: fmt.Errorf("%w: %v", ErrSpecSyntax, err)}
}

// fail records err at field f.
func (d *specDecoder) fail(f field, err error) {
	d.errs = append(d.errs, &SpecError{File: d.file, Line: f.line, Key: f.key.String(), Err: err})
}

// probe keeps the value it is given and fails on purpose: the toml package
// puts the key's position in the error, and has no other way to give it.
type probe struct{ value any }

var errProbe = errors.New("probe")

// UnmarshalTOML keeps v and returns errProbe.
func (p *probe) UnmarshalTOML(v any) error {
	p.value = v
	return errProbe
}

// fields locates the keys of one table, in file order.
func (d *specDecoder) fields(parent toml.Key, prims map[string]toml.Primitive) []field {
	out := make([]field, 0, len(prims))
	for name, prim := range prims {
		f := field{key: append(slices.Clone(parent), name), prim: prim}
		var p probe
		var perr toml.ParseError
		if err := d.md.PrimitiveDecode(prim, &p); errors.As(err, &perr) {
			f.line = perr.Position.Line
		}
		f.value = p.value
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b field) int { return cmp.Or(cmp.Compare(a.line, b.line), cmp.Compare(a.name(), b.name())) })
	return out
}

// table returns the keys of table f, or fails and returns false when f is
// not a table.
func (d *specDecoder) table(f field) ([]field, bool) {
	if _, ok := f.value.(map[string]any); !ok {
		d.fail(f, badValue("want a table, got %s", typeName(f.value)))
		return nil, false
	}
	var prims map[string]toml.Primitive
	if err := d.md.PrimitiveDecode(f.prim, &prims); err != nil {
		d.fail(f, badValue("%v", err))
		return nil, false
	}
	return d.fields(f.key, prims), true
}

// specKeys decode the keys of the top level that are not panel keys.
var specKeys = map[string]func(d *specDecoder, f field, s *Spec){
	"name":  func(d *specDecoder, f field, s *Spec) { d.name(f, &s.Name) },
	"title": func(d *specDecoder, f field, s *Spec) { d.text(f, &s.Title) },
	"kind": func(d *specDecoder, f field, s *Spec) {
		d.oneOf(f, &s.Kind, KindLines, KindSpread, KindCompare, KindPublished)
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
	seen := map[string]bool{}
	for _, f := range fields {
		n := f.name()
		seen[n] = true
		switch {
		case n == "panel":
			panels, _ = d.table(f)
		case specKeys[n] != nil:
			specKeys[n](d, f, s)
		case panelKeys[n] != nil:
			panelKeys[n](d, f, &base)
		default:
			d.fail(f, unknownKey(n, append(mapKeys(specKeys), "panel"), mapKeys(panelKeys)))
		}
	}
	for _, k := range []string{"name", "title", "out"} {
		if !seen[k] {
			d.errs = append(d.errs, &SpecError{File: d.file, Key: k, Err: ErrMissingKey})
		}
	}
	if len(panels) == 0 {
		s.Panels = []Panel{base}
		d.checkPanel(s, &s.Panels[0], field{})
		return s
	}
	for _, pf := range panels {
		p := base.clone()
		p.ID = pf.name()
		d.panel(pf, &p)
		d.checkPanel(s, &p, pf)
		s.Panels = append(s.Panels, p)
	}
	return s
}

// panel decodes the keys of a [panel.ID] table over the defaults in p.
func (d *specDecoder) panel(pf field, p *Panel) {
	fields, ok := d.table(pf)
	if !ok {
		return
	}
	for _, f := range fields {
		switch n := f.name(); {
		case n == "title":
			d.text(f, &p.Title)
		case panelKeys[n] != nil:
			panelKeys[n](d, f, p)
		default:
			d.fail(f, unknownKey(n, append(mapKeys(panelKeys), "title")))
		}
	}
}

// unknownKey says a key is unknown and lists the known ones.
func unknownKey(name string, known ...[]string) error {
	all := slices.Concat(known...)
	slices.Sort(all)
	return fmt.Errorf("%w %q; known: %s", ErrUnknownKey, name, strings.Join(all, ", "))
}

// mapKeys returns the keys of m, sorted.
func mapKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
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

// typeName names the TOML type of v for messages.
func typeName(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "a table"
	}
	return fmt.Sprintf("%T", v)
}
