package main

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The suite sweeps run every benchmark under every strategy it takes, on
// shm and tcp, with 2 and 3 ranks, over 3 rails: real ranks, verified data.
// Sizes are odd on purpose: a slice or chunk that does not divide evenly is
// where placement goes wrong.
const suiteParams = `
[params]
provider   = ["shm", "tcp"]
ranks      = [2, 3]
rails      = 3
sizes      = [1, 4099, 300001]
chunk      = "64KiB"
window     = 4
iterations = 3
warmup     = 1
timeout    = "30s"
pinning    = "none"
`

// TestRunSuiteVerifies is the acceptance matrix: 72 launches, every one ok.
func TestRunSuiteVerifies(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "test.db")
	sweeps := map[string]string{
		"pingpong.toml": `name = "suite-sendrecv"
benchmark = ["sendrecv", "send"]
` + suiteParams + `strategy = ["single", "split", "round-robin", "per-op"]
`,
		"rdma.toml": `name = "suite-rdma"
benchmark = ["write", "all2all"]
` + suiteParams + `strategy = ["single", "split", "round-robin", "per-op", "adaptive"]
`,
	}
	for name, text := range sweeps {
		sweep := writeFile(t, filepath.Join(dir, name), text)
		code, stdout, stderr := efaxx(t, "--db", db, "--workdir", filepath.Join(dir, "runs"), "run", "--runner", runner(t), sweep)
		if code != 0 {
			t.Fatalf("efaxx run %s = %d\nstdout:\n%s\nstderr:\n%s", name, code, stdout, stderr)
		}
	}
	if got := count(t, db, `SELECT COUNT(*) FROM runs WHERE status = 'ok'`); got != 72 {
		t.Errorf("ok runs = %d, want 72", got)
	}
	// Every size of every run is measured: sendrecv and send give one
	// sample per pair end (2 with 2 ranks, 4 with 3), write the same but
	// one per rank under round-robin, all2all one per rank. 3 sizes, 2
	// providers.
	perSize := 2*4*(2+4) + // sendrecv and send, 4 strategies
		4*(2+4) + (2 + 3) + // write: 4 pairwise strategies, round-robin
		5*(2+3) // all2all
	if got := count(t, db, `SELECT COUNT(*) FROM samples`); got != 3*2*perSize {
		t.Errorf("samples = %d, want %d", got, 3*2*perSize)
	}
	if n := count(t, db, `SELECT COUNT(*) FROM samples WHERE strategy = '' OR rails = '[]' OR peers = ''`); n != 0 {
		t.Errorf("%d samples lack their multi-rail facts", n)
	}
	// Split and per-op put a 300001-byte buffer on all 3 rails; single on rail 0 only.
	checkRails := []struct {
		strategy string
		rails    int
	}{{"split", 3}, {"per-op", 3}, {"single", 1}}
	for _, c := range checkRails {
		n := count(t, db, `SELECT COUNT(*) FROM samples s JOIN runs r ON r.id = s.run_id
			WHERE r.benchmark = 'write' AND s.role = 'initiator' AND s.size = 300001 AND s.strategy = ?
			AND (SELECT COUNT(*) FROM json_each(s.rail_bytes) WHERE value > 0) <> ?`, c.strategy, c.rails)
		if n != 0 {
			t.Errorf("%s: %d write samples with rail bytes on other than %d rails", c.strategy, n, c.rails)
		}
	}
	// Round-robin write to 2 peers at once: one sample of rank 0 for both, on rails 1 and 2.
	var rails string
	sqlRow(t, db, `SELECT s.rails FROM samples s JOIN runs r ON r.id = s.run_id
		WHERE r.benchmark = 'write' AND r.ranks = 3 AND s.strategy = 'round-robin' AND s.rank = 0
		AND s.size = 300001 AND r.provider = 'shm'`, &rails)
	if rails != "[1,2]" {
		t.Errorf("round-robin rails of rank 0 to peers 1, 2 = %s, want [1,2]", rails)
	}
}

// TestRunCorruptPayloadFailsEveryBenchmark flips one byte on the wire under
// a multi-rail strategy: the point fails, naming the mismatch.
func TestRunCorruptPayloadFailsEveryBenchmark(t *testing.T) {
	for _, bench := range []string{"sendrecv", "send", "write", "all2all"} {
		t.Run(bench, func(t *testing.T) {
			dir := t.TempDir()
			db := filepath.Join(dir, "test.db")
			sweep := writeFile(t, filepath.Join(dir, "c.toml"), `name = "corrupt"
benchmark = "`+bench+`"
[params]
provider = "tcp"
ranks = 3
rails = 2
strategy = "split"
sizes = ["4KiB", "200000"]
chunk = "64KiB"
iterations = 4
warmup = 1
timeout = "20s"
pinning = "none"
`)
			t.Setenv("EFAXX_TEST_CORRUPT_SIZE", "200000")
			code, stdout, stderr := efaxx(t, "--db", db, "--workdir", filepath.Join(dir, "runs"), "run", "--runner", runner(t), sweep)
			if code != 3 {
				t.Fatalf("efaxx run = %d, want 3\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			var status, reason string
			sqlRow(t, db, `SELECT status, reason FROM runs`, &status, &reason)
			if status != "failed" || !strings.Contains(reason, "payload mismatch") || !strings.Contains(reason, "size 200000") {
				t.Errorf("run = %s (%s), want failed with a payload mismatch", status, reason)
			}
			if n := count(t, db, `SELECT COUNT(*) FROM samples WHERE size = 200000`); n != 0 {
				t.Errorf("the corrupted size left %d samples, want 0", n)
			}
			if n := count(t, db, `SELECT COUNT(*) FROM samples WHERE size = 4096`); n == 0 {
				t.Error("no samples kept from before the failure")
			}
		})
	}
}

// TestRunOneSlot runs the one-sided benchmarks and send with one target
// slot (one buffer reused: over tcp a write runs up to 4-32 iterations
// ahead of the checks, over shm and under all2all each iteration waits
// for the last one's, as send's always does) on 3 ranks, then corrupts a
// byte under it: still verified, still caught.
// Buffers of 2 MiB and more ask for huge pages, and the fingerprint says
// how many they got.
func TestRunOneSlot(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "test.db")
	body := `
[params]
provider   = ["shm", "tcp"]
ranks      = 3
slots      = 1
sizes      = [1, 300001, "4MiB"]
chunk      = "64KiB"
iterations = 5
warmup     = 1
timeout    = "30s"
pinning    = "none"
`
	sweep := writeFile(t, filepath.Join(dir, "one.toml"), "name = \"one-slot\"\nbenchmark = [\"write\", \"all2all\", \"send\"]\n"+body)
	code, stdout, stderr := efaxx(t, "--db", db, "--workdir", filepath.Join(dir, "runs"), "run", "--runner", runner(t), sweep)
	if code != 0 {
		t.Fatalf("efaxx run = %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if got := count(t, db, `SELECT COUNT(*) FROM runs r JOIN points p ON p.id = r.point_id WHERE r.status = 'ok' AND json_extract(p.params, '$.slots') = 1`); got != 6 {
		t.Errorf("ok one-slot runs = %d, want 6", got)
	}
	var pages string
	sqlRow(t, db, `SELECT json_extract(fingerprint, '$.host_pages') FROM ranks LIMIT 1`, &pages)
	if !regexp.MustCompile(`^huge pages back \d+ of \d+ MiB$`).MatchString(pages) {
		t.Errorf("fingerprint host_pages = %q, want \"huge pages back N of M MiB\"", pages)
	}

	t.Setenv("EFAXX_TEST_CORRUPT_SIZE", "300001")
	bad := writeFile(t, filepath.Join(dir, "bad.toml"), "name = \"one-slot-bad\"\nbenchmark = \"write\"\n"+body)
	code, stdout, stderr = efaxx(t, "--db", db, "--workdir", filepath.Join(dir, "runs"), "run", "--runner", runner(t), bad)
	if code != 3 {
		t.Fatalf("efaxx run (corrupt) = %d, want 3\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, prov := range []string{"shm", "tcp"} {
		var status, reason string
		sqlRow(t, db, `SELECT r.status, r.reason FROM runs r JOIN points p ON p.id = r.point_id JOIN sweeps w ON w.id = p.sweep_id
			WHERE w.name = 'one-slot-bad' AND json_extract(p.params, '$.provider') = '`+prov+`'`, &status, &reason)
		if status != "failed" || !strings.Contains(reason, "payload mismatch") {
			t.Errorf("corrupt one-slot run over %s = %s (%s), want failed with a payload mismatch", prov, status, reason)
		}
	}
}

// TestRunDuration runs each size for a time instead of a count: every
// rank of a point runs the count rank 0 chose, a small size runs more
// iterations than a large one, each size's timed phase lasts about the
// duration, and every iteration is still checked (a corrupt byte fails).
// Two ranks, one per core: with more ranks than cores, which rank the
// kernel runs when makes a warm-up and the timed phase after it differ
// a hundredfold.
func TestRunDuration(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "test.db")
	body := `
[params]
provider   = "shm"
ranks      = 2
sizes      = ["4KiB", "1MiB"]
duration   = "200ms"
iterations = 3
timeout    = "30s"
pinning    = "none"
`
	sweep := writeFile(t, filepath.Join(dir, "d.toml"), "name = \"duration\"\nbenchmark = [\"sendrecv\", \"send\", \"write\", \"all2all\"]\n"+body)
	code, stdout, stderr := efaxx(t, "--db", db, "--workdir", filepath.Join(dir, "runs"), "run", "--runner", runner(t), sweep)
	if code != 0 {
		t.Fatalf("efaxx run = %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	// Both ends of a pair (every rank of all2all) run one count.
	if n := count(t, db, `SELECT COUNT(*) FROM (SELECT 1 FROM samples
		GROUP BY run_id, size, CASE WHEN peer < 0 THEN -1 ELSE min(rank, peer) * 65536 + max(rank, peer) END
		HAVING COUNT(DISTINCT iterations) > 1)`); n != 0 {
		t.Errorf("%d pairs whose ends ran different counts", n)
	}
	store, err := sql.Open("sqlite3", db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	rows, err := store.Query(`SELECT r.benchmark, s.size, MIN(s.iterations), MIN(s.elapsed_ns), MAX(s.elapsed_ns)
		FROM samples s JOIN runs r ON r.id = s.run_id GROUP BY r.benchmark, s.size ORDER BY r.benchmark, s.size`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	its := map[string][]int64{}
	for rows.Next() {
		var bench string
		var size, iters, lo, hi int64
		if err := rows.Scan(&bench, &size, &iters, &lo, &hi); err != nil {
			t.Fatal(err)
		}
		its[bench] = append(its[bench], iters)
		t.Logf("%s at %d B: %d iterations in %.0f..%.0f ms", bench, size, iters, float64(lo)/1e6, float64(hi)/1e6)
		// About 200 ms each, with room for a loaded machine: 3 iterations
		// (the count, ignored) would take microseconds.
		if iters <= 3 || lo < 2e6 || hi > 4e9 {
			t.Errorf("%s at %d B: %d iterations in %d..%d ns; want more than 3, each about 200 ms", bench, size, iters, lo, hi)
		}
	}
	for bench, v := range its {
		if len(v) != 2 || v[0] <= v[1] {
			t.Errorf("%s iterations at 4 KiB and 1 MiB = %v; want more at 4 KiB", bench, v)
		}
	}

	t.Setenv("EFAXX_TEST_CORRUPT_SIZE", "1048576")
	bad := writeFile(t, filepath.Join(dir, "bad.toml"), "name = \"duration-bad\"\nbenchmark = \"write\"\n"+body)
	if code, stdout, stderr = efaxx(t, "--db", db, "--workdir", filepath.Join(dir, "runs"), "run", "--runner", runner(t), bad); code != 3 {
		t.Fatalf("efaxx run (corrupt) = %d, want 3\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}

// TestRunKilledPeer kills one rank with SIGKILL while it measures: the
// survivors must end their files with a failed record and the run must
// fail, within the timeout, keeping what was measured before.
func TestRunKilledPeer(t *testing.T) {
	for _, prov := range []string{"shm", "tcp"} {
		t.Run(prov, func(t *testing.T) {
			dir := t.TempDir()
			db := filepath.Join(dir, "test.db")
			sweep := writeFile(t, filepath.Join(dir, "k.toml"), `name = "killed"
benchmark = "all2all"
[params]
provider = "`+prov+`"
ranks = 3
rails = 2
strategy = "round-robin"
sizes = ["4KiB", "64MiB"]
iterations = 1000
warmup = 1
timeout = "10s"
pinning = "none"
`)
			code, printed, pid, killed := runAndSignal(t, dir, sweep, 1, syscall.SIGKILL)
			if code == 0 {
				t.Errorf("efaxx run = 0 after a rank was killed, want non-zero")
			}
			if took := time.Since(killed); took > 10*time.Second+15*time.Second {
				t.Errorf("the run ended %v after the kill; the timeout is 10s", took)
			}
			var status string
			sqlRow(t, db, `SELECT status FROM runs`, &status)
			if status != "failed" && status != "partial" {
				t.Errorf("run status = %s, want failed or partial", status)
			}
			// Survivors: a failed record with a reason; rank 1: missing its end.
			if n := count(t, db, `SELECT COUNT(*) FROM ranks WHERE rank IN (0, 2) AND status = 'failed' AND error <> ''`); n != 2 {
				t.Errorf("survivors with a failed record and a reason = %d, want 2; ranks:\n%s\nefaxx run printed:\n%s",
					n, dumpRanks(t, db), printed)
			}
			if n := count(t, db, `SELECT COUNT(*) FROM samples WHERE size = 4096`); n != 3 {
				t.Errorf("samples of 4KiB kept = %d, want 3 (one per rank)", n)
			}
			// The killed rank could not remove its shm regions; efaxx does.
			if left, _ := filepath.Glob(fmt.Sprintf("/dev/shm/%d:*:*", pid)); len(left) > 0 {
				t.Errorf("the killed rank's shm regions are still in /dev/shm: %v", left)
			}
		})
	}
}

// TestRunCrashedRankSaysWhy crashes rank 0 with SIGSEGV while it sends:
// it writes no end record, and its peers fail reading from it or are
// stopped by mpirun, but the run's reason, which efaxx run prints, must
// say how rank 0 died and what it wrote on stderr (here Go's report of
// the signal), which was only in launcher.log.
func TestRunCrashedRankSaysWhy(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "test.db")
	sweep := writeFile(t, filepath.Join(dir, "c.toml"), `name = "crashed"
benchmark = "send"
[params]
provider = "shm"
ranks = 3
sizes = ["4KiB", "64MiB"]
iterations = 1000
warmup = 1
timeout = "10s"
pinning = "none"
`)
	// The crash is on purpose: no core dump, whatever GOTRACEBACK the
	// tests run under.
	t.Setenv("GOTRACEBACK", "single")
	code, printed, _, _ := runAndSignal(t, dir, sweep, 0, syscall.SIGSEGV)
	if code == 0 {
		t.Errorf("efaxx run = 0 after a rank crashed, want non-zero")
	}
	var status, reason string
	sqlRow(t, db, `SELECT status, reason FROM runs`, &status, &reason)
	for _, want := range []string{"no end record from rank 0", "rank 0's stderr: SIGSEGV: segmentation violation"} {
		if status != "failed" || !strings.Contains(reason, want) {
			t.Errorf("run = %s (%s), want failed with %q", status, reason, want)
		}
	}
	if !strings.Contains(printed, reason) {
		t.Errorf("efaxx run did not print the reason %q; it printed:\n%s", reason, printed)
	}
}

// runAndSignal runs sweep with efaxx run, its store and runs in dir,
// sends sig to rank once that rank has written a sample, and returns efaxx
// run's exit code, what it printed, the rank's pid and when the signal
// went. Whatever happens to the test, the run it started is stopped.
func runAndSignal(t *testing.T, dir, sweep string, rank int, sig syscall.Signal) (code int, printed string, pid int, sent time.Time) {
	t.Helper()
	r := runner(t) // here, not in the goroutine: it may skip the test
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	t.Cleanup(func() { cancel(); <-done })
	var out, errOut bytes.Buffer
	go func() {
		done <- run(ctx, []string{"efaxx", "--db", filepath.Join(dir, "test.db"), "--workdir", filepath.Join(dir, "runs"),
			"run", "--runner", r, sweep}, &out, &errOut)
	}()
	if pid = waitForSample(filepath.Join(dir, "runs"), rank, 60*time.Second); pid == 0 {
		cancel()
		code := <-done
		done <- code
		t.Fatalf("rank %d wrote no sample within 60 s; efaxx run = %d and printed:\n%s%s", rank, code, out.String(), errOut.String())
	}
	if err := syscall.Kill(pid, sig); err != nil {
		t.Fatalf("signal rank %d (pid %d): %v", rank, pid, err)
	}
	sent = time.Now()
	select {
	case code = <-done:
		done <- code // for the cleanup
	case <-time.After(60 * time.Second):
		t.Fatalf("the run did not end within 60 s of %v to rank %d", sig, rank)
	}
	return code, out.String() + errOut.String(), pid, sent
}

// waitForSample waits until rank's file under root holds a sample, and
// returns the rank's pid from its fingerprint, or 0 once limit has passed.
func waitForSample(root string, rank int, limit time.Duration) int {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		files, _ := filepath.Glob(filepath.Join(root, "*", "*", "*", "rank-0000"+string(rune('0'+rank))+".ndjson"))
		for _, f := range files {
			if pid := pidIfSampled(f); pid > 0 {
				return pid
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return 0
}

func pidIfSampled(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	pid, sampled := 0, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var rec struct {
			Type string `json:"type"`
			PID  int    `json:"pid"`
		}
		if json.Unmarshal(sc.Bytes(), &rec) != nil {
			continue
		}
		if rec.Type == "rank" {
			pid = rec.PID
		}
		sampled = sampled || rec.Type == "sample"
	}
	if sampled {
		return pid
	}
	return 0
}

// TestShippedSweepsValidate keeps every sweep file in sweeps/ valid.
func TestShippedSweepsValidate(t *testing.T) {
	files, _ := filepath.Glob("../../sweeps/*/*.toml")
	top, _ := filepath.Glob("../../sweeps/*.toml")
	files = append(files, top...)
	if len(files) < 8 {
		t.Fatalf("found %d sweep files, want the published and local ones", len(files))
	}
	for _, f := range files {
		if code, _, stderr := efaxx(t, "validate", f); code != 0 {
			t.Errorf("validate %s = %d: %s", f, code, stderr)
		}
	}
}

// TestRunEagainIsQueued shrinks ofi_rxm's transmit queue to 4 entries under
// a window of 32: the provider refuses posts with -FI_EAGAIN, the pending
// queue takes them, and every byte still verifies.
func TestRunEagainIsQueued(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "test.db")
	sweep := writeFile(t, filepath.Join(dir, "q.toml"), `name = "eagain"
benchmark = ["write", "all2all"]
[params]
provider = "tcp"
ranks = 2
rails = 2
strategy = "per-op"
window = 32
chunk = "64KiB"
sizes = ["4MiB"]
iterations = 10
warmup = 1
timeout = "30s"
pinning = "none"
`)
	t.Setenv("FI_OFI_RXM_TX_SIZE", "4")
	t.Setenv("FI_OFI_RXM_MSG_TX_SIZE", "4")
	code, stdout, stderr := efaxx(t, "--db", db, "--workdir", filepath.Join(dir, "runs"), "run", "--runner", runner(t), sweep)
	if code != 0 {
		t.Fatalf("efaxx run = %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, bench := range []string{"write", "all2all"} {
		n := count(t, db, `SELECT COUNT(*) FROM samples s JOIN runs r ON r.id = s.run_id
			WHERE r.benchmark = ? AND r.status = 'ok' AND s.rank = 0 AND s.requeued > 0`, bench)
		if n == 0 {
			t.Errorf("%s: no ok sample of rank 0 had posts requeued; the test no longer provokes -FI_EAGAIN", bench)
		}
	}
}

// dumpRanks lists the ranks table of the store at path, for a failure message.
func dumpRanks(t *testing.T, path string) string {
	t.Helper()
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT rank, status, COALESCE(error, '') FROM ranks ORDER BY run_id, rank`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var rank int
		var status, msg string
		if err := rows.Scan(&rank, &status, &msg); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "  rank %d: %s %q\n", rank, status, msg)
	}
	return b.String()
}
