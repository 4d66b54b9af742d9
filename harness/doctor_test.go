package harness_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"efaxx/harness"
	"efaxx/slurm"
	"efaxx/slurm/mock"
)

// doctorSlurm answers doctor's commands as a cluster without pyxis would.
func doctorSlurm() *slurm.Client {
	return &slurm.Client{Commander: &mock.Commander{RunFunc: func(_ context.Context, name string, args ...string) ([]byte, error) {
		switch cmd := name + " " + strings.Join(args, " "); cmd {
		case "sinfo -h -o %R|%a|%F|%l":
			return []byte("debug|up|1/3/0/4|infinite\n"), nil
		case "srun --mpi=list":
			return []byte("MPI plugin types are...\n\tpmix\n\tnone\n"), nil
		case "srun --help":
			return []byte("Usage: srun [OPTIONS...] executable [args...]\n      --container=PATH\n"), nil
		case "fi_info -l":
			return []byte("tcp:\n    version: 117.0\nshm:\n    version: 117.0\n"), nil
		case "fi_info -p tcp -t FI_EP_RDM":
			return []byte("provider: tcp;ofi_rxm\n    domain: nic0\nprovider: tcp;ofi_rxm\n    domain: lo\n"), nil
		case "enroot version":
			return nil, errors.New(`exec: "enroot": executable file not found in $PATH`)
		case "/opt/efaxx-runner --version":
			return []byte("efaxx-runner v1 (abc)\n"), nil
		}
		return nil, fmt.Errorf("unexpected command %s %q", name, args)
	}}}
}

// noCluster answers doctor's commands as a machine without a Slurm
// cluster does: every Slurm command fails as sinfo does there, where no
// cluster is configured, or, where Slurm is not installed, is not found on
// PATH (as slurm.ExecCommander says it).
func noCluster(installed bool) *slurm.Client {
	cluster := doctorSlurm()
	return &slurm.Client{Commander: &mock.Commander{RunFunc: func(ctx context.Context, name string, args ...string) ([]byte, error) {
		if name == "sinfo" || name == "srun" {
			if !installed {
				return nil, fmt.Errorf("%s: %w", name, &exec.Error{Name: name, Err: exec.ErrNotFound})
			}
			return nil, &slurm.CommandError{Name: name, Args: args, Code: 1, Stderr: name + ": error: resolve_ctls_from_dns_srv: " +
				"res_nsearch error: Unknown host\n" + name + ": fatal: Could not establish a configuration source\n"}
		}
		return cluster.Commander.Run(ctx, name, args...)
	}}}
}

// TestDoctorNoCluster: where no cluster is configured, or Slurm is not
// installed, doctor says so once, and that local runs work, instead of
// failing on each of Slurm's commands; only a sweep that asks for Slurm
// fails.
func TestDoctorNoCluster(t *testing.T) {
	for _, tt := range []struct {
		name      string
		installed bool
		why       string
	}{
		{"not configured", true, "no Slurm cluster is configured here (no slurm.conf"},
		{"not installed", false, "Slurm is not installed here (no sinfo on PATH)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := harness.DoctorOptions{RunnerPath: "/opt/efaxx-runner", Workdir: t.TempDir()}
			var got []string
			checks := harness.Doctor(t.Context(), noCluster(tt.installed), o)
			for _, c := range checks {
				got = append(got, c.Name+" "+c.Status)
			}
			if want := "slurm warn, libfabric ok, nics ok, runner ok, workdir warn"; strings.Join(got, ", ") != want ||
				!strings.Contains(checks[0].Detail, tt.why) || !strings.Contains(checks[0].Detail, "efaxx run runs") {
				t.Errorf("checks = %q (%s), want %s saying %q", got, checks[0].Detail, want, tt.why)
			}
			o.Sweep = mustParse(t, head+"[slurm]\npartition = \"gpu\"\n")
			if c := harness.Doctor(t.Context(), noCluster(tt.installed), o)[0]; c.Status != harness.CheckFail || !strings.Contains(c.Detail, tt.why) {
				t.Errorf("a [slurm] sweep without a cluster: %s %s, want FAIL saying %q", c.Status, c.Detail, tt.why)
			}
		})
	}
}

func TestDoctor(t *testing.T) {
	tests := []struct {
		name, sweep string
		want        []string // "name status" of each check, in order
	}{
		{"no sweep", "", []string{"slurm ok", "mpi ok", "pyxis warn", "libfabric ok", "nics ok", "runner ok", "workdir warn"}},
		{"container sweep", head + "[slurm]\npartition = \"gpu\"\nmpi = \"pmi2\"\n[container]\nimage = \"/nowhere/efaxx.sqsh\"\n",
			[]string{"slurm FAIL", "mpi FAIL", "pyxis FAIL", "enroot warn", "image FAIL", "libfabric ok", "nics ok", "runner ok", "workdir warn"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := harness.DoctorOptions{RunnerPath: "/opt/efaxx-runner", Workdir: t.TempDir()}
			if tt.sweep != "" {
				o.Sweep = mustParse(t, tt.sweep)
			}
			var got []string
			for _, c := range harness.Doctor(t.Context(), doctorSlurm(), o) {
				got = append(got, c.Name+" "+c.Status)
				if c.Name == "nics" && !strings.Contains(c.Detail, "nic0, lo") {
					t.Errorf("nics detail = %q", c.Detail)
				}
			}
			if strings.Join(got, ", ") != strings.Join(tt.want, ", ") {
				t.Errorf("checks = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestDoctorImage: the image is checked inside, without running it.
func TestDoctorImage(t *testing.T) {
	tests := []struct {
		name, runner, status, detail string
	}{
		{"same version", "v1", harness.CheckOK, "holds efaxx-runner v1 (abc1234)"},
		{"other version", "v0", harness.CheckWarn, "holds efaxx-runner v0 (abc1234), this efaxx is v1 (abc1234): rebuild the image to match"},
		{"no runner", "", harness.CheckFail, "holds no /usr/local/bin/efaxx-runner: its points would fail"},
		{"no env", "v1", harness.CheckFail, "holds no /usr/bin/env, which starts /usr/local/bin/efaxx-runner with the sweep's variables: its points would fail"},
		{"no shell", "v1", harness.CheckFail, "holds no /bin/sh, which pyxis starts the container with: its points would fail"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			image := testImageEnv(t, tt.runner, tt.name != "no env")
			if tt.name == "no shell" {
				image = noShell(t, tt.runner)
			}
			o := harness.DoctorOptions{Workdir: t.TempDir(), Version: "v1 (abc1234)",
				Sweep: mustParse(t, head+"[container]\nimage = \""+image+"\"\n")}
			var found bool
			for _, c := range harness.Doctor(t.Context(), doctorSlurm(), o) {
				if c.Name == "image" {
					found = true
					if c.Status != tt.status || !strings.Contains(c.Detail, "sha256:") || !strings.Contains(c.Detail, tt.detail) {
						t.Errorf("image check = %+v, want %s with the digest and %q", c, tt.status, tt.detail)
					}
				}
			}
			if !found {
				t.Error("no image check")
			}
		})
	}
}

// TestDoctorMPIWhose: the mpi check names whose --mpi it checks: efaxx's
// default when no sweep is given or the sweep sets no [slurm] mpi, the
// sweep's own when it sets one. No sweep asked for the default.
func TestDoctorMPIWhose(t *testing.T) {
	cluster := doctorSlurm()
	client := &slurm.Client{Commander: &mock.Commander{RunFunc: func(ctx context.Context, name string, args ...string) ([]byte, error) {
		if name == "srun" && len(args) == 1 && args[0] == "--mpi=list" {
			return []byte("MPI plugin types are...\n\tnone\n\tpmi2\n"), nil
		}
		return cluster.Commander.Run(ctx, name, args...)
	}}}
	for _, tt := range []struct {
		name, sweep, status, detail string
	}{
		{"no sweep", "", harness.CheckFail,
			"efaxx's default is --mpi=pmix (a sweep's [slurm] mpi picks another); srun --mpi takes: none, pmi2"},
		{"sweep without mpi", head + "[slurm]\npartition = \"debug\"\n", harness.CheckFail,
			"the sweep sets no [slurm] mpi, so efaxx's default --mpi=pmix; srun --mpi takes: none, pmi2"},
		{"sweep asks for pmix", head + "[slurm]\nmpi = \"pmix\"\n", harness.CheckFail,
			"the sweep asks for --mpi=pmix; srun --mpi takes: none, pmi2"},
		{"sweep asks for pmi2", head + "[slurm]\nmpi = \"pmi2\"\n", harness.CheckOK, "srun --mpi takes: none, pmi2"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := harness.DoctorOptions{Workdir: t.TempDir()}
			if tt.sweep != "" {
				o.Sweep = mustParse(t, tt.sweep)
			}
			var mpi *harness.Finding
			for _, c := range harness.Doctor(t.Context(), client, o) {
				if c.Name == "mpi" {
					mpi = &c
				}
			}
			if mpi == nil || mpi.Status != tt.status || mpi.Detail != tt.detail {
				t.Errorf("mpi check = %+v, want %s %q", mpi, tt.status, tt.detail)
			}
		})
	}
}

// TestDoctorWorkdir: a workdir that submit refuses fails doctor's check
// with submit's reason: a space, which a container's mount of the
// session cannot carry, and a backslash, which sbatch's file names
// cannot; without a container the space is fine, and without a cluster
// to submit to, the refusal is a warning.
func TestDoctorWorkdir(t *testing.T) {
	spaced := filepath.Join(t.TempDir(), "my runs")
	for _, tt := range []struct {
		name, workdir, sweep, status, detail string
		noCluster                            bool
	}{
		{"space, container", spaced, head + "[container]\nimage = \"nvcr.io#nvidia/efaxx:1\"\n", harness.CheckFail,
			`workdir "` + spaced + `": holds " ", which pyxis and enroot cannot carry in a container path; submit refuses it`, false},
		{"space, no container", spaced, head, harness.CheckWarn, spaced + " is on", false},
		{"backslash", spaced + `\x`, head, harness.CheckFail, "holds a backslash", false},
		{"backslash, no cluster", spaced + `\x`, head, harness.CheckWarn, "holds a backslash", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := harness.DoctorOptions{Workdir: tt.workdir, Sweep: mustParse(t, tt.sweep)}
			client := doctorSlurm()
			if tt.noCluster {
				client = noCluster(true)
			}
			checks := harness.Doctor(t.Context(), client, o)
			if c := checks[len(checks)-1]; c.Name != "workdir" || c.Status != tt.status || !strings.Contains(c.Detail, tt.detail) {
				t.Errorf("workdir check = %+v, want %s saying %q", c, tt.status, tt.detail)
			}
		})
	}
}

// TestDoctorMounts: a [container] mount whose source this machine lacks
// is a warning that names it, as pyxis fails the step on a node that
// lacks it; one that is here is ok.
func TestDoctorMounts(t *testing.T) {
	here := t.TempDir()
	for _, tt := range []struct {
		mounts, status, detail string
	}{
		{`["` + here + `:/data"]`, harness.CheckOK, here + " on this machine"},
		{`["` + here + `:/data", "/nonexistent-efaxx:/x:ro"]`, harness.CheckWarn,
			"not on this machine: /nonexistent-efaxx (no such file or directory); pyxis fails every step on a node that lacks a mount's source"},
	} {
		o := harness.DoctorOptions{Workdir: t.TempDir(),
			Sweep: mustParse(t, head+"[container]\nimage = \"nvcr.io#nvidia/efaxx:1\"\nmounts = "+tt.mounts+"\n")}
		var mounts *harness.Finding
		for _, c := range harness.Doctor(t.Context(), doctorSlurm(), o) {
			if c.Name == "mounts" {
				mounts = &c
			}
		}
		if mounts == nil || mounts.Status != tt.status || !strings.Contains(mounts.Detail, tt.detail) {
			t.Errorf("mounts %s: check = %+v, want %s saying %q", tt.mounts, mounts, tt.status, tt.detail)
		}
	}
}

// noShell writes an image with efaxx-runner of version and /usr/bin/env,
// but no /bin/sh.
func noShell(t *testing.T, version string) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "root")
	goRunner(t, version, filepath.Join(root, harness.ImageRunner))
	if err := os.MkdirAll(filepath.Join(root, "usr", "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "usr", "bin", "env"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return squash(t, root)
}
