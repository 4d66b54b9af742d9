package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"efaxx/results/synth"
)

// TestIngestWarnings: what ingest skips is a warning on stderr, its path
// escaped, never on stdout among the runs it stored.
func TestIngestWarnings(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "bad\x1b[2J")
	if err := os.Mkdir(run, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(run, "run.json"), "{bad")
	code, stdout, stderr := efaxx(t, "--db", filepath.Join(t.TempDir(), "test.db"), "ingest", dir)
	if code != 3 || stdout != "" || !strings.Contains(stderr, `warning: `+dir+`/bad\x1b[2J/run.json:1: invalid character`) ||
		strings.Contains(stderr, "\x1b") {
		t.Errorf("efaxx ingest of a bad run.json = %d, stdout %q, stderr %q; want 3 and an escaped warning on stderr",
			code, stdout, stderr)
	}
}

// TestIngestNothing: a DIR that is missing, or holds no run at all, is an
// error naming it; it stores nothing of the other DIRs and creates no
// store. So does a DIR whose only run.json cannot be read.
func TestIngestNothing(t *testing.T) {
	good := filepath.Join(t.TempDir(), "run")
	if err := (&synth.Run{UID: "a", Ranks: 2, Sizes: []uint64{4096}}).Write(good); err != nil {
		t.Fatal(err)
	}
	empty, missing := t.TempDir(), filepath.Join(t.TempDir(), "nosuch")
	bad := filepath.Join(t.TempDir(), "bad")
	if err := os.Mkdir(bad, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(bad, "run.json"), "{bad")
	tests := []struct {
		dirs []string
		want string
	}{
		{[]string{empty}, `efaxx: ingest "` + empty + `": no run directory (one holding run.json) under it`},
		{[]string{good, empty}, `efaxx: ingest "` + empty + `": no run directory`},
		{[]string{good, missing}, `efaxx: ingest "` + missing + `": stat ` + missing + `: no such file or directory`},
		{[]string{bad}, `warning: ` + bad + `/run.json:1: invalid character`},
	}
	for _, tt := range tests {
		db := filepath.Join(t.TempDir(), "test.db")
		code, stdout, stderr := efaxx(t, append([]string{"--db", db, "ingest"}, tt.dirs...)...)
		if code != 3 || stdout != "" || !strings.HasPrefix(stderr, tt.want) {
			t.Errorf("efaxx ingest %v = %d\n%s%s\nwant 3, nothing stored, and %q", tt.dirs, code, stdout, stderr, tt.want)
		}
		if _, err := os.Stat(db); err == nil {
			t.Errorf("efaxx ingest %v created %s", tt.dirs, db)
		}
	}
}

// TestIngestRunning: a run still going is stored and is no failure, as
// for efaxx sync, where ingest exited 3; one that ended partial is.
func TestIngestRunning(t *testing.T) {
	db := filepath.Join(t.TempDir(), "test.db")
	dir := filepath.Join(t.TempDir(), "run")
	if err := (&synth.Run{UID: "a", Ranks: 2, Sizes: []uint64{4096}}).Write(dir); err != nil {
		t.Fatal(err)
	}
	manifest := filepath.Join(dir, "run.json")
	text, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(text, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "exit_code") // the launcher has not exited
	b, _ := json.Marshal(m)
	writeFile(t, manifest, string(b))
	if code, stdout, stderr := efaxx(t, "--db", db, "ingest", dir); code != 0 || !strings.Contains(stdout, "run 1 new: running") {
		t.Errorf("efaxx ingest of a running run = %d\n%s%s\nwant 0, the run stored running", code, stdout, stderr)
	}
	m["exit_code"] = 0
	if err := os.Remove(filepath.Join(dir, "rank-00001.ndjson")); err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(m)
	writeFile(t, manifest, string(b))
	if code, stdout, stderr := efaxx(t, "--db", db, "ingest", dir); code != 3 || !strings.Contains(stdout, "run 1 updated: partial") {
		t.Errorf("efaxx ingest of a partial run = %d\n%s%s\nwant 3, the run partial", code, stdout, stderr)
	}
}
