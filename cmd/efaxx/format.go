package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

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
			fmt.Fprintln(tw, strings.Join(r, "\t")+"\t")
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

// checkFormat rejects a bad --format before any work is done.
func checkFormat(format string) error {
	switch format {
	case "table", "csv", "json":
		return nil
	}
	return &usageError{msg: fmt.Sprintf("--format %q: want table, csv or json", format)}
}
