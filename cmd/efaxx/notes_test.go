package main

import (
	"bytes"
	"errors"
	"strings"
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

// TestWatchNotesOnce: a note repeated at each refresh of status --watch
// is printed once.
func TestWatchNotesOnce(t *testing.T) {
	var b bytes.Buffer
	var views []harness.JobView
	show := watchPrinter(&b, &views)
	for range 3 {
		if err := show(nil, &harness.SyncReport{Notes: []string{"sacct: Slurm accounting storage is disabled"}}); err != nil {
			t.Fatal(err)
		}
	}
	if n := strings.Count(b.String(), "note:"); n != 1 {
		t.Errorf("3 refreshes printed %d notes, want 1:\n%s", n, b.String())
	}
}

// TestWatchWarningsOnce: a warning about a line of a rank file, said again
// at each refresh while its step runs and is read again, is printed once.
func TestWatchWarningsOnce(t *testing.T) {
	var b bytes.Buffer
	var views []harness.JobView
	show := watchPrinter(&b, &views)
	for range 3 {
		bad := &lineerr.Error{File: "s/000/rank-00001.ndjson", Line: 3, Err: errors.New("unknown record type \"x\"")}
		if err := show(nil, &harness.SyncReport{Problems: []*lineerr.Error{bad}}); err != nil {
			t.Fatal(err)
		}
	}
	if n := strings.Count(b.String(), "warning:"); n != 1 {
		t.Errorf("3 refreshes printed %d warnings, want 1:\n%s", n, b.String())
	}
}
