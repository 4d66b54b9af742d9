package slurm_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"efaxx/slurm"
)

// TestExecCommanderOwnGroup: a command runs in a process group of its
// own, so that a Ctrl-C at the terminal does not kill an sbatch midway.
func TestExecCommanderOwnGroup(t *testing.T) {
	// The shell's pid, and its process group from /proc.
	out, err := (&slurm.ExecCommander{}).Run(t.Context(), "sh", "-c", `echo $$ $(cut -d" " -f5 /proc/$$/stat)`)
	if err != nil {
		t.Fatal(err)
	}
	if f := strings.Fields(string(out)); len(f) != 2 || f[0] != f[1] {
		t.Errorf("pid and process group = %q, want a group led by the command", out)
	}
}

// TestExecCommanderStopped: a command stopped through its context says
// so, and carries the cause, rather than blaming Slurm for not answering.
func TestExecCommanderStopped(t *testing.T) {
	stop := errors.New("interrupted (SIGINT)")
	ctx, cancel := context.WithCancelCause(t.Context())
	time.AfterFunc(50*time.Millisecond, func() { cancel(stop) })
	_, err := (&slurm.ExecCommander{}).Run(ctx, "sleep", "10")
	if !errors.Is(err, stop) || strings.Contains(err.Error(), "no answer") {
		t.Errorf("Run = %v, want the cause, not a timeout", err)
	}
}

// TestNotInstalled: where a Slurm command is not on PATH, Slurm is not
// installed here, which is no cluster to ask, as where none is configured;
// a command that is not Slurm's is only itself missing.
func TestNotInstalled(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	c := slurm.NewClient()
	_, err := c.Partitions(t.Context())
	if !errors.Is(err, slurm.ErrNoCluster) || !errors.Is(err, exec.ErrNotFound) {
		t.Fatalf("Partitions without sinfo = %v, want ErrNoCluster and exec.ErrNotFound", err)
	}
	if got, want := slurm.NoClusterHere(err), "Slurm is not installed here (no sinfo on PATH)"; got != want {
		t.Errorf("NoClusterHere(%v) = %q, want %q", err, got, want)
	}
	if _, err := c.MPIPlugins(t.Context()); !errors.Is(err, slurm.ErrNoCluster) {
		t.Errorf("MPIPlugins without srun = %v, want ErrNoCluster", err)
	}
	if _, err := c.Commander.Run(t.Context(), "fi_info", "-l"); err == nil || errors.Is(err, slurm.ErrNoCluster) {
		t.Errorf("fi_info not on PATH = %v, want an error that is not ErrNoCluster", err)
	}
	noConf := &slurm.CommandError{Name: "sinfo", Code: 1, Stderr: "sinfo: fatal: Could not establish a configuration source\n"}
	if got := slurm.NoClusterHere(fmt.Errorf("sinfo: %w", noConf)); !strings.HasPrefix(got, "no Slurm cluster is configured here") {
		t.Errorf("NoClusterHere(no configuration source) = %q", got)
	}
}

// TestExecCommanderSbatchEnv: sbatch runs without the variables of its
// environment that would make the job an array, make sbatch wait for the
// job's end, send the job to another cluster than efaxx's queries ask,
// move the script's standard error, or give pyxis container options that
// the sweep did not (PYXIS_CONTAINER_*, which sbatch and each step's
// srun read); the others (a site's SBATCH_ACCOUNT, SLURM_CLUSTERS, which
// the queries read too) stay.
func TestExecCommanderSbatchEnv(t *testing.T) {
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "sbatch"), []byte("#!/bin/sh\nenv\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+":"+os.Getenv("PATH"))
	for _, k := range []string{"SBATCH_ARRAY_INX", "SBATCH_WAIT", "SBATCH_CLUSTERS", "SLURM_CLUSTERS", "SBATCH_ERROR", "SBATCH_ACCOUNT",
		"PYXIS_CONTAINER_IMAGE", "PYXIS_CONTAINER_WORKDIR", "PYXIS_CONTAINER_REMAP_ROOT"} {
		t.Setenv(k, "x")
	}
	out, err := (&slurm.ExecCommander{}).Run(t.Context(), "sbatch")
	if err != nil {
		t.Fatal(err)
	}
	env := "\n" + string(out)
	for _, k := range []string{"SBATCH_ARRAY_INX", "SBATCH_WAIT", "SBATCH_CLUSTERS", "SBATCH_ERROR",
		"PYXIS_CONTAINER_IMAGE", "PYXIS_CONTAINER_WORKDIR", "PYXIS_CONTAINER_REMAP_ROOT"} {
		if strings.Contains(env, "\n"+k+"=") {
			t.Errorf("sbatch ran with %s set", k)
		}
	}
	for _, kv := range []string{"SBATCH_ACCOUNT=x", "SLURM_CLUSTERS=x", "SLURM_TIME_FORMAT=%s"} {
		if !strings.Contains(env, "\n"+kv+"\n") {
			t.Errorf("sbatch's environment lacks %s:\n%s", kv, out)
		}
	}
}
