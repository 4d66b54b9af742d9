// Package tomldoc reads a TOML file key by key, each key with the line it
// is written on, so that whoever checks the values can say where a wrong
// one is: "file:line: key: message" (a lineerr.Error). Sweeps, figure
// specs and baselines are read through it, with one vocabulary for what
// is wrong: the sentinels below and TypeName's names of TOML's types.
package tomldoc

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"efaxx/lineerr"
)

// Sentinels for what is wrong with a key; the errors of a decoder match
// one of them under errors.Is.
var (
	ErrSyntax     = errors.New("syntax error")
	ErrUnknownKey = errors.New("unknown key")
	ErrMissingKey = errors.New("missing required key")
	ErrType       = errors.New("wrong type")
	ErrValue      = errors.New("invalid value")
)

// Entry is one key of a file: its value as the toml package decodes it
// (string, int64, float64, bool, time.Time, []any, map[string]any, …) and
// the line it was written on.
type Entry struct {
	Key   toml.Key
	Line  int // 1-based; 0 only for a table that no line names and that holds no keys
	Value any

	prim toml.Primitive // the value undecoded, to read the keys of a table

	// span is the lines [first, end) of the table of an array of tables
	// that holds this key, or zero outside arrays of tables: see Tables.
	span [2]int
}

// Name returns the last part of the key.
func (e Entry) Name() string { return e.Key[len(e.Key)-1] }

// Document is a parsed file, able to list the keys of any of its tables
// with their lines.
//
// The toml package keeps the position of every key but has no method that
// returns it. It does put that position in the ParseError it returns when a
// value's UnmarshalTOML fails, so each value is decoded once into a probe
// that keeps the value and then fails on purpose.
type Document struct {
	md    toml.MetaData
	text  string   // the file
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

// Parse parses data and returns the entries of its top-level table. When
// data is not TOML, the error is a lineerr.Errors of one error, matching
// ErrSyntax, at the line of the syntax error; file names the file in it.
func Parse(file string, data []byte) (*Document, []Entry, error) {
	var top map[string]toml.Primitive
	md, err := toml.Decode(string(data), &top)
	if err != nil {
		var perr toml.ParseError
		if errors.As(err, &perr) {
			return nil, nil, lineerr.Errors{{File: file, Line: perr.Position.Line, Err: fmt.Errorf("%w: %s", ErrSyntax, perr.Message)}}
		}
		return nil, nil, lineerr.Errors{{File: file, Err: fmt.Errorf("%w: %v", ErrSyntax, err)}}
	}
	d := &Document{md: md, text: string(data), lines: strings.Split(string(data), "\n")}
	return d, d.entries(nil, top), nil
}

// Children returns the entries of table e, or nil when e is not a table.
func (d *Document) Children(e Entry) []Entry {
	if _, ok := e.Value.(map[string]any); !ok {
		return nil
	}
	// A table always decodes into a map of Primitives: this cannot fail.
	var prims map[string]toml.Primitive
	if err := d.md.PrimitiveDecode(e.prim, &prims); err != nil {
		return nil
	}
	out := d.entries(e.Key, prims)
	if e.span != [2]int{} {
		for i := range out {
			out[i].span = e.span
			out[i].Line = d.keyLine(out[i].Name(), e.span, e.Line)
		}
	}
	return out
}

// entries locates the values of one table, sorted by key, so that
// everything derived from them comes out in one order however the file
// is laid out.
func (d *Document) entries(parent toml.Key, prims map[string]toml.Primitive) []Entry {
	out := make([]Entry, 0, len(prims))
	for _, name := range slices.Sorted(maps.Keys(prims)) {
		e := Entry{Key: append(slices.Clone(parent), name), prim: prims[name]}
		e.Value, e.Line = d.locate(e.prim)
		if e.Line == 0 {
			e.Line = d.firstLine(e)
		}
		out = append(out, e)
	}
	return out
}

// locate decodes prim into a probe and returns the value and its line.
func (d *Document) locate(prim toml.Primitive) (any, int) {
	var p probe
	err := d.md.PrimitiveDecode(prim, &p)
	var perr toml.ParseError
	if errors.As(err, &perr) && perr.Position.Line > 0 {
		return p.value, lineAt(d.text, perr.Position.Start)
	}
	return p.value, 0
}

// lineAt returns the line of text that holds byte offset. A position's
// Line is where its value ends, a multi-line string's last line; Start,
// where the value begins, is on the line of its key.
func lineAt(text string, offset int) int {
	return 1 + strings.Count(text[:min(offset, len(text))], "\n")
}

// firstLine returns the first line of the keys inside table e. A table that
// only dotted keys create ("params.ranks = 2") has no line of its own.
func (d *Document) firstLine(e Entry) int {
	return FirstLine(d.Children(e), 0)
}

// FirstLine returns the first line of entries, or fallback when none has
// a line (a table without keys).
func FirstLine(entries []Entry, fallback int) int {
	first := 0
	for _, c := range entries {
		if c.Line > 0 && (first == 0 || c.Line < first) {
			first = c.Line
		}
	}
	if first == 0 {
		return fallback
	}
	return first
}

// Tables returns the entries of each table of the array of tables e, and
// false when e is not an array of tables.
//
// The toml package keeps one position per dotted key, so the keys of the
// tables of an array share theirs, the last table's. The lines of keys of
// an array of tables are therefore found in the text instead: table i
// spans from its [[name]] header to the next header, and a key is on the
// line in that span that assigns it, or on its parent's line (an inline
// table).
func (d *Document) Tables(e Entry) ([][]Entry, bool) {
	switch v := e.Value.(type) {
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
	spans := d.arraySpans(e.Key.String())
	out := make([][]Entry, len(prims))
	for i, p := range prims {
		out[i] = d.entries(append(slices.Clone(e.Key), fmt.Sprint(i)), p)
		if len(spans) != len(prims) {
			continue // an inline array of tables: keep the package's lines
		}
		for j := range out[i] {
			out[i][j].span = spans[i]
			out[i][j].Line = d.keyLine(out[i][j].Name(), spans[i], spans[i][0])
		}
	}
	return out, true
}

// arraySpans returns the lines [first, end) of each [[name]] table.
func (d *Document) arraySpans(name string) [][2]int {
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
func (d *Document) keyLine(key string, span [2]int, fallback int) int {
	for n := span[0]; n < span[1] && n <= len(d.lines); n++ {
		lhs, _, ok := strings.Cut(d.lines[n-1], "=")
		if ok && strings.Trim(strings.TrimSpace(lhs), `"'`) == key {
			return n
		}
	}
	return fallback
}

// TypeName names the TOML type of a decoded value in messages, as the
// docs name them: string, integer, float, boolean, datetime, list, table.
func TypeName(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case int64:
		return "integer"
	case float64:
		return "float"
	case bool:
		return "boolean"
	case time.Time:
		return "datetime"
	case []any, []map[string]any:
		return "list"
	case map[string]any:
		return "table"
	}
	return fmt.Sprintf("%T", v)
}

// TypeError says that a value of v's type came where want was expected:
// "want string, got list", matching ErrType.
func TypeError(want string, v any) error {
	return lineerr.Mark(ErrType, "want %s, got %s", want, TypeName(v))
}

// Number reads an integer or a float as a float64, refusing NaN and the
// infinities.
func Number(v any) (float64, error) {
	switch n := v.(type) {
	case int64:
		return float64(n), nil
	case float64:
		if math.IsNaN(n) || math.IsInf(n, 0) {
			return 0, lineerr.Mark(ErrValue, "%v is not a finite number", n)
		}
		return n, nil
	}
	return 0, TypeError("number", v)
}

// UnknownKey says that name is not one of the known keys, and which one
// it is likely a typo of: `unknown key (did you mean "sizes"?)`; when none
// is close, it lists them.
func UnknownKey(name string, known []string) error {
	if s := DidYouMean(name, known); s != "" {
		return fmt.Errorf("%w%s", ErrUnknownKey, s)
	}
	return fmt.Errorf("%w; known: %s", ErrUnknownKey, strings.Join(slices.Sorted(slices.Values(known)), ", "))
}
