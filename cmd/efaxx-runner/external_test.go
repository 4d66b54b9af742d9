package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"efaxx/results/record"
)

func TestRankFromEnv(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want launchRank
		err  string
	}{
		{"mpirun", map[string]string{"OMPI_COMM_WORLD_RANK": "3", "OMPI_COMM_WORLD_SIZE": "4",
			"OMPI_COMM_WORLD_LOCAL_RANK": "1", "OMPI_COMM_WORLD_LOCAL_SIZE": "2", "SLURM_PROCID": "9"}, launchRank{3, 4, 1, 2}, ""},
		{"srun", map[string]string{"SLURM_PROCID": "5", "SLURM_NTASKS": "16", "SLURM_LOCALID": "5"}, launchRank{5, 16, 5, 0}, ""},
		{"pmi", map[string]string{"PMI_RANK": "1", "PMI_SIZE": "2"}, launchRank{1, 2, 0, 0}, ""},
		{"none", map[string]string{}, launchRank{}, "no rank in the environment"},
		{"garbage", map[string]string{"SLURM_PROCID": "x"}, launchRank{}, `SLURM_PROCID="x": not a rank`},
	}
	for _, tt := range tests {
		got, err := rankFromEnv(func(k string) string { return tt.env[k] })
		if got != tt.want || (err == nil) != (tt.err == "") || (err != nil && !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("%s: rankFromEnv = %+v, %v; want %+v, %q", tt.name, got, err, tt.want, tt.err)
		}
	}
}

// runRank runs spec as rank 0 in a new run directory and returns the
// directory, the exit code and the rank's end record.
func runRank(t *testing.T, spec record.External) (string, int, record.End) {
	t.Helper()
	dir := t.TempDir()
	code, err := external(dir, &spec, launchRank{world: 1, localSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, record.RankFile(0)))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 {
		t.Fatalf("rank file has %d lines, want a fingerprint and an end:\n%s", len(lines), b)
	}
	end, err := record.Decode([]byte(lines[1]))
	if err != nil {
		t.Fatal(err)
	}
	return dir, code, *end.(*record.End)
}

func TestExternalCapturesOutputAndExit(t *testing.T) {
	dir, code, end := runRank(t, record.External{Argv: []string{"/bin/sh", "-c", `echo "$1 $GREETING"; echo broken >&2; exit 3`, "sh", "a b"},
		Env: map[string]string{"GREETING": "hello"}})
	if code != 3 || end.Status != record.StatusFailed || end.Error != "sh: exit status 3: broken" {
		t.Errorf("exit %d, end %+v; want 3, failed with the exit status and the last line of stderr", code, end)
	}
	if out, _ := os.ReadFile(filepath.Join(dir, record.StdoutFile(0))); string(out) != "a b hello\n" {
		t.Errorf("stdout = %q, want the argument and the variable", out)
	}
	if _, code, end := runRank(t, record.External{Argv: []string{"/bin/true"}}); code != 0 || end.Status != record.StatusOK {
		t.Errorf("true: exit %d, end %+v", code, end)
	}
	if _, code, end := runRank(t, record.External{Argv: []string{"/nonexistent/program"}}); code != 127 ||
		!strings.Contains(end.Error, "start /nonexistent/program") {
		t.Errorf("a missing program: exit %d, end %+v", code, end)
	}
}

func TestExternalTimeout(t *testing.T) {
	start := time.Now()
	_, code, end := runRank(t, record.External{Argv: []string{"sleep", "30"}, TimeoutNs: int64(200 * time.Millisecond)})
	if code != 128+15 || !strings.Contains(end.Error, "killed by SIGTERM (timeout after 200ms)") || end.Signal != "" {
		t.Errorf("exit %d, end %+v; want 143, killed by SIGTERM for the timeout", code, end)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v to stop a program over its timeout", d)
	}
}

// A wrapper script's own children are stopped with it: a timeout that
// stopped only the script left the program it started running, orphaned.
func TestExternalTimeoutStopsProcessGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	_, _, end := runRank(t, record.External{Argv: []string{"/bin/sh", "-c", `sleep 30 & echo $! > "$1"; wait $!; true`, "sh", pidFile},
		TimeoutNs: int64(300 * time.Millisecond)})
	if !strings.Contains(end.Error, "timeout after 300ms") {
		t.Errorf("end %+v; want a timeout", end)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(3 * time.Second); alive(pid); {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the script's child %d outlived the timeout", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A runner killed with SIGKILL (mpirun after SIGTERM's grace, the OOM
// killer) takes its program's whole process group with it: Pdeathsig
// alone stopped only the script, and left the program it started running.
func TestExternalRunnerKilledStopsProcessGroup(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	spec, err := json.Marshal(record.External{Argv: []string{"/bin/sh", "-c", `sleep 300 & echo $! > "$1"; wait`, "sh", pidFile}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, record.ExternalName), spec, 0o644); err != nil {
		t.Fatal(err)
	}
	runner := exec.Command("/proc/self/exe", "external", "--out", dir)
	runner.Env = append(os.Environ(), "OMPI_COMM_WORLD_RANK=0", "OMPI_COMM_WORLD_SIZE=1")
	if err := runner.Start(); err != nil {
		t.Fatal(err)
	}
	pid := readPID(t, pidFile)
	defer syscall.Kill(pid, syscall.SIGKILL)
	watcher := watcherOf(t, runner.Process.Pid)
	runner.Process.Kill()
	runner.Wait()
	for deadline := time.Now().Add(3 * time.Second); alive(pid) || alive(watcher); {
		if time.Now().After(deadline) {
			t.Fatalf("3 s after the runner was killed with SIGKILL, the script's child %d runs: %v, its watcher %d: %v",
				pid, alive(pid), watcher, alive(watcher))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// After a program that ended by itself, the watcher exits at once, reaped
// by the runner, and stops nothing: not even what the program left behind.
func TestExternalWatcherQuietAfterNormalEnd(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	_, code, end := runRank(t, record.External{Argv: []string{"/bin/sh", "-c", `sleep 300 & echo $! > "$1"`, "sh", pidFile}})
	pid := readPID(t, pidFile)
	defer syscall.Kill(pid, syscall.SIGKILL)
	if code != 0 || end.Status != record.StatusOK {
		t.Errorf("exit %d, end %+v; want ok", code, end)
	}
	if kids := children(os.Getpid()); len(kids) > 0 {
		t.Errorf("the runner left children %v; want its watcher reaped", kids)
	}
	time.Sleep(100 * time.Millisecond)
	if !alive(pid) {
		t.Errorf("the script's child %d was stopped after the script ended by itself", pid)
	}
}

// watcherOf returns the pid of the watcher that runner pid started.
func watcherOf(t *testing.T, pid int) int {
	t.Helper()
	for _, kid := range children(pid) {
		argv, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", kid))
		if strings.Contains(string(argv), "\x00"+watchMode+"\x00") {
			return kid
		}
	}
	t.Fatalf("runner %d has no watcher among its children %v", pid, children(pid))
	return 0
}

// children returns the pids of process pid's children.
func children(pid int) []int {
	var kids []int
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, task := range tasks {
		b, _ := os.ReadFile(task)
		for _, f := range strings.Fields(string(b)) {
			if kid, err := strconv.Atoi(f); err == nil {
				kids = append(kids, kid)
			}
		}
	}
	return kids
}

// readPID waits up to 5 s for the pid a script writes to path.
func readPID(t *testing.T, path string) int {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		b, err := os.ReadFile(path)
		if pid, err2 := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && err2 == nil {
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pid in %s: %v", path, err)
		}
	}
}

// alive reports whether process pid runs (a zombie does not).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	_, after, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(after, "Z")
}

// TestLastLines: the failure reason keeps the last lines of a program's
// stderr, at most 500 bytes of them, read from the file's tail alone.
func TestLastLines(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, text, want string
	}{
		{"short", "a\n\n  b  \nc\nd\n", "b; c; d"},
		{"long", strings.Repeat("x", 70<<10) + "\nsecond to last\nlast\n", strings.Repeat("x", 478) + "; second to last; last"},
		{"one long line", strings.Repeat("y", 70<<10) + "z", strings.Repeat("y", 499) + "z"},
	} {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := lastLines(path, 3); got != c.want {
			t.Errorf("%s: lastLines = %.60q, want %q", c.name, got, c.want)
		}
	}
}
