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
	part *part          // the parse that holds prim's keys with their positions
}

// part is a parse of the whole file, or of the lines of one table of an
// array of tables: the toml package keeps one position per dotted key, so
// the keys of the tables of an array share theirs, the last table's,
// unless each table is parsed alone (see Tables).
type part struct {
	md     toml.MetaData
	text   string // the lines parsed
	offset int    // lines of the file before the part's first
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
	whole *part
	lines []string // the file's lines, to parse the tables of an array alone
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
	// The toml package reads over a byte order mark and counts its
	// positions from after it: so are the lines counted here.
	text := strings.TrimPrefix(string(data), "\ufeff")
	var top map[string]toml.Primitive
	md, err := toml.Decode(text, &top)
	if err != nil {
		var perr toml.ParseError
		if errors.As(err, &perr) {
			return nil, nil, lineerr.Errors{{File: file, Line: perr.Position.Line, Err: fmt.Errorf("%w: %s", ErrSyntax, perr.Message)}}
		}
		return nil, nil, lineerr.Errors{{File: file, Err: fmt.Errorf("%w: %v", ErrSyntax, err)}}
	}
	d := &Document{whole: &part{md: md, text: text}, lines: strings.Split(text, "\n")}
	return d, d.entries(d.whole, nil, top), nil
}

// Children returns the entries of table e, or nil when e is not a table.
func (d *Document) Children(e Entry) []Entry {
	if _, ok := e.Value.(map[string]any); !ok {
		return nil
	}
	// A table always decodes into a map of Primitives: this cannot fail.
	var prims map[string]toml.Primitive
	if err := e.part.md.PrimitiveDecode(e.prim, &prims); err != nil {
		return nil
	}
	out := d.entries(e.part, e.Key, prims)
	for i := range out {
		// The toml package keeps no position of an empty key ("" = 1)
		// inside a table: it files the key's under the table's name.
		if out[i].Line == 0 && out[i].Name() == "" {
			out[i].Line = e.Line
		}
	}
	return out
}

// entries locates the values of one table, sorted by key, so that
// everything derived from them comes out in one order however the file
// is laid out.
func (d *Document) entries(p *part, parent toml.Key, prims map[string]toml.Primitive) []Entry {
	out := make([]Entry, 0, len(prims))
	for _, name := range slices.Sorted(maps.Keys(prims)) {
		e := Entry{Key: append(slices.Clone(parent), name), prim: prims[name], part: p}
		e.Value, e.Line = p.locate(e.prim)
		if e.Line == 0 {
			e.Line = d.firstLine(e)
		}
		out = append(out, e)
	}
	return out
}

// locate decodes prim into a probe and returns the value and its line.
func (p *part) locate(prim toml.Primitive) (any, int) {
	var pr probe
	err := p.md.PrimitiveDecode(prim, &pr)
	var perr toml.ParseError
	if errors.As(err, &perr) && perr.Position.Line > 0 {
		return pr.value, p.offset + lineAt(p.text, perr.Position.Start)
	}
	return pr.value, 0
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
// The toml package would give the keys of every table the lines of the
// last one's, so each table written as a [[name]] header is parsed again
// alone, from its header to the next: that finds its dotted keys, its
// sub-tables and its multi-line strings where they are. An inline array
// of tables, or an array inside one, keeps the package's lines.
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
	if err := e.part.md.PrimitiveDecode(e.prim, &prims); err != nil {
		return nil, false
	}
	// Each table runs from its header to the next one, the last to the end.
	heads := append(d.headers(e.Key.String()), len(d.lines)+1)
	alone := e.part == d.whole && len(heads) == len(prims)+1
	out := make([][]Entry, len(prims))
	for i, p := range prims {
		part := e.part
		if alone {
			if ap, table, ok := d.alone(e.Key, heads[i], heads[i+1]); ok {
				part, p = ap, table
			}
		}
		out[i] = d.entries(part, append(slices.Clone(e.Key), fmt.Sprint(i)), p)
	}
	return out, true
}

// TableLines returns the line of each table of the array of tables e: its
// [[name]] header, or e's line where the tables are not written as
// headers (an inline array of tables). A table without keys has no other
// line to be reported at; the toml package gives e the last header's.
func (d *Document) TableLines(e Entry) []int {
	var n int
	switch v := e.Value.(type) {
	case []map[string]any:
		n = len(v)
	case []any:
		n = len(v)
	}
	heads := d.headers(e.Key.String())
	lines := make([]int, n)
	for i := range lines {
		lines[i] = e.Line
		if e.part == d.whole && len(heads) == n {
			lines[i] = heads[i]
		}
	}
	return lines
}

// alone parses the lines [first, end) of the file by themselves and
// returns the one table of the array key they hold.
func (d *Document) alone(key toml.Key, first, end int) (*part, map[string]toml.Primitive, bool) {
	text := strings.Join(d.lines[first-1:end-1], "\n")
	var top map[string]toml.Primitive
	md, err := toml.Decode(text, &top)
	if err != nil {
		return nil, nil, false
	}
	prim, ok := top[key[0]]
	for _, k := range key[1:] {
		var m map[string]toml.Primitive
		if !ok || md.PrimitiveDecode(prim, &m) != nil {
			return nil, nil, false
		}
		prim, ok = m[k]
	}
	var tables []map[string]toml.Primitive
	if !ok || md.PrimitiveDecode(prim, &tables) != nil || len(tables) != 1 {
		return nil, nil, false
	}
	return &part{md: md, text: text, offset: first - 1}, tables[0], true
}

// headers returns the lines of the [[name]] headers of the file, leaving
// out lines inside multi-line strings.
func (d *Document) headers(name string) []int {
	text := strings.Join(d.lines, "\n")
	var lines []int
	line, first := 1, true // first: nothing but blanks yet on this line
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == '\n':
			line, first = line+1, true
		case c == ' ' || c == '\t' || c == '\r':
		case c == '#': // a comment: on to the line's end
			if n := strings.IndexByte(text[i:], '\n'); n >= 0 {
				i += n - 1
			} else {
				i = len(text)
			}
		case c == '"' || c == '\'':
			n := stringLen(text[i:])
			line += strings.Count(text[i:i+n], "\n")
			i, first = i+n-1, false
		default:
			if h, ok := strings.CutPrefix(text[i:], "[["); ok && first {
				h, _, _ = strings.Cut(h, "\n")
				if strings.TrimSpace(strings.SplitN(h, "]]", 2)[0]) == name {
					lines = append(lines, line)
				}
			}
			first = false
		}
	}
	return lines
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
