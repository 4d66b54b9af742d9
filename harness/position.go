package harness

import (
	"errors"
	"slices"

	"github.com/BurntSushi/toml"
)

// entry is one key of a sweep file: its value as the toml package decodes it
// (string, int64, float64, bool, time.Time, []any, map[string]any, …) and the
// line it was written on.
type entry struct {
	key   toml.Key
	line  int // 1-based; 0 only for a table that no line names and that holds no keys
	value any
	prim  toml.Primitive // the value undecoded, to read the keys of a table
}

// name returns the last part of the key.
func (e entry) name() string { return e.key[len(e.key)-1] }

// document is a parsed sweep file, able to list the keys of any of its tables
// with their lines.
//
// The toml package keeps the position of every key but has no method that
// returns it. It does put that position in the ParseError it returns when a
// value's UnmarshalTOML fails, so each value is decoded once into a probe that
// keeps the value and then fails on purpose.
type document struct {
	md toml.MetaData
}

// probe keeps the value it is given and fails, to learn the key's position.
type probe struct{ value any }

var errProbe = errors.New("probe")

// UnmarshalTOML keeps v and returns errProbe.
func (p *probe) UnmarshalTOML(v any) error {
	p.value = v
	return errProbe
}

// parseDocument parses data and returns the entries of its top-level table.
// The error is a toml.ParseError when data is not TOML.
func parseDocument(data []byte) (*document, []entry, error) {
	var top map[string]toml.Primitive
	md, err := toml.Decode(string(data), &top)
	if err != nil {
		return nil, nil, err
	}
	d := &document{md: md}
	return d, d.entries(nil, top), nil
}

// children returns the entries of table e, or nil when e is not a table.
func (d *document) children(e entry) []entry {
	if _, ok := e.value.(map[string]any); !ok {
		return nil
	}
	// A table always decodes into a map of Primitives: this cannot fail.
	var prims map[string]toml.Primitive
	if err := d.md.PrimitiveDecode(e.prim, &prims); err != nil {
		return nil
	}
	return d.entries(e.key, prims)
}

// entries locates the values of one table, sorted by key so that everything
// derived from them comes out in the same order each time.
func (d *document) entries(parent toml.Key, prims map[string]toml.Primitive) []entry {
	names := make([]string, 0, len(prims))
	for name := range prims {
		names = append(names, name)
	}
	slices.Sort(names)
	out := make([]entry, 0, len(names))
	for _, name := range names {
		e := entry{key: append(slices.Clone(parent), name), prim: prims[name]}
		e.value, e.line = d.locate(e.prim)
		if e.line == 0 {
			e.line = d.firstLine(e)
		}
		out = append(out, e)
	}
	return out
}

// locate decodes prim into a probe and returns the value and its line.
func (d *document) locate(prim toml.Primitive) (any, int) {
	var p probe
	err := d.md.PrimitiveDecode(prim, &p)
	var perr toml.ParseError
	if errors.As(err, &perr) {
		return p.value, perr.Position.Line
	}
	return p.value, 0
}

// firstLine returns the first line of the keys inside table e. A table that
// only dotted keys create ("params.ranks = 2") has no line of its own.
func (d *document) firstLine(e entry) int {
	first := 0
	for _, c := range d.children(e) {
		if c.line > 0 && (first == 0 || c.line < first) {
			first = c.line
		}
	}
	return first
}
