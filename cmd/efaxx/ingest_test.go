package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	if code != 3 || stdout != "" || !strings.Contains(stderr, `warning: `+dir+`/bad\x1b[2J/run.json: invalid character`) ||
		strings.Contains(stderr, "\x1b") {
		t.Errorf("efaxx ingest of a bad run.json = %d, stdout %q, stderr %q; want 3 and an escaped warning on stderr",
			code, stdout, stderr)
	}
}
