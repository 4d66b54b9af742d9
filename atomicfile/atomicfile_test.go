package atomicfile_test

import (
	"os"
	"path/filepath"
	"testing"

	"efaxx/atomicfile"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.Write(path, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil || string(b) != "new" {
		t.Fatalf("read %q, %v; want new", b, err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, %v; want 0644", fi.Mode(), err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".tmp-*")); len(left) != 0 {
		t.Errorf("temporary files left: %q", left)
	}
	// A directory that does not exist: an error, and nothing written.
	if err := atomicfile.Write(filepath.Join(dir, "no", "f"), []byte("x"), 0o644); err == nil {
		t.Error("write into a missing directory: no error")
	}
}
