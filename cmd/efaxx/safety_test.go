package main

import (
	"bufio"
	"bytes"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"efaxx/results/synth"
)

// safetySizes are the message sizes of the runs of the process tests.
var safetySizes = []uint64{1 << 10, 1 << 12, 1 << 14, 1 << 16, 1 << 18, 1 << 20, 1 << 22, 1 << 24, 1 << 26, 1 << 28}

// synthSession writes runs synthetic runs of ranks ranks into a new
// session directory and returns the run directories.
func synthSession(t *testing.T, runs, ranks int) []string {
	t.Helper()
	session := t.TempDir()
	var dirs []string
	for i := range runs {
		dir := filepath.Join(session, fmt.Sprintf("%03d", i))
		r := &synth.Run{UID: fmt.Sprint("run-", i), Ranks: ranks, Sizes: safetySizes, Seed: uint64(i + 1), Noise: 0.02}
		if err := r.Write(dir); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, dir)
	}
	return dirs
}

// efaxxProcess returns the command that runs efaxx as its own process.
func efaxxProcess(args ...string) *exec.Cmd {
	self, _ := os.Executable()
	cmd := exec.Command(self, args...)
	cmd.Env = append(os.Environ(), asMain+"=1")
	return cmd
}

// storeState returns the row counts of a store and checks that it is
// whole: SQLite's integrity check, and every run's samples all there.
func storeState(t *testing.T, path string) map[string]int {
	t.Helper()
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var check string
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check = %q, %v", check, err)
	}
	var torn int
	if err := db.QueryRow(`SELECT COUNT(*) FROM runs r
		WHERE r.samples <> (SELECT COUNT(*) FROM samples s WHERE s.run_id = r.id)
		   OR r.samples <> r.ranks * ?`, len(safetySizes)).Scan(&torn); err != nil {
		t.Fatal(err)
	}
	if torn > 0 {
		t.Errorf("%d runs whose samples do not match their count: a torn ingest", torn)
	}
	counts := map[string]int{}
	for _, table := range []string{"sweeps", "points", "runs", "ranks", "samples", "run_hosts"} {
		var n int
		if err := db.QueryRow(`SELECT COUNT(*) FROM ` + table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		counts[table] = n
	}
	return counts
}

// TestIngest_TwoProcesses runs two efaxx ingest processes on the same
// directories at once, against a new store: both succeed, neither reports
// "database is locked", and every row is stored once.
func TestIngest_TwoProcesses(t *testing.T) {
	dirs := synthSession(t, 4, 256)
	session := filepath.Dir(dirs[0])
	want := map[string]int{"sweeps": 1, "points": 1, "runs": 4, "ranks": 4 * 256, "samples": 4 * 256 * len(safetySizes), "run_hosts": 4 * 32}
	for attempt := range 3 {
		db := filepath.Join(t.TempDir(), "efaxx.db")
		var cmds []*exec.Cmd
		var outs []*bytes.Buffer
		for range 2 {
			cmd := efaxxProcess("--db", db, "ingest", session)
			out := &bytes.Buffer{}
			cmd.Stdout, cmd.Stderr = out, out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			cmds, outs = append(cmds, cmd), append(outs, out)
		}
		for i, cmd := range cmds {
			if err := cmd.Wait(); err != nil || strings.Contains(outs[i].String(), "locked") {
				t.Errorf("attempt %d, process %d: %v\n%s", attempt, i, err, outs[i])
			}
		}
		if got := storeState(t, db); !reflect.DeepEqual(got, want) {
			t.Errorf("attempt %d: rows = %v, want %v", attempt, got, want)
		}
		if n := strings.Count(outs[0].String()+outs[1].String(), " new: "); n != 4 {
			t.Errorf("attempt %d: %d runs reported new, want 4 (each by one process)", attempt, n)
		}
	}
}

// TestIngest_Killed kills an efaxx ingest with SIGKILL while it stores one
// of several large runs: the store must hold whole runs only, and an
// ingest after it must complete the rest, to the rows of a clean ingest.
func TestIngest_Killed(t *testing.T) {
	dirs := synthSession(t, 6, 1024)
	clean := filepath.Join(t.TempDir(), "clean.db")
	if out, err := efaxxProcess(append([]string{"--db", clean, "ingest"}, dirs...)...).CombinedOutput(); err != nil {
		t.Fatalf("clean ingest: %v\n%s", err, out)
	}
	want := storeState(t, clean)

	for _, delay := range []time.Duration{0, 30 * time.Millisecond, 120 * time.Millisecond} {
		db := filepath.Join(t.TempDir(), "efaxx.db")
		stored := killIngest(t, db, dirs, delay)
		before := storeState(t, db)
		// A run committed just before the kill may not have been reported.
		if before["runs"] < stored || before["runs"] >= len(dirs) {
			t.Errorf("delay %v: %d runs after the kill, %d reported stored: want at least those, and fewer than %d",
				delay, before["runs"], stored, len(dirs))
		}
		if out, err := efaxxProcess(append([]string{"--db", db, "ingest"}, dirs...)...).CombinedOutput(); err != nil {
			t.Fatalf("delay %v: ingest after the kill: %v\n%s", delay, err, out)
		}
		if got := storeState(t, db); !reflect.DeepEqual(got, want) {
			t.Errorf("delay %v: rows after re-ingest = %v, want %v (a clean ingest)", delay, got, want)
		}
	}
}

// killIngest starts an ingest of dirs into db, one directory per
// transaction, kills it with SIGKILL delay after it reports its first
// run stored, and returns how many runs it reported stored.
func killIngest(t *testing.T, db string, dirs []string, delay time.Duration) int {
	t.Helper()
	cmd := efaxxProcess(append([]string{"--db", db, "ingest"}, dirs...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	if !lines.Scan() {
		t.Fatalf("ingest printed nothing: %v", lines.Err())
	}
	time.Sleep(delay)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	done := 1
	for lines.Scan() {
		if strings.Contains(lines.Text(), " new: ") {
			done++
		}
	}
	err = cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
		t.Fatalf("ingest ended by itself (%v) before the kill: make the runs larger", err)
	}
	return done
}

// TestRunHungUp sends efaxx run SIGHUP, as a closed terminal or a dropped
// ssh session does, while its point runs: it stops the point and stores
// it as cancelled, as Ctrl-C does, and exits 129. SIGHUP killed it at
// once, and the point, its run.json never told how the launch ended, was
// stored as running for good.
func TestRunHungUp(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "test.db")
	sweep := writeFile(t, filepath.Join(dir, "hup.toml"), `name = "hup"
benchmark = "sendrecv"
[params]
provider = "tcp"
nics = "lo"
ranks = 2
sizes = "4KiB"
duration = "20s"
timeout = "30s"
`)
	// efaxx leaves SIGHUP ignored where it starts ignored (under nohup), and
	// a process inherits what its parent ignores: so that this test's
	// hangup is a terminal's however the tests were started, it catches
	// SIGHUP while efaxx starts, and efaxx starts with the default.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	cmd := efaxxProcess("--db", db, "--workdir", filepath.Join(dir, "runs"), "run", "--runner", runner(t), sweep)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := bufio.NewScanner(stderr)
	var said []string
	for lines.Scan() && !strings.Contains(lines.Text(), "starting") {
		said = append(said, lines.Text())
	}
	time.Sleep(time.Second) // into the launch
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatalf("SIGHUP: %v; efaxx run said\n%s", err, strings.Join(said, "\n"))
	}
	for lines.Scan() {
		said = append(said, lines.Text())
	}
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 129 || !strings.Contains(strings.Join(said, "\n"), "efaxx: hung up (SIGHUP)") {
		t.Errorf("efaxx run after SIGHUP = %d, want 129 saying it hung up; it said\n%s", code, strings.Join(said, "\n"))
	}
	var status string
	sqlRow(t, db, `SELECT status FROM runs`, &status)
	if status != "cancelled" {
		t.Errorf("the point in progress was stored %s, want cancelled", status)
	}
}
