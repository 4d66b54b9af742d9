package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// osuPingPong is tools/osu-pingpong built once for the tests that run it:
// a real MPI program that prints osu_latency's table.
var (
	osuOnce sync.Once
	osuPath string
	osuErr  error
)

// buildOSU builds tools/osu-pingpong with mpicc, once, for a test that
// runs it as MPI ranks: -short skips that test.
func buildOSU(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: builds and runs an MPI program (make test runs it)")
	}
	osuOnce.Do(func() {
		osuPath = filepath.Join(testDir, "osu_pingpong")
		out, err := exec.Command("mpicc", "-O2", "-Wall", "-o", osuPath, "../../tools/osu-pingpong/osu_pingpong.c").CombinedOutput()
		if err != nil {
			osuErr = &buildError{err, string(out)}
		}
	})
	if osuErr != nil {
		t.Fatalf("build tools/osu-pingpong: %v", osuErr)
	}
	return osuPath
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + e.out }

// hostileLabels are values of a var that a shell would act on: each must
// reach the program as one argument, byte for byte, and run nothing.
func hostileLabels(canary string) []string {
	return []string{"; rm -rf " + filepath.Dir(canary) + " ; touch " + canary, "$(touch " + canary + ")",
		"`touch " + canary + "` 'single' \"double\"", "two\nlines; touch " + canary}
}

// externalSweep is an external sweep of the OSU-style ping-pong over 2
// ranks, one point per label, each recording its argv in its run
// directory; extra is appended (a [slurm] table).
func externalSweep(name, osu string, labels []string, extra string) string {
	var quoted []string
	for _, l := range labels {
		quoted = append(quoted, strconv.Quote(l)) // a Go quoted string is a TOML basic string here
	}
	return `name = "` + name + `"
benchmark = "external"
[params]
ranks = 2
sizes = "1..4KiB"
timeout = "2m"
[external]
program = "` + osu + `"
args = ["-m", "{min_size}:{max_size}", "-i", "50", "-x", "5", "-a", "{run_dir}/argv.bin", "{label}"]
parser = "osu"
[external.vars]
label = [` + strings.Join(quoted, ", ") + `]
` + extra
}

// checkArgv checks that the program of every run directory under root
// was given exactly the argv its label asks for.
func checkArgv(t *testing.T, root, osu string, labels []string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(root, "*", "*", "*", "argv.bin"))
	if len(files) != len(labels) {
		t.Fatalf("argv files under %s = %d, want one per label (%d)", root, len(files), len(labels))
	}
	seen := map[string]bool{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		argv := strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
		want := []string{osu, "-m", "1:4096", "-i", "50", "-x", "5", "-a", f}
		if len(argv) != len(want)+1 || !slices.Equal(argv[:len(want)], want) {
			t.Errorf("%s: argv = %q, want %q and the label", f, argv, want)
			continue
		}
		seen[argv[len(want)]] = true
	}
	for _, l := range labels {
		if !seen[l] {
			t.Errorf("no program was given %q as one argument", l)
		}
	}
}

// TestRunExternal runs an external sweep here with mpirun: a real MPI
// ping-pong whose arguments hold shell syntax. Each value reaches the
// program as one literal argument, nothing it names runs, the runs are
// stored with the tool's numbers, and query reads them like any run.
func TestRunExternal(t *testing.T) {
	osu := buildOSU(t)
	dir := t.TempDir()
	canary := filepath.Join(dir, "keep", "CANARY")
	if err := os.MkdirAll(filepath.Dir(canary), 0o755); err != nil {
		t.Fatal(err)
	}
	labels := hostileLabels(canary)
	sweep := writeFile(t, filepath.Join(dir, "osu.toml"), externalSweep("osu-local", osu, labels, ""))
	db, work := filepath.Join(dir, "efaxx.db"), filepath.Join(dir, "runs")
	code, stdout, stderr := efaxx(t, "--db", db, "--workdir", work, "run", "--runner", runner(t), sweep)
	if code != 0 {
		t.Fatalf("efaxx run = %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Dir(canary)); err != nil {
		t.Fatalf("a value ran as a command: %v", err)
	}
	if _, err := os.Stat(canary); err == nil {
		t.Fatal("a value ran as a command: the canary file exists")
	}
	checkArgv(t, work, osu, labels)
	if n := count(t, db, `SELECT COUNT(*) FROM runs WHERE benchmark = 'osu:pingpong' AND status = 'ok' AND samples = 13`); n != len(labels) {
		t.Errorf("ok osu:pingpong runs of 13 sizes = %d, want %d\n%s", n, len(labels), stdout)
	}
	if n := count(t, db, `SELECT COUNT(*) FROM tool_values WHERE name = 'latency' AND unit LIKE 'us%'`); n != 13*len(labels) {
		t.Errorf("latency tool values = %d, want %d", n, 13*len(labels))
	}
	code, out, stderr := efaxx(t, "--db", db, "query", "--benchmark", "osu:pingpong", "--metric", "lat_us", "--by", "", "--format", "csv")
	if code != 0 || !strings.Contains(out, "osu:pingpong,4KiB,4,4,") {
		t.Errorf("query = %d:\n%s%s", code, out, stderr)
	}
}

// testTestbedExternal submits an external sweep to the testbed: the
// OSU-style ping-pong between h1 and h2, started by srun --mpi=pmix
// through efaxx-runner's external mode, one step per hostile label. The
// runs go through submit, sync and query like the runner's own, and every
// label reaches the program as one argument without running anything.
func testTestbedExternal(e *clusterEnv) {
	t := e.t
	osu := buildOSU(t)
	canary := filepath.Join(e.dir, "keep", "CANARY")
	if err := os.MkdirAll(filepath.Dir(canary), 0o755); err != nil {
		t.Fatal(err)
	}
	labels := hostileLabels(canary)
	e.workdir = filepath.Join(e.dir, "external-runs")
	sweep := e.sweep("osu", externalSweep("testbed-osu", osu, labels, "[slurm]\nnodes = 2\ntime = \"5\"\n"))
	session := e.submit(sweep)
	e.watch(session, 0)
	if n := count(t, e.db, `SELECT COUNT(*) FROM runs r JOIN jobs j ON j.id = r.job_id
		WHERE j.session = ? AND r.benchmark = 'osu:pingpong' AND r.status = 'ok' AND r.samples = 13
			AND r.hosts = '["h1","h2"]' AND r.node_list = 'h[1-2]'`, session); n != len(labels) {
		out := e.must(0, "runs", "--sweep", "testbed-osu")
		t.Fatalf("ok runs of 13 sizes on h1 and h2 = %d, want %d:\n%s", n, len(labels), out)
	}
	if _, err := os.Stat(canary); err == nil || !dirExists(filepath.Dir(canary)) {
		t.Fatal("a label ran as a command")
	}
	checkArgv(t, e.workdir, osu, labels)
	if out := e.must(0, "query", "--benchmark", "osu:pingpong", "--metric", "lat_us", "--by", "", "--format", "csv"); !strings.Contains(out, "osu:pingpong,4KiB,4,4,") {
		t.Errorf("query of the synced runs:\n%s", out)
	}
}

// dirExists reports whether dir is a directory.
func dirExists(dir string) bool {
	fi, err := os.Stat(dir)
	return err == nil && fi.IsDir()
}

// writeNCCLRun writes a run directory as an external sweep of
// alltoall_perf on 16 ranks leaves it, its rank 0 output the one recorded
// in results/external/testdata (the study's 2-node numbers).
func writeNCCLRun(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "p5-nccl-study", "20261122-120000-0000abcd", "000-0a201d2e358be80a")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "..", "sweep.toml"), "name = \"p5-nccl-study\"\n")
	var sizes []string
	for s := uint64(32 << 20); s <= 2<<30; s *= 2 {
		sizes = append(sizes, strconv.FormatUint(s, 10))
	}
	writeFile(t, filepath.Join(dir, "run.json"), `{"uid": "nccl-1", "sweep": "p5-nccl-study", "sweep_file": "../sweep.toml",
		"sweep_hash": "h", "point": "0a201d2e358be80a", "index": 0, "benchmark": "nccl:alltoall",
		"params": {"ranks": 16, "nodes": 2, "parser": "nccl-tests", "collective": "alltoall"},
		"sizes": [`+strings.Join(sizes, ",")+`], "ranks": 16, "executor": "slurm", "command": ["srun"],
		"start_ns": 1800000000000000000, "end_ns": 1800000100000000000, "exit_code": 0}`)
	writeFile(t, filepath.Join(dir, "external.json"), `{"argv": ["/opt/nccl-tests/build/alltoall_perf"], "parser": "nccl-tests"}`)
	for r := range 16 {
		writeFile(t, filepath.Join(dir, fmt.Sprintf("rank-%05d.ndjson", r)),
			fmt.Sprintf(`{"type":"rank","rank":%d,"world":16,"host":"p5-node-0%d","benchmark":"external"}`+"\n"+
				`{"type":"end","rank":%d,"status":"ok","elapsed_ns":1}`+"\n", r, 1+r/8, r))
		out := ""
		if r == 0 {
			b, err := os.ReadFile("../../results/external/testdata/nccl-tests/alltoall_16.rank0.txt")
			if err != nil {
				t.Fatal(err)
			}
			out = string(b)
		}
		writeFile(t, filepath.Join(dir, fmt.Sprintf("rank-%05d.stdout", r)), out)
	}
	return dir
}

// TestCompareStudyBaseline puts an external nccl-tests run beside the
// study's published numbers: the run holds the study's own 2-node row,
// so every size of the 16-GPU series compares at a ratio of 1, in both
// algbw and busbw, and the series of other GPU counts are left out.
func TestCompareStudyBaseline(t *testing.T) {
	db := filepath.Join(t.TempDir(), "efaxx.db")
	if code, out, stderr := efaxx(t, "--db", db, "ingest", writeNCCLRun(t)); code != 0 || !strings.Contains(out, "ok") {
		t.Fatalf("ingest = %d:\n%s%s", code, out, stderr)
	}
	if code, out, stderr := efaxx(t, "--db", db, "import", "baseline", "aws-gpu-comm-p5"); code != 0 {
		t.Fatalf("import baseline = %d:\n%s%s", code, out, stderr)
	}
	code, out, stderr := efaxx(t, "--db", db, "compare", "--baseline", "aws-gpu-comm-p5", "--format", "csv", "1")
	if code != 0 {
		t.Fatalf("compare --baseline = %d:\n%s%s", code, out, stderr)
	}
	t.Logf("efaxx compare --baseline aws-gpu-comm-p5:\n%s", out)
	rows := 0
	for _, line := range strings.Split(out, "\n") {
		if !strings.Contains(line, "GPUs") {
			continue
		}
		rows++
		if !strings.Contains(line, "16 GPUs") || !strings.Contains(line, ",1.000,") {
			t.Errorf("row %q: want a 16-GPU series at a ratio of 1.000", line)
		}
	}
	if rows != 4*7 { // 2 placements x algbw and busbw x 7 sizes
		t.Errorf("compare rows = %d, want 28:\n%s", rows, out)
	}
}

// TestRunNVBandwidth: nvbandwidth's output (here recorded on 4 H100s, printed
// by a stand-in program of that name) is stored as an external benchmark,
// nvbandwidth:nvbandwidth, in GB/s: the run's summary says GB/s, and show
// prints each pair matrix with its weakest pair.
func TestRunNVBandwidth(t *testing.T) {
	dir := t.TempDir()
	layout, err := filepath.Abs("../../results/external/testdata/nvbandwidth/h100x4-node.txt")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	prog := writeFile(t, filepath.Join(dir, "bin", "nvbandwidth"), "#!/bin/sh\nexec cat "+layout+"\n")
	if err := os.Chmod(prog, 0o755); err != nil {
		t.Fatal(err)
	}
	sweep := writeFile(t, filepath.Join(dir, "nvb.toml"), `name = "nvb"
benchmark = "external"
[params]
ranks = 1
sizes = ["512MiB"]
[external]
program = "`+prog+`"
args = ["-b", "512"]
parser = "nvbandwidth"
`)
	db := filepath.Join(dir, "efaxx.db")
	code, stdout, stderr := efaxx(t, "--db", db, "--workdir", filepath.Join(dir, "runs"), "run", "--runner", runner(t), sweep)
	if code != 0 || !strings.Contains(stdout, "GB/s MEDIAN") || !strings.Contains(stdout, "nvbandwidth:nvbandwidth") {
		t.Fatalf("efaxx run = %d, want a summary in GB/s\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	_, stdout, _ = efaxx(t, "--db", db, "show", "1")
	for _, want := range []string{"pairs at 512MiB, device_to_device_memcpy_write_ce, GB/s",
		"weakest pair: 0 -> 3 at 397.41 GB/s", "pairs at 512MiB, device_to_device_bidirectional_memcpy_write_ce_write2"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("show lacks %q:\n%s", want, stdout)
		}
	}
}

// TestPlanExternalCommandQuotes: efaxx plan shows each argument as one
// word. One that starts with {run_dir} was never quoted, so
// "{run_dir}/out dir/x" read as two arguments.
func TestPlanExternalCommandQuotes(t *testing.T) {
	sweep := writeFile(t, filepath.Join(t.TempDir(), "x.toml"), externalSweep("x", "/opt/osu_latency", []string{"a b"}, ""))
	text, err := os.ReadFile(sweep)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, sweep, strings.Replace(string(text), `"{run_dir}/argv.bin"`, `"{run_dir}/out dir/argv.bin", "{run_dir}/plain"`, 1))
	code, stdout, stderr := efaxx(t, "plan", sweep)
	if code != 0 || !strings.Contains(stdout, ` -a "{run_dir}/out dir/argv.bin" {run_dir}/plain "a b"`+"\n") {
		t.Errorf("plan = %d, want the argument with a space quoted whole\n%s%s", code, stdout, stderr)
	}
}
