package shmregion

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestRemove(t *testing.T) {
	dir := t.TempDir()
	names := []string{"4242:0:0", "4242:1:3", "42420:0:0", "14242:0:0", "4242:x:0", "4242:0", "4242:0:0:1", "other", "vader_segment.4242"}
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	got := Remove(dir, 4242)
	want := []string{filepath.Join(dir, "4242:0:0"), filepath.Join(dir, "4242:1:3")}
	if !slices.Equal(got, want) {
		t.Errorf("removed %q, want %q", got, want)
	}
	for _, n := range names[2:] {
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			t.Errorf("%s: %v; only this pid's regions may go", n, err)
		}
	}
	if got := Remove(filepath.Join(dir, "absent"), 4242); got != nil {
		t.Errorf("no directory: removed %q", got)
	}
}
