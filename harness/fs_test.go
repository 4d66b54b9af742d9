package harness_test

import (
	"path/filepath"
	"strings"
	"testing"

	"efaxx/harness"
)

func TestCheckShared(t *testing.T) {
	// t.TempDir is under /tmp: local to each node on most clusters,
	// whatever its filesystem.
	dir := t.TempDir()
	for _, d := range []string{dir, filepath.Join(dir, "not", "made", "yet")} {
		if w := harness.CheckShared(d); !strings.Contains(w, "workdir "+d+" is on ") || !strings.Contains(w, "compute nodes must see it") {
			t.Errorf("CheckShared(%s) = %q, want a warning naming its filesystem", d, w)
		}
	}
}
