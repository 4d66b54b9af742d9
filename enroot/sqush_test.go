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

// TestSqushVersion: the binaries in the image get make build's version,
// git describe of the checkout, whatever tag -t gives the image, so that
// efaxx doctor, built from the same checkout, finds its runner's version
// the same. docker and enroot are stand-ins that record their arguments.
func TestSqushVersion(t *testing.T) {
	bin, out := t.TempDir(), t.TempDir()
	log := filepath.Join(out, "log")
	for _, tool := range []string{"docker", "enroot", "mksquashfs"} {
		script := "#!/bin/sh\necho " + tool + " \"$@\" >>" + log + "\n"
		if err := os.WriteFile(filepath.Join(bin, tool), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	describe, err := exec.Command("git", "describe", "--tags", "--always", "--dirty").Output()
	if err != nil {
		t.Fatalf("git describe: %v", err)
	}
	version := strings.TrimSpace(string(describe))
	cmd := exec.Command("./sqush", "-t", "latest", "-o", out)
	cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"))
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sqush: %v\n%s", err, b)
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"-t efaxx:latest ", "--build-arg EFAXX_VERSION=" + version + " ",
		"enroot import -o " + out + "/efaxx+latest.sqsh dockerd://efaxx:latest"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("sqush ran no %q:\n%s", want, b)
		}
	}
}
