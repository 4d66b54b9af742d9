package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const smallSweep = `name = "small"
benchmark = ["sendrecv", "write"]

[params]
provider   = ["shm", "tcp"]
ranks      = 2
sizes      = "4KiB..256KiB x8"
iterations = 20
warmup     = 3
timeout    = "20s"
`

// TestRunStoresRealRanks runs 2 real ranks over shm and over tcp through
// mpirun, and checks what lands in SQLite, and that ingesting the same
// directories again adds nothing.
func TestRunStoresRealRanks(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "test.db")
	sweep := writeFile(t, filepath.Join(dir, "small.toml"), smallSweep)
	code, stdout, stderr := efaxx(t, "--db", db, "--workdir", filepath.Join(dir, "runs"), "run", "--runner", runner(t),
		"--tag", "lab=ci", sweep)
	if code != 0 {
		t.Fatalf("efaxx run = %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if got := count(t, db, `SELECT COUNT(*) FROM runs WHERE status = 'ok'`); got != 4 {
		t.Errorf("ok runs = %d, want 4", got)
	}
	if got := count(t, db, `SELECT COUNT(*) FROM run_tags WHERE key = 'lab' AND value = 'ci'`); got != 4 {
		t.Errorf("runs tagged lab=ci = %d, want 4", got)
	}
	// 3 sizes (4K, 32K, 256K) x 2 ranks, each rank one sample per size.
	for _, prov := range []string{"shm", "tcp;ofi_rxm"} {
		n := count(t, db, `SELECT COUNT(*) FROM samples s JOIN runs r ON r.id = s.run_id WHERE r.provider = ?`, prov)
		if n != 2*3*2 {
			t.Errorf("samples over %s = %d, want 12", prov, n)
		}
	}
	// Local tcp runs must talk over loopback only.
	if n := count(t, db, `SELECT COUNT(*) FROM ranks k JOIN runs r ON r.id = k.run_id
		WHERE r.provider = 'tcp;ofi_rxm' AND json_extract(k.fingerprint, '$.domain') = 'lo'`); n != 4 {
		t.Errorf("tcp ranks on domain lo = %d, want 4", n)
	}
	if !strings.Contains(stdout, "256KiB") || !strings.Contains(stderr, "[4/4]") {
		t.Errorf("summary or progress missing:\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
	}

	before := tables(t, db)
	if code, _, stderr := efaxx(t, "--db", db, "ingest", filepath.Join(dir, "runs")); code != 0 {
		t.Fatalf("efaxx ingest = %d: %s", code, stderr)
	}
	if after := tables(t, db); after != before {
		t.Errorf("rows after re-ingest = %v, want %v", after, before)
	}
}

func tables(t *testing.T, db string) [5]int {
	var n [5]int
	for i, table := range []string{"sweeps", "points", "runs", "ranks", "samples"} {
		n[i] = count(t, db, "SELECT COUNT(*) FROM "+table)
	}
	return n
}

// TestRunCorruptPayloadFails proves verification: one flipped byte on the
// wire fails the point instead of producing a number.
func TestRunCorruptPayloadFails(t *testing.T) {
	for _, bench := range []string{"sendrecv", "write"} {
		t.Run(bench, func(t *testing.T) {
			dir := t.TempDir()
			db := filepath.Join(dir, "test.db")
			sweep := writeFile(t, filepath.Join(dir, "c.toml"), `name = "corrupt"
benchmark = "`+bench+`"
[params]
provider = "shm"
sizes = ["4KiB", "64KiB", "1MiB"]
iterations = 10
warmup = 2
timeout = "20s"
`)
			t.Setenv("EFAXX_TEST_CORRUPT_SIZE", "65536")
			code, stdout, stderr := efaxx(t, "--db", db, "--workdir", filepath.Join(dir, "runs"), "run", "--runner", runner(t), sweep)
			if code != 3 {
				t.Fatalf("efaxx run = %d, want 3\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			var status, reason string
			sqlRow(t, db, `SELECT status, reason FROM runs`, &status, &reason)
			if status != "failed" || !strings.Contains(reason, "payload mismatch") || !strings.Contains(reason, "size 65536") {
				t.Errorf("run = %s (%s), want failed with a payload mismatch at size 65536", status, reason)
			}
			// The size measured before the corruption is kept.
			if n := count(t, db, `SELECT COUNT(*) FROM samples WHERE size = 4096`); n == 0 {
				t.Error("no samples kept from before the failure")
			}
			if n := count(t, db, `SELECT COUNT(*) FROM samples WHERE size = 65536 AND role = 'target'`); n != 0 {
				t.Errorf("the corrupted size left %d target samples, want 0", n)
			}
		})
	}
}

func TestValidateNamesTheLine(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, filepath.Join(dir, "typo.toml"), `name = "typo"
benchmark = "write"

[params]
sizez = "4KiB..1MiB"
ranks = "two"
`)
	code, _, stderr := efaxx(t, "validate", file)
	if code != 1 {
		t.Fatalf("validate = %d, want 1", code)
	}
	for _, want := range []string{file + ":5: params.sizez: unknown key", file + ":6: params.ranks"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if code, stdout, _ := efaxx(t, "validate", "../../sweeps/demo.toml"); code != 0 || !strings.Contains(stdout, "4 points") {
		t.Errorf("validate demo = %d, %q", code, stdout)
	}
}

// TestValidateEveryFile: a file that cannot be read is reported with the
// errors of every other file, before and after it, and makes the status 3.
func TestValidateEveryFile(t *testing.T) {
	dir := t.TempDir()
	before := writeFile(t, filepath.Join(dir, "before.toml"), "name = \"b\"\nbenchmark = \"nosuch\"\n")
	after := writeFile(t, filepath.Join(dir, "after.toml"), "name = \"a\"\nbenchmark = \"write\"\nsizes = 1\n")
	missing := filepath.Join(dir, "missing.toml")
	code, stdout, stderr := efaxx(t, "validate", before, missing, after, "../../sweeps/demo.toml")
	if code != 3 {
		t.Errorf("validate = %d, want 3", code)
	}
	for _, want := range []string{before + ":2: benchmark: unknown benchmark", `read sweep "` + missing + `"`, after + ":3: sizes: unknown key"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if !strings.Contains(stdout, "demo.toml: ok") {
		t.Errorf("stdout lacks demo.toml's ok:\n%s", stdout)
	}
}

// TestRunRefusesContainer: efaxx run starts ranks outside any container,
// so a sweep with [container] is refused before anything runs, rather than
// measured in the wrong place.
func TestRunRefusesContainer(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, filepath.Join(dir, "boxed.toml"), "name = \"boxed\"\nbenchmark = \"write\"\n[container]\nimage = \"/images/efaxx.sqsh\"\n")
	db := filepath.Join(dir, "efaxx.db")
	code, _, stderr := efaxx(t, "--db", db, "--workdir", filepath.Join(dir, "runs"), "run", "--runner", "/bin/true", file)
	if code == 0 || !strings.Contains(stderr, "sweep boxed runs in the container image /images/efaxx.sqsh: efaxx run starts its ranks on this machine") {
		t.Errorf("run of a [container] sweep = %d, %q; want it refused", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "runs")); err == nil {
		t.Error("run made a session for a sweep it refused")
	}
	if _, err := os.Stat(db); err == nil {
		t.Error("run made a store for a sweep it refused")
	}
}

// TestRunnerRefusedInContainer: the steps of a sweep with [container]
// start the image's own efaxx-runner, so --runner (or EFAXX_RUNNER) with
// one is a wrong command line, said before anything is asked of Slurm or
// made. plan, submit and doctor took the flag and used the image's runner
// without a word.
func TestRunnerRefusedInContainer(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, filepath.Join(dir, "boxed.toml"), "name = \"boxed\"\nbenchmark = \"write\"\n[container]\nimage = \"/images/efaxx.sqsh\"\n")
	db := filepath.Join(dir, "efaxx.db")
	const want = "efaxx: --runner (or EFAXX_RUNNER) \"/opt/mine/efaxx-runner\": sweep boxed runs in the container image " +
		"/images/efaxx.sqsh, whose steps start its own /usr/local/bin/efaxx-runner"
	for _, cmd := range []string{"plan", "submit", "doctor"} {
		code, stdout, stderr := efaxx(t, "--db", db, "--workdir", filepath.Join(dir, "runs"), cmd, file, "--runner", "/opt/mine/efaxx-runner")
		if code != 2 || stdout != "" || !strings.HasPrefix(stderr, want) || !strings.Contains(stderr, "enroot/mkimage --bin DIR") {
			t.Errorf("%s --runner of a [container] sweep = %d, %q, %q; want 2, refused naming the image's runner", cmd, code, stdout, stderr)
		}
	}
	t.Setenv("EFAXX_RUNNER", "/opt/mine/efaxx-runner")
	if code, _, stderr := efaxx(t, "plan", file); code != 2 || !strings.HasPrefix(stderr, want) {
		t.Errorf("plan of a [container] sweep with EFAXX_RUNNER set = %d, %q; want 2, refused", code, stderr)
	}
	for _, p := range []string{db, filepath.Join(dir, "runs")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("a refused command made %s", p)
		}
	}
}

// TestRunRefusesNodes: a sweep of more than one node is refused before
// anything is made: no store, no session.
func TestRunRefusesNodes(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, filepath.Join(dir, "wide.toml"), "name = \"wide\"\nbenchmark = \"write\"\n[slurm]\nnodes = [1, 2]\n")
	db := filepath.Join(dir, "efaxx.db")
	code, _, stderr := efaxx(t, "--db", db, "--workdir", filepath.Join(dir, "runs"), "run", "--runner", "/bin/true", file)
	if code != 3 || !strings.Contains(stderr, "efaxx: sweep wide asks for nodes = 2: efaxx run uses this machine only") {
		t.Errorf("run of a 2-node sweep = %d, %q; want it refused", code, stderr)
	}
	for _, p := range []string{db, filepath.Join(dir, "runs")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("run made %s for a sweep it refused", p)
		}
	}
}
