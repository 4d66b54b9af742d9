package harness_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"efaxx/harness"
)

func TestImageDigest(t *testing.T) {
	dir := t.TempDir()
	sqsh := filepath.Join(dir, "efaxx.sqsh")
	data := append([]byte("hsqs"), make([]byte, 1<<20)...)
	if err := os.WriteFile(sqsh, data, 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	if got, err := harness.ImageDigest(sqsh); err != nil || got != "sha256:"+hex.EncodeToString(sum[:]) {
		t.Errorf("ImageDigest = %q, %v, want sha256 of the file", got, err)
	}
	notSqsh := filepath.Join(dir, "image.tar")
	if err := os.WriteFile(notSqsh, []byte("not a squashfs"), 0o644); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		filepath.Join(dir, "missing.sqsh"): "container image " + dir + "/missing.sqsh: no such file or directory (docs/slurm.md says how to build one)",
		notSqsh:                            "container image " + notSqsh + ": not a squashfs file (docs/slurm.md says how to build one)",
	} {
		if _, err := harness.ImageDigest(path); err == nil || err.Error() != want {
			t.Errorf("ImageDigest(%s) error = %v, want %s", path, err, want)
		}
	}
}

func TestContainerRunner(t *testing.T) {
	ref := "nvcr.io#nvidia/efaxx@sha256:" + strings.Repeat("0f", 32)
	r, err := harness.ContainerRunner(&harness.Container{Image: ref})
	if err != nil || r.Path != harness.ImageRunner || r.Digest != "sha256:"+strings.Repeat("0f", 32) || r.Version != "image "+r.Digest {
		t.Errorf("ContainerRunner(%s) = %+v, %v", ref, r, err)
	}
	r, err = harness.ContainerRunner(&harness.Container{Image: "nvcr.io#nvidia/efaxx:1"})
	if err != nil || r.Digest != "" || r.Version != "image nvcr.io#nvidia/efaxx:1" {
		t.Errorf("ContainerRunner(tag) = %+v, %v: want no digest, the reference as version", r, err)
	}
	// USER@ is no digest, with or without one after it.
	r, err = harness.ContainerRunner(&harness.Container{Image: "alice@nvcr.io#nvidia/efaxx:1"})
	if err != nil || r.Digest != "" || r.Version != "image alice@nvcr.io#nvidia/efaxx:1" {
		t.Errorf("ContainerRunner(user@tag) = %+v, %v: want no digest, the reference as version", r, err)
	}
	r, err = harness.ContainerRunner(&harness.Container{Image: "alice@" + ref})
	if err != nil || r.Digest != "sha256:"+strings.Repeat("0f", 32) || r.Version != "image "+r.Digest {
		t.Errorf("ContainerRunner(user@digest) = %+v, %v: want the digest after the last @", r, err)
	}
	if _, err := harness.ContainerRunner(&harness.Container{Image: "/no/such/efaxx.sqsh"}); err == nil ||
		!strings.Contains(err.Error(), "/no/such/efaxx.sqsh: no such file or directory") {
		t.Errorf("ContainerRunner of a missing squashfs: error %v, want the path", err)
	}
}

// TestImageRunnerVersion reads the runner's version from images with and
// without one.
func TestImageRunnerVersion(t *testing.T) {
	ctx := context.Background()
	with := testImage(t, "v9.1")
	if v, found, err := harness.ImageRunnerVersion(ctx, with); err != nil || !found || v != "v9.1 (abc1234)" {
		t.Errorf("ImageRunnerVersion = %q, %v, %v, want v9.1 (abc1234)", v, found, err)
	}
	without := testImage(t, "")
	if v, found, err := harness.ImageRunnerVersion(ctx, without); err != nil || found {
		t.Errorf("ImageRunnerVersion of an image without the runner = %q, %v, %v, want not found", v, found, err)
	}
}

// TestImageRunnerLinked: a runner that the image links to
// /usr/local/bin/efaxx-runner, or that sits in a linked directory, runs
// in the container as the runner itself does, and its version is read
// through the links; a link to nowhere, or a loop, is no runner. A
// corrupt image says what unsquashfs said, not that it holds no runner.
func TestImageRunnerLinked(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		name  string
		links map[string]string // link (from the root) -> target; the runner is at opt/efaxx/efaxx-runner
		found bool
	}{
		{"absolute", map[string]string{"usr/local/bin/efaxx-runner": "/opt/efaxx/efaxx-runner"}, true},
		{"relative", map[string]string{"usr/local/bin/efaxx-runner": "../../../opt/efaxx/efaxx-runner"}, true},
		{"two links", map[string]string{"usr/local/bin/efaxx-runner": "runner", "usr/local/bin/runner": "/opt/efaxx/efaxx-runner"}, true},
		{"linked directory", map[string]string{"usr/local": "/opt/local", "opt/local/bin/efaxx-runner": "/opt/efaxx/efaxx-runner"}, true},
		{"dangling", map[string]string{"usr/local/bin/efaxx-runner": "/opt/efaxx/missing"}, false},
		{"loop", map[string]string{"usr/local/bin/efaxx-runner": "a", "usr/local/bin/a": "efaxx-runner"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "root")
			goRunner(t, "v9.2", filepath.Join(root, "opt", "efaxx", "efaxx-runner"))
			for link, target := range tt.links {
				if err := os.MkdirAll(filepath.Join(root, filepath.Dir(link)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
					t.Fatal(err)
				}
			}
			v, found, err := harness.ImageRunnerVersion(ctx, squash(t, root))
			switch {
			case tt.found && (err != nil || !found || v != "v9.2 (abc1234)"):
				t.Errorf("ImageRunnerVersion = %q, %v, %v, want v9.2 (abc1234)", v, found, err)
			case !tt.found && found:
				t.Errorf("ImageRunnerVersion = %q, %v, %v, want no runner", v, found, err)
			}
		})
	}
	image := testImage(t, "v9.1")
	b, err := os.ReadFile(image)
	if err != nil {
		t.Fatal(err)
	}
	corrupt := filepath.Join(t.TempDir(), "corrupt.sqsh")
	if err := os.WriteFile(corrupt, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if v, found, err := harness.ImageRunnerVersion(ctx, corrupt); err == nil || !strings.Contains(err.Error(), "unsquashfs") {
		t.Errorf("ImageRunnerVersion of a corrupt image = %q, %v, %v, want unsquashfs's error", v, found, err)
	}
}

// testImage writes a squashfs that holds, where every efaxx image does, a
// Go program linked as make build links efaxx-runner, with -X
// main.version=version and main.commit=abc1234, and stand-ins for
// /bin/sh and /usr/bin/env; with version "", an image without the runner.
func testImage(t *testing.T, version string) string {
	t.Helper()
	return testImageEnv(t, version, true)
}

// testImageEnv is testImage, with /usr/bin/env only when env is true.
// Its /bin is a link to usr/bin, as in Debian's images.
func testImageEnv(t *testing.T, version string, env bool) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "root")
	if err := os.MkdirAll(filepath.Join(root, "usr", "local", "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if env {
		if err := os.MkdirAll(filepath.Join(root, "usr", "bin"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "usr", "bin", "env"), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(root, "usr", "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "usr", "bin", "sh"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("usr/bin", filepath.Join(root, "bin")); err != nil {
		t.Fatal(err)
	}
	if version != "" {
		goRunner(t, version, filepath.Join(root, harness.ImageRunner))
	}
	return squash(t, root)
}

// goRunner builds, at path, a Go program linked as make build links
// efaxx-runner, with -X main.version=version and main.commit=abc1234.
func goRunner(t *testing.T, version, path string) {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "main.go")
	if err := os.WriteFile(src, []byte("package main\n\nvar version, commit = \"dev\", \"unknown\"\n\nfunc main() { println(version, commit) }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	build := exec.Command("go", "build", "-ldflags", "-X main.version="+version+" -X main.commit=abc1234", "-o", path, src)
	build.Dir, build.Env = dir, append(os.Environ(), "GOFLAGS=", "GO111MODULE=off")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
}

// squash writes the directory root into a squashfs file and returns its path.
func squash(t *testing.T, root string) string {
	t.Helper()
	if _, err := exec.LookPath("mksquashfs"); err != nil {
		t.Fatal("mksquashfs not found: make deps installs squashfs-tools")
	}
	out := filepath.Join(t.TempDir(), "efaxx.sqsh")
	if b, err := exec.Command("mksquashfs", root, out, "-noappend", "-quiet", "-no-progress").CombinedOutput(); err != nil {
		t.Fatalf("mksquashfs: %v\n%s", err, b)
	}
	return out
}

func TestContainerFailure(t *testing.T) {
	const image = "/images/efaxx.sqsh"
	tests := []struct{ name, log, want string }{
		{"no runner in the image",
			"/usr/bin/env: '/usr/local/bin/efaxx-runner': No such file or directory\n" +
				"srun: error: h1: task 0: Exited with exit code 127\n",
			"the container image /images/efaxx.sqsh holds no /usr/local/bin/efaxx-runner (docs/slurm.md says how to build the image)"},
		{"enroot's error",
			"pyxis: creating container filesystem: efaxx_ab12_7\n" +
				"slurmstepd: error: pyxis: child 4242 failed with error code: 1\n" +
				"slurmstepd: error: pyxis: failed to create container filesystem\n" +
				"slurmstepd: error: pyxis: printing enroot log file:\n" +
				"slurmstepd: error: pyxis:     [ERROR] Invalid image format: /images/efaxx.sqsh\n" +
				"slurmstepd: error: pyxis: couldn't start container\n" +
				"slurmstepd: error: spank: required plugin spank_pyxis.so: task_init_privileged() failed with rc=-1\n",
			"the container did not start: pyxis: [ERROR] Invalid image format: /images/efaxx.sqsh"},
		{"a tool enroot ran failed: the end of enroot's log",
			"pyxis: creating container filesystem: efaxx_ab12_7\n" +
				"slurmstepd: error: pyxis: failed to create container filesystem for image: /images/efaxx.sqsh\n" +
				"slurmstepd: error: pyxis: printing enroot log file:\n" +
				"slurmstepd: error: pyxis:     [INFO] Extracting squashfs filesystem...\n" +
				"slurmstepd: error: pyxis:     \n" +
				"slurmstepd: error: pyxis:     Parallel unsquashfs: Using 2 processors\n" +
				"slurmstepd: error: pyxis:     FATAL ERROR: failed to read file /images/efaxx.sqsh\n" +
				"slurmstepd: error: pyxis: couldn't start container\n",
			"the container did not start: pyxis: failed to create container filesystem for image: /images/efaxx.sqsh; " +
				"enroot: [INFO] Extracting squashfs filesystem...; Parallel unsquashfs: Using 2 processors; " +
				"FATAL ERROR: failed to read file /images/efaxx.sqsh"},
		{"pyxis's own error",
			"slurmstepd: error: pyxis: couldn't start container\nsrun: error: h1: task 0: Exited with exit code 1\n",
			"the container did not start: pyxis: couldn't start container"},
		{"a task killed after another failed, first in the log",
			"slurmstepd: error: pyxis: child 10549 terminated with signal 15\n" +
				"slurmstepd: error: pyxis: --container-mounts: source path does not exist: /data\n" +
				"srun: error: h1: task 0: Exited with exit code 1\n",
			"the container did not start: pyxis: --container-mounts: source path does not exist: /data"},
		// srun --label's task numbers (the testbed, 2026-11-28): task 0's
		// pyxis was killed, and then failed to create its container,
		// before task 1 said why; its log's lines are not the cause either.
		{"a killed task's failure first, labeled",
			"0: slurmstepd-h1: error: pyxis: child 28128 terminated with signal 15\n" +
				"0: slurmstepd-h1: error: pyxis: failed to create container filesystem for image: /images/efaxx.sqsh\n" +
				"0: slurmstepd-h1: error: pyxis: printing enroot log file:\n" +
				"1: slurmstepd-h2: error: pyxis: --container-mounts: source path does not exist: /data\n" +
				"1: slurmstepd-h2: error: pyxis: printing enroot log file:\n" +
				"0: slurmstepd-h1: error: pyxis:     [INFO] Extracting squashfs filesystem...\n" +
				"1: slurmstepd-h2: error: pyxis:     [INFO] Extracting squashfs filesystem...\n" +
				"1: slurmstepd-h2: error: pyxis:     created 2 hardlinks\n" +
				"1: slurmstepd-h2: error: pyxis: container was not started successfully by another task\n",
			"the container did not start: pyxis: --container-mounts: source path does not exist: /data; " +
				"enroot: [INFO] Extracting squashfs filesystem...; created 2 hardlinks"},
		{"only a killed task", "slurmstepd: error: pyxis: child 10549 terminated with signal 15\n",
			"the container did not start: pyxis: child 10549 terminated with signal 15"},
		{"a rank's failure", "efaxx-runner: rank 1 on h2: size 4096: timeout\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := harness.ContainerFailure([]byte(tt.log), image); got != tt.want {
				t.Errorf("ContainerFailure =\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}
