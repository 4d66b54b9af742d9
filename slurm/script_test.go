package slurm_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"efaxx/slurm"
)

// These tests run rendered scripts in a real bash, with srun replaced by a
// stub on PATH that records its arguments and environment, so they check
// what the script hands srun, and the markers it leaves, without Slurm.
// (The tests under cmd/efaxx run the same scripts through a real Slurm.)

// stubSrun writes an srun that appends its argv, NUL-separated, to
// $STUB/argv-<n>, records HOSTILE_ENV and INSIDE_ONLY from its
// environment, prints a line,
// and exits with the status named in $STUB/rc-<n> (0 when absent), or
// sleeps when $STUB/sleep-<n> exists.
const stubSrun = `#!/bin/bash
n=$(ls "$STUB" | grep -c '^argv-')
printf '%s\0' "$@" >"$STUB/argv-$n"
printf '%s' "${HOSTILE_ENV-unset}" >"$STUB/env-$n"
printf '%s' "${INSIDE_ONLY-unset}" >"$STUB/inside-$n"
echo "stub srun call $n"
[ -e "$STUB/sleep-$n" ] && exec sleep 30
exit "$(cat "$STUB/rc-$n" 2>/dev/null || echo 0)"
`

// hostileValue would run a command, if any quoting let the shell see it.
func hostileValue(canary string) string {
	return "x; touch " + canary + " $(touch " + canary + ") `touch " + canary + "` '\" a#b"
}

type scriptRun struct {
	stub, jobDir string
	steps        []string
	canary       string
}

func setupScript(t *testing.T, withContainer bool) (*scriptRun, *slurm.Job) {
	t.Helper()
	base := t.TempDir()
	r := &scriptRun{stub: filepath.Join(base, "stub"), canary: filepath.Join(base, "CANARY")}
	// Directories with spaces and shell syntax in their names.
	r.jobDir = filepath.Join(base, "job $(touch "+r.canary+") 'q'")
	for i := range 2 {
		r.steps = append(r.steps, filepath.Join(base, "run `touch "+r.canary+"`", "00"+string(rune('0'+i))))
	}
	for _, d := range []string{r.stub, r.jobDir, filepath.Join(base, "bin")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(base, "bin", "srun"), []byte(stubSrun), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", filepath.Join(base, "bin")+":"+os.Getenv("PATH"))
	t.Setenv("STUB", r.stub)
	t.Setenv("SLURM_JOB_ID", "42")
	t.Setenv("SLURM_JOB_NODELIST", "h[1-2]")
	hv := hostileValue(r.canary)
	job := &slurm.Job{Name: "efaxx-test", Dir: r.jobDir, Alloc: slurm.Alloc{Nodes: 2, NTasks: 2},
		Env: []slurm.EnvVar{{Name: "HOSTILE_ENV", Value: hv}}}
	for i, dir := range r.steps {
		s := slurm.Step{Name: "p00" + string(rune('0'+i)), Dir: dir, Nodes: 2, NTasks: 2, MPI: "pmix",
			Command: []string{"/opt/efaxx runner", "--label", hv}}
		if withContainer {
			s.Container = &slurm.Container{Image: "nvcr.io#nvidia/x:1 " + hv, Name: "efaxx_ab12",
				Mounts: []string{"/data ;x|y'&*:/data:ro", "/s:/s"}, Workdir: "/w 'x' > #y",
				Env: []slurm.EnvVar{{Name: "INSIDE_ONLY", Value: hv}, {Name: "PATH", Value: "/opt/conda/bin"}}}
		}
		job.Steps = append(job.Steps, s)
	}
	return r, job
}

// start renders job into its directory and starts bash on it.
func (r *scriptRun) start(t *testing.T, job *slurm.Job) *exec.Cmd {
	t.Helper()
	script, err := slurm.Render(t.Context(), job)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(r.jobDir, "job.sh")
	if err := os.WriteFile(path, script, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", path)
	cmd.Dir = r.jobDir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// startHeld starts the script with srun's call n held (the stub sleeps
// in it), and returns once that call runs.
func (r *scriptRun) startHeld(t *testing.T, job *slurm.Job, n int) *exec.Cmd {
	t.Helper()
	if err := os.WriteFile(filepath.Join(r.stub, fmt.Sprintf("sleep-%d", n)), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := r.start(t, job)
	waitFile(t, filepath.Join(r.stub, fmt.Sprintf("argv-%d", n)))
	return cmd
}

func (r *scriptRun) argv(t *testing.T, n int) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(r.stub, "argv-"+string(rune('0'+n))))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
}

func (r *scriptRun) checkCanary(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(r.canary); err == nil {
		t.Fatal("an injected command ran: the canary file exists")
	}
}

func TestScriptPassesValuesVerbatim(t *testing.T) {
	r, job := setupScript(t, true)
	if err := os.WriteFile(filepath.Join(r.stub, "rc-1"), []byte("3"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := r.start(t, job)
	err := cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 1 {
		t.Fatalf("script exit = %d (%v), want 1: a step failed", code, err)
	}
	r.checkCanary(t)
	hv := hostileValue(r.canary)
	want := []string{"--job-name=p000", "--nodes=2", "--ntasks=2", "--mpi=pmix", "--kill-on-bad-exit=1", "--label",
		"--output=" + r.steps[0] + "/step-%J.out",
		"--container-image=nvcr.io#nvidia/x:1 " + hv, "--container-name=efaxx_ab12_42",
		"--container-mounts=/data ;x|y'&*:/data:ro,/s:/s", "--container-workdir=/w 'x' > #y",
		"--no-container-mount-home", "/usr/bin/env", "INSIDE_ONLY=" + hv, "PATH=/opt/conda/bin",
		"/opt/efaxx runner", "--label", hv}
	if got := r.argv(t, 0); !equal(got, want) {
		t.Errorf("srun argv =\n%q\nwant\n%q", got, want)
	}
	if argv := job.Steps[0].Argv("42"); argv[0] != "srun" || !equal(argv[1:], want) {
		t.Errorf("Argv(42) = %q, want srun and the arguments the script passed", argv)
	}
	if env, _ := os.ReadFile(filepath.Join(r.stub, "env-0")); string(env) != hv {
		t.Errorf("exported HOSTILE_ENV = %q, want %q", env, hv)
	}
	// The container's variables reach env(1) inside the container as
	// words, never the script's environment: its PATH stays the host's.
	if env, _ := os.ReadFile(filepath.Join(r.stub, "inside-0")); string(env) != "unset" {
		t.Errorf("srun saw INSIDE_ONLY = %q, want it unset: a container's variables are set inside only", env)
	}
	checkStep(t, r.steps[0], "rc=0 signal=-", "stub srun call 0")
	checkStep(t, r.steps[1], "rc=3 signal=-", "stub srun call 1")
	checkMarker(t, filepath.Join(r.jobDir, slurm.JobExitMarker), "rc=1 signal=-")
	checkMarker(t, filepath.Join(r.jobDir, slurm.JobStartMarker), "job=42 nodes=h[1-2]")
}

// TestScriptRecordsSignal: Slurm's SIGTERM (scancel, the time limit) while
// a step runs leaves signal=TERM on the step and the job.
func TestScriptRecordsSignal(t *testing.T) {
	r, job := setupScript(t, false)
	cmd := r.startHeld(t, job, 1)
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 143 {
		t.Errorf("script exit = %d, want 143", code)
	}
	checkStep(t, r.steps[0], "rc=0 signal=-", "")
	checkMarker(t, filepath.Join(r.steps[1], slurm.StepExitMarker), "rc=143 signal=TERM")
	checkMarker(t, filepath.Join(r.jobDir, slurm.JobExitMarker), "rc=143 signal=TERM")
	m, err := slurm.ReadStepMarkers(r.steps[1])
	if err != nil || m.Start.IsZero() || m.Exit == nil || m.Exit.Signal != "TERM" || m.Exit.Code != 143 {
		t.Errorf("ReadStepMarkers = %+v, %v", m, err)
	}
	r.checkCanary(t)
}

// TestScriptRequeued: a job that Slurm requeues runs its script again
// (a node failure, a preemption, scontrol requeue); the exit markers of
// the run before are gone once the new run starts, and each step's once
// it starts again, so that nothing reads them as this run's end.
func TestScriptRequeued(t *testing.T) {
	r, job := setupScript(t, false)
	cmd := r.startHeld(t, job, 1)
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	checkMarker(t, filepath.Join(r.jobDir, slurm.JobExitMarker), "rc=143 signal=TERM")

	// The second run: its first step is srun's call 2.
	cmd = r.startHeld(t, job, 2)
	for _, path := range []string{filepath.Join(r.jobDir, slurm.JobExitMarker), filepath.Join(r.steps[0], slurm.StepExitMarker)} {
		if b, err := os.ReadFile(path); err == nil {
			t.Errorf("%s = %q while the job runs again, want none", path, b)
		}
	}
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	checkMarker(t, filepath.Join(r.steps[0], slurm.StepExitMarker), "rc=143 signal=TERM")
}

func checkStep(t *testing.T, dir, exit, log string) {
	t.Helper()
	checkMarker(t, filepath.Join(dir, slurm.StepExitMarker), exit)
	checkMarker(t, filepath.Join(dir, slurm.StepStartMarker), "start=")
	if b, _ := os.ReadFile(filepath.Join(dir, slurm.LogName)); !bytes.Contains(b, []byte(log)) {
		t.Errorf("%s/%s = %q, want %q", dir, slurm.LogName, b, log)
	}
}

func checkMarker(t *testing.T, path, prefix string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil || !strings.HasPrefix(string(b), prefix) {
		t.Errorf("marker %s = %q, %v, want it to start with %q", path, b, err, prefix)
	}
}

func waitFile(t *testing.T, path string) {
	t.Helper()
	for i := 0; i < 200; i++ {
		if _, err := os.Stat(path); err == nil {
			return
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatalf("%s did not appear", path)
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestValidateContainer: what a container step cannot carry is refused
// before a script is written.
func TestValidateContainer(t *testing.T) {
	tests := []struct {
		name string
		c    slurm.Container
		cmd  string
		want string
	}{
		{"bad variable name", slurm.Container{Image: "/i.sqsh", Name: "e", Env: []slurm.EnvVar{{Name: "A-B", Value: "1"}}}, "/r",
			`render job "j": step 0: container environment variable name "A-B": want letters, digits and '_', not starting with a digit`},
		{"line break in a value", slurm.Container{Image: "/i.sqsh", Name: "e", Env: []slurm.EnvVar{{Name: "A", Value: "1\n2"}}}, "/r",
			`render job "j": step 0: container environment variable A "1\n2": holds control character U+000A (a line break ends a script line)`},
		// pyxis writes each mount into a script that enroot sources.
		{"command in a mount", slurm.Container{Image: "/i.sqsh", Name: "e", Mounts: []string{"/tmp:/mnt/$(touch /tmp/x)"}}, "/r",
			`render job "j": step 0: container mount "/tmp:/mnt/$(touch /tmp/x)": holds "$", which pyxis and enroot read through a shell`},
		{"quote in a mount", slurm.Container{Image: "/i.sqsh", Name: "e", Mounts: []string{`/a"b:/a`}}, "/r",
			`render job "j": step 0: container mount "/a\"b:/a": holds "\"", which pyxis and enroot read through a shell`},
		{"backtick in the workdir", slurm.Container{Image: "/i.sqsh", Name: "e", Workdir: "/w`id`"}, "/r",
			"render job \"j\": step 0: container workdir \"/w`id`\": holds \"`\", which pyxis and enroot read through a shell"},
		{"program with '='", slurm.Container{Image: "/i.sqsh", Name: "e", Env: []slurm.EnvVar{{Name: "A", Value: "1"}}}, "/r=1",
			`render job "j": step 0: command "/r=1": holds '=', which /usr/bin/env reads as a variable`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.c
			job := &slurm.Job{Name: "j", Dir: "/jobs/j", Steps: []slurm.Step{{Name: "s", Dir: "/runs/s", Container: &c, Command: []string{tt.cmd}}}}
			if _, err := slurm.Render(t.Context(), job); err == nil || err.Error() != tt.want {
				t.Errorf("Render error =\n%v\nwant\n%s", err, tt.want)
			}
		})
	}
}
