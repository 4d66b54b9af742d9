package harness

import (
	"errors"
	"fmt"
	"slices"
	"strings"

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

	// span is the lines [first, end) of the table of an array of tables
	// that holds this key, or zero outside arrays of tables: see tables.
	span [2]int
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
	md    toml.MetaData
	lines []string // the file's lines, to place keys of arrays of tables
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
	d := &document{md: md, lines: strings.Split(string(data), "\n")}
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
	out := d.entries(e.key, prims)
	if e.span != [2]int{} {
		for i := range out {
			out[i].span = e.span
			out[i].line = d.keyLine(out[i].name(), e.span, e.line)
		}
	}
	return out
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

// tables returns the entries of each table of the array of tables e, and
// false when e is not an array of tables.
//
// The toml package keeps one position per dotted key, so the keys of the
// tables of an array share theirs, the last table's. The lines of keys of
// an array of tables are therefore found in the text instead: table i
// spans from its [[name]] header to the next header, and a key is on the
// line in that span that assigns it, or on its parent's line (an inline
// table).
func (d *document) tables(e entry) ([][]entry, bool) {
	switch v := e.value.(type) {
	case []map[string]any:
	case []any:
		for _, item := range v {
			if _, ok := item.(map[string]any); !ok {
				return nil, false
			}
		}
	default:
		return nil, false
	}
	var prims []map[string]toml.Primitive
	if err := d.md.PrimitiveDecode(e.prim, &prims); err != nil {
		return nil, false
	}
	spans := d.arraySpans(e.key.String())
	out := make([][]entry, len(prims))
	for i, p := range prims {
		out[i] = d.entries(append(slices.Clone(e.key), fmt.Sprint(i)), p)
		if len(spans) != len(prims) {
			continue // an inline array of tables: keep the package's lines
		}
		for j := range out[i] {
			out[i][j].span = spans[i]
			out[i][j].line = d.keyLine(out[i][j].name(), spans[i], spans[i][0])
		}
	}
	return out, true
}

// arraySpans returns the lines [first, end) of each [[name]] table.
func (d *document) arraySpans(name string) [][2]int {
	var spans [][2]int
	for i, l := range d.lines {
		t := strings.TrimSpace(l)
		if !strings.HasPrefix(t, "[") {
			continue
		}
		if len(spans) > 0 && spans[len(spans)-1][1] == 0 {
			spans[len(spans)-1][1] = i + 1 // any header ends the table before it
		}
		if h, ok := strings.CutPrefix(t, "[["); ok && strings.TrimSpace(strings.SplitN(h, "]]", 2)[0]) == name {
			spans = append(spans, [2]int{i + 1, 0})
		}
	}
	if len(spans) > 0 && spans[len(spans)-1][1] == 0 {
		spans[len(spans)-1][1] = len(d.lines) + 1
	}
	return spans
}

// keyLine returns the line in span that assigns key ("key = ..."), or
// fallback when none does.
func (d *document) keyLine(key string, span [2]int, fallback int) int {
	for n := span[0]; n < span[1] && n <= len(d.lines); n++ {
		lhs, _, ok := strings.Cut(d.lines[n-1], "=")
		if ok && strings.Trim(strings.TrimSpace(lhs), `"'`) == key {
			return n
		}
	}
	return fallback
}
