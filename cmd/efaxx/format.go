package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"unicode"

	"github.com/urfave/cli/v2"
)

// formatFlag is the --format flag of every command with tabular output.
var formatFlag = &cli.StringFlag{Name: "format", Value: "table", Usage: "output as table, csv or json"}

// table is tabular output: header and rows for table and csv, and the
// typed records for json, so JSON keeps numbers as numbers.
type table struct {
	header  []string
	rows    [][]string
	records any
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

func writeTable(w io.Writer, format string, t *table) error {
	switch format {
	case "table":
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, strings.Join(t.header, "\t")+"\t")
		for _, r := range t.rows {
			cells := make([]string, len(r))
			for i, c := range r {
				cells[i] = printable(c)
			}
			fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
		}
		return tw.Flush()
	case "csv":
		cw := csv.NewWriter(w)
		cw.Write(t.header)
		cw.WriteAll(t.rows)
		return cw.Error()
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(t.records)
	}
	return &usageError{msg: fmt.Sprintf("--format %q: want table, csv or json", format)}
}

// The --format values each command takes: tableFormats those of
// formatFlag (checkFormat); query --raw also ndjson (queryFormats); prune
// no csv (pruneFormats). Completion offers the same.
var (
	tableFormats = []string{"table", "csv", "json"}
	queryFormats = []string{"table", "csv", "json", "ndjson"}
	pruneFormats = []string{"table", "json"}
)

// checkFormat rejects a bad --format before any work is done.
func checkFormat(format string) error {
	if slices.Contains(tableFormats, format) {
		return nil
	}
	return &usageError{msg: fmt.Sprintf("--format %q: want table, csv or json", format)}
}

// printable escapes the control characters of s, as \x1b or \u0085: a
// stored string (a tag, a reason, a host name) must not move the cursor,
// clear the screen or break a table's row when printed to a terminal.
func printable(s string) string {
	if !strings.ContainsFunc(s, unicode.IsControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r < 0x100 && unicode.IsControl(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unicode.IsControl(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// truncate cuts s to at most n characters, marking the cut with "...".
func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-3]) + "..."
}

// plural returns one or many, as n asks.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// quantity writes n and a regular noun, plural as n asks: "1 run", "3 runs".
func quantity(n int, noun string) string {
	return fmt.Sprintf("%d %s", n, plural(n, noun, noun+"s"))
}
