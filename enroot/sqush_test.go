// Package enroot_test checks the image build script, which cannot build
// here (no Docker, no enroot): that it says exactly what is missing.
package enroot_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSqushSaysWhatIsMissing runs enroot/sqush with a PATH that holds the
// shell tools it needs but neither docker, enroot nor mksquashfs.
func TestSqushSaysWhatIsMissing(t *testing.T) {
	bin := t.TempDir()
	for _, tool := range []string{"bash", "git", "dirname", "sed", "id"} {
		path, err := exec.LookPath(tool)
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		if err := os.Symlink(path, filepath.Join(bin, tool)); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(filepath.Join(bin, "bash"), "sqush")
	cmd.Env = []string{"PATH=" + bin, "HOME=" + t.TempDir()}
	out, err := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != 1 {
		t.Fatalf("sqush = %d (%v), want 1\n%s", code, err, out)
	}
	for _, want := range []string{"docker: the docker CLI is not on PATH", "enroot: not on PATH",
		"mksquashfs: enroot import needs it", "docs/slurm.md"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("sqush output lacks %q:\n%s", want, out)
		}
	}
}
