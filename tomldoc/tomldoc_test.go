package tomldoc_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"efaxx/lineerr"
	"efaxx/tomldoc"
)

const doc = `name = "x"
params.ranks = 2
description = """
one
"""

[slurm]
nodes = [1, 2]

[[expect]]
min = 1
where = { size = "1MiB" }

[[expect]]

max = 2
`

// lines walks every entry of the document and returns "key@line" for each.
func lines(d *tomldoc.Document, entries []tomldoc.Entry) []string {
	var out []string
	for _, e := range entries {
		out = append(out, fmt.Sprintf("%s@%d", e.Key, e.Line))
		if tables, ok := d.Tables(e); ok {
			for _, t := range tables {
				out = append(out, lines(d, t)...)
			}
			continue
		}
		out = append(out, lines(d, d.Children(e))...)
	}
	return out
}

func TestLines(t *testing.T) {
	d, top, err := tomldoc.Parse("x.toml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(lines(d, top), " ")
	// A table made by dotted keys is on its first key's line; the keys of
	// the tables of an array on their own lines, each in its table (the
	// array itself on its last header, where the toml package puts it); a
	// multi-line string on its key's line, not on its last.
	want := "description@3 expect@14 expect.0.min@11 expect.0.where@12 expect.0.where.size@12 expect.1.max@16 " +
		"name@1 params@2 params.ranks@2 slurm@7 slurm.nodes@8"
	if got != want {
		t.Errorf("entries\n%s\nwant\n%s", got, want)
	}
}

func TestSyntaxError(t *testing.T) {
	_, _, err := tomldoc.Parse("x.toml", []byte("a = 1\nb = \n"))
	var list lineerr.Errors
	if !errors.As(err, &list) || len(list) != 1 || list[0].Line != 2 || !errors.Is(err, tomldoc.ErrSyntax) {
		t.Errorf("Parse error = %#v, want one syntax error at line 2", err)
	}
}

func TestMessages(t *testing.T) {
	tests := []struct {
		err  error
		want string
		is   error
	}{
		{tomldoc.TypeError("string", []any{1}), "want string, got list", tomldoc.ErrType},
		{tomldoc.TypeError("integer", map[string]any{}), "want integer, got table", tomldoc.ErrType},
		{tomldoc.UnknownKey("sizez", []string{"sizes", "ranks"}), `unknown key (did you mean "sizes"?)`, tomldoc.ErrUnknownKey},
		{tomldoc.UnknownKey("colour", []string{"sizes", "ranks"}), "unknown key; known: ranks, sizes", tomldoc.ErrUnknownKey},
	}
	for _, tt := range tests {
		if tt.err.Error() != tt.want || !errors.Is(tt.err, tt.is) {
			t.Errorf("%q (matching %v), want %q", tt.err, errors.Is(tt.err, tt.is), tt.want)
		}
	}
}

// arrays has [[expect]] tables written with dotted keys and a sub-table,
// and multi-line strings holding lines that look like a header or a key.
const arrays = `description = """
[[expect]]
x = \"""
"""
[[expect]]
name = '''
min = 95 was too strict
'''
min = 1
where.provider = "efa"
where.size = "big"

[[expect]]
min = 2
[expect.where]
size = "big"
`

func TestArrayLines(t *testing.T) {
	d, top, err := tomldoc.Parse("x.toml", []byte(arrays))
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(lines(d, top), " ")
	want := "description@1 expect@13 expect.0.min@9 expect.0.name@6 expect.0.where@10 expect.0.where.provider@10 " +
		"expect.0.where.size@11 expect.1.min@14 expect.1.where@15 expect.1.where.size@16"
	if got != want {
		t.Errorf("entries\n%s\nwant\n%s", got, want)
	}
}

// TestTableLines: each table of an array at its own header, a table
// without keys too; an inline array at its key's line.
func TestTableLines(t *testing.T) {
	for _, tt := range []struct {
		text string
		want []int
	}{
		{"[[expect]]\nmin = 1\n\n[[expect]]\n[[expect]]\nmax = 2\n", []int{1, 4, 5}},
		{"x = 1\nexpect = [\n  { min = 1 },\n  {},\n]\n", []int{2, 2}},
		{"\ufeff[[expect]]\nmin = 1\n[[expect]]\n", []int{1, 3}}, // after a byte order mark
	} {
		d, top, err := tomldoc.Parse("x.toml", []byte(tt.text))
		if err != nil {
			t.Fatal(err)
		}
		e := top[0]
		if got := d.TableLines(e); fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("TableLines(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

// TestLinesAfterBOM: in a file that starts with a byte order mark, a key
// whose value starts within three bytes of its line's start is at its
// line, and the tables of an array have their keys at their own lines.
func TestLinesAfterBOM(t *testing.T) {
	d, top, err := tomldoc.Parse("x.toml", []byte("\ufeff[[expect]]\nmin = 1\n[[expect]]\nmax = 2\n[t]\nx=1\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(lines(d, top), " ")
	if want := "expect@3 expect.0.min@2 expect.1.max@4 t@5 t.x@6"; got != want {
		t.Errorf("entries\n%s\nwant\n%s", got, want)
	}
}

// TestEmptyKeyLine: an empty key inside a table has a line, the toml
// package's position of it, filed under its table's name.
func TestEmptyKeyLine(t *testing.T) {
	d, top, err := tomldoc.Parse("x.toml", []byte("a = 1\n\n[t]\nb = 2\n\"\" = 3\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(lines(d, top), " ")
	if want := "a@1 t@5 t.\"\"@5 t.b@4"; got != want { // t@5: the toml package's, the empty key's
		t.Errorf("entries\n%s\nwant\n%s", got, want)
	}
}
