package main

import (
	"bytes"
	"errors"
	"testing"

	"efaxx/harness"
	"efaxx/lineerr"
)

// TestPrintNotesEscaped: what Slurm and the run directories said reaches
// the terminal escaped, so a job's text cannot clear the screen.
func TestPrintNotesEscaped(t *testing.T) {
	var b bytes.Buffer
	printNotes(&b, &harness.SyncReport{Notes: []string{"sacct: \x1b[2J"},
		Problems: []*lineerr.Error{{File: "run\x1b[2J.json", Err: errors.New("bad")}}})
	want := "note: sacct: \\x1b[2J\nwarning: run\\x1b[2J.json: bad\n"
	if b.String() != want {
		t.Errorf("printNotes wrote %q, want %q", b.String(), want)
	}
}
