package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"efaxx/results/synth"
)

func TestImportBaselineAndCompare(t *testing.T) {
	var runs []*synth.Run
	for i := range 6 {
		runs = append(runs, &synth.Run{UID: fmt.Sprint("w", i), Ranks: 4, Sizes: []uint64{1 << 20, 64 << 20}, Noise: 0.01,
			Seed: uint64(i + 1), Params: map[string]any{"provider": "efa", "memory": "device", "strategy": "single", "ranks": 4, "nodes": 4}})
	}
	// Half as fast, on loopback tcp from host memory: not SingleDMA's setup.
	for i := range 6 {
		runs = append(runs, &synth.Run{UID: fmt.Sprint("tcp", i), Ranks: 4, Sizes: []uint64{1 << 20, 64 << 20}, Noise: 0.01,
			Seed: uint64(i + 1), Offset: 2, Params: map[string]any{"provider": "tcp", "memory": "host", "strategy": "single", "ranks": 4, "nodes": 1}})
	}
	runs = append(runs, &synth.Run{UID: "sendrecv", Benchmark: "sendrecv", Ranks: 2, Sizes: []uint64{1 << 20},
		Params: map[string]any{"provider": "tcp", "memory": "host", "strategy": "single"}})
	db := writeSynth(t, runs...)
	code, stdout, stderr := efaxx(t, "--db", db, "import", "baseline", "libefaxx-p5")
	if code != 0 || !strings.Contains(stdout, "baseline libefaxx-p5: stored, 31 series") {
		t.Fatalf("efaxx import baseline libefaxx-p5 = %d\n%s%s", code, stdout, stderr)
	}
	if _, stdout, _ := efaxx(t, "--db", db, "import", "baseline", "../../results/baselines/libefaxx-p5.toml"); !strings.Contains(stdout, "unchanged") {
		t.Errorf("importing the same file again: %s, want unchanged", stdout)
	}
	// A synth run on a 100 Gbps link, 5 us per write: 94 Gbps at 1 MiB and
	// 99.9 at 64 MiB, beside SingleDMA's 64.23 and 96.59.
	code, stdout, stderr = efaxx(t, "--db", db, "compare", "--baseline", "libefaxx-p5", "--variant", "SingleDMA", "sweep:synth")
	if code != 0 {
		t.Fatalf("efaxx compare --baseline = %d\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{"one buffer of size bytes written per iteration", "experiments/write/README.md at a86dbc4e",
		"with the selected runs that have memory=device, nodes=4, provider=efa, ranks=4, strategy=single",
		"SingleDMA  libefaxx_gbps   1MiB    64.230     6", "96.590", "better"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("efaxx compare --baseline output lacks %q:\n%s", want, stdout)
		}
	}
	// The tcp runs alone: no series has their setup, so nothing is judged.
	code, stdout, stderr = efaxx(t, "--db", db, "compare", "--baseline", "libefaxx-p5", "--param", "provider=tcp", "sweep:synth")
	if want := "write SingleDMA libefaxx_gbps: no selected run has its setup: memory device (runs: host), nodes 4 (runs: 1), provider efa (runs: tcp)"; code != 3 ||
		stdout != "" || !strings.Contains(stderr, want) {
		t.Errorf("efaxx compare --baseline of tcp runs = %d, want 3 and %q:\n%s%s", code, want, stdout, stderr)
	}
	// All: the device runs are compared, the others named; sendrecv's
	// Device, which no run fits, says how they differ.
	code, stdout, stderr = efaxx(t, "--db", db, "compare", "--baseline", "libefaxx-p5", "--variant", "SingleDMA", "--variant", "Device",
		"sweep:synth")
	for _, want := range []string{"runs not compared: 7-13: no compared series has their benchmark and setup\n",
		"differs, not compared: sendrecv Device (libefaxx_gbps): memory: series device, runs host; provider: series efa, runs tcp\n"} {
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("efaxx compare --baseline --variant SingleDMA --variant Device = %d, want 0 and %q:\n%s%s", code, want, stdout, stderr)
		}
	}
	// sendrecv alone: no write row (and its one run, on tcp, fits no series).
	for _, args := range [][]string{{"--benchmark", "sendrecv", "sweep:synth"}, {"--b", "sweep:synth", "--b", "benchmark:sendrecv"}} {
		code, stdout, _ := efaxx(t, append([]string{"--db", db, "compare", "--baseline", "libefaxx-p5"}, args...)...)
		if code != 3 || strings.Contains(stdout, "write") {
			t.Errorf("efaxx compare --baseline libefaxx-p5 %v = %d, want 3 and no write row:\n%s", args, code, stdout)
		}
	}
	if code, _, stderr := efaxx(t, "--db", db, "compare", "--baseline", "libefaxx-p5", "--benchmark", "send", "1"); code != 2 ||
		!strings.Contains(stderr, `baseline "libefaxx-p5" has no series of benchmark "send" (it has all2all, proxy, queue, sendrecv, write)`) {
		t.Errorf("efaxx compare --baseline libefaxx-p5 --benchmark send = %d, %q; want 2 naming the baseline's benchmarks", code, stderr)
	}
	if code, _, stderr := efaxx(t, "--db", db, "compare", "--baseline", "libefaxx-p5", "status:failed"); code != 3 ||
		!strings.Contains(stderr, "status:failed selects no runs") {
		t.Errorf("efaxx compare --baseline libefaxx-p5 status:failed = %d, %q; want 3, selects no runs", code, stderr)
	}
	if code, _, stderr := efaxx(t, "--db", db, "compare", "--baseline", "libefaxx-p5", "--variant", "Nope", "1"); code != 2 ||
		!strings.Contains(stderr, `baseline "libefaxx-p5" has no variant "Nope" (the variants: Device, Host, ManagedBlocking, MultiDMA,`) {
		t.Errorf("efaxx compare --baseline libefaxx-p5 --variant Nope = %d, %q; want 2 naming the variants", code, stderr)
	}
	// A store that holds another libefaxx-p5 than the shipped one (an
	// import from before its series named their params) says so.
	shipped, err := os.ReadFile("../../results/baselines/libefaxx-p5.toml")
	if err != nil {
		t.Fatal(err)
	}
	old := writeFile(t, filepath.Join(t.TempDir(), "old.toml"), regexp.MustCompile(`(?m)^params .*\n`).ReplaceAllString(string(shipped), ""))
	note := "note: this store's libefaxx-p5 is not the file this efaxx ships; efaxx import baseline libefaxx-p5 replaces it\n"
	for _, file := range []string{old, "libefaxx-p5"} {
		efaxx(t, "--db", db, "import", "baseline", file)
		_, stdout, _ := efaxx(t, "--db", db, "compare", "--baseline", "libefaxx-p5", "--variant", "SingleDMA", "sweep:synth")
		if got := strings.Contains(stdout, note); got != (file == old) {
			t.Errorf("after efaxx import baseline %s, compare notes an import other than the shipped one: %v, want %v:\n%s",
				file, got, file == old, stdout)
		}
	}
	if code, _, stderr := efaxx(t, "--db", db, "compare", "--baseline", "nope", "1"); code != 2 || !strings.Contains(stderr, "efaxx import baseline nope") {
		t.Errorf("efaxx compare --baseline nope = %d, %q; want 2 with a hint", code, stderr)
	}
}

// TestImportBaselineChecksEveryName: a wrong name among several stores
// none of them, and creates no store.
func TestImportBaselineChecksEveryName(t *testing.T) {
	db := filepath.Join(t.TempDir(), "test.db")
	if code, stdout, stderr := efaxx(t, "--db", db, "import", "baseline", "libefaxx-p5", "nosuch"); code != 2 ||
		stdout != "" || !strings.Contains(stderr, `baseline "nosuch": no such file`) {
		t.Errorf("efaxx import baseline libefaxx-p5 nosuch = %d\n%s%s\nwant 2, nothing stored", code, stdout, stderr)
	}
	if _, err := os.Stat(db); err == nil {
		t.Errorf("a failed import baseline created %s", db)
	}
	if code, stdout, stderr := efaxx(t, "--db", db, "import", "baseline", "aws-gpu-comm-p5"); code != 0 {
		t.Fatalf("efaxx import baseline aws-gpu-comm-p5 = %d\n%s%s", code, stdout, stderr)
	}
	efaxx(t, "--db", db, "import", "baseline", "libefaxx-p5", "nosuch")
	if n := count(t, db, `SELECT COUNT(*) FROM baselines`); n != 1 {
		t.Errorf("after a failed import baseline: %d baselines stored, want 1", n)
	}
}

func TestImportNCCLTests(t *testing.T) {
	db := filepath.Join(t.TempDir(), "test.db")
	dir := "../../results/nccltests/testdata/"
	code, stdout, stderr := efaxx(t, "--db", db, "import", "nccl-tests", dir+"h100_all_reduce_8.txt", dir+"all_gather.json")
	if code != 0 || strings.Count(stdout, " new: ") != 4 || !strings.Contains(stdout, "nccl:all_reduce out-of-place float sum, 31 sizes, ok") {
		t.Fatalf("efaxx import nccl-tests = %d\n%s%s", code, stdout, stderr)
	}
	if got := runIDs(t, db, "--benchmark", "nccl:all_reduce", "--param", "placement=in-place", "--host", "gpu-dp-2jvzl-pqq7p"); len(got) != 1 {
		t.Errorf("imported in-place all_reduce runs on gpu-dp-2jvzl-pqq7p = %v, want one", got)
	}
	code, stdout, _ = efaxx(t, "--db", db, "import", "nccl-tests", dir+"alltoall_per_iter.txt")
	if code != 3 || !strings.Contains(stdout, "failed: nccl-tests data check: 3 wrong elements at size 1048576") {
		t.Errorf("import of a failed data check = %d, want 3\n%s", code, stdout)
	}
	bad := filepath.Join(t.TempDir(), "bad.log")
	text, err := os.ReadFile(dir + "h100_all_reduce_8.txt")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte(strings.Replace(string(text), "  210.34  ", "  2.1e+02x ", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := efaxx(t, "--db", db, "import", "nccl-tests", bad); code != 3 || !strings.HasPrefix(stderr, "efaxx: "+bad+":48: algbw \"2.1e+02x\"") {
		t.Errorf("import of a bad file = %d, %q; want 3 naming line 48", code, stderr)
	}
}

// TestImportNCCLTestsAllOrNothing: a file that is not nccl-tests output
// stores nothing of the files given with it, and creates no store.
func TestImportNCCLTestsAllOrNothing(t *testing.T) {
	db := filepath.Join(t.TempDir(), "test.db")
	good := "../../results/nccltests/testdata/h200_all_gather_2.txt"
	bad := writeFile(t, filepath.Join(t.TempDir(), "bad.log"), "not nccl-tests output\n")
	if code, stdout, stderr := efaxx(t, "--db", db, "import", "nccl-tests", good, bad); code != 3 || stdout != "" ||
		!strings.HasPrefix(stderr, "efaxx: "+bad+": no result table") {
		t.Errorf("efaxx import nccl-tests GOOD BAD = %d\n%s%s\nwant 3 naming %s, nothing stored", code, stdout, stderr, bad)
	}
	if _, err := os.Stat(db); err == nil {
		t.Errorf("a failed import nccl-tests created %s", db)
	}
	if code, stdout, stderr := efaxx(t, "--db", db, "import", "baseline", "libefaxx-p5"); code != 0 {
		t.Fatalf("efaxx import baseline = %d\n%s%s", code, stdout, stderr)
	}
	efaxx(t, "--db", db, "import", "nccl-tests", good, bad)
	if n := count(t, db, `SELECT COUNT(*) FROM runs`); n != 0 {
		t.Errorf("after a failed import nccl-tests: %d runs stored, want 0", n)
	}
}

// TestImportNCCLTestsCutShort: a log that ends before nccl-tests' "# Out
// of bounds values" line (a job killed mid-test) fails its runs, as in an
// external sweep, and a line before the table that is not nccl-tests'
// is reported at its line: it was stored as a complete, ok run, the
// line dropped in silence.
func TestImportNCCLTestsCutShort(t *testing.T) {
	db := filepath.Join(t.TempDir(), "test.db")
	text, err := os.ReadFile("../../results/nccltests/testdata/h200_all_gather_2.txt")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(text), "\n")
	cut := writeFile(t, filepath.Join(t.TempDir(), "cut.log"), "srun: job step 7 started\n"+strings.Join(lines[:23], ""))
	code, stdout, stderr := efaxx(t, "--db", db, "import", "nccl-tests", cut)
	if code != 3 || strings.Count(stdout, "failed: the output ends before nccl-tests' \"# Out of bounds values\" line: cut short") != 2 ||
		!strings.Contains(stderr, cut+":1: line not understood: \"srun: job step 7 started\"") {
		t.Errorf("import of a cut-short log = %d\n%s%s\nwant 3, two failed runs and the line reported", code, stdout, stderr)
	}
}

// TestToolMetricUnit: a tool value's metric (tool:NAME) is stated in the
// unit the tool printed it in, as the figures' axes state it, not under
// its own name ("MIN (time)").
func TestToolMetricUnit(t *testing.T) {
	db := filepath.Join(t.TempDir(), "x.db")
	if code, _, stderr := efaxx(t, "--db", db, "import", "nccl-tests", "../../results/nccltests/testdata/h200_all_reduce_2.txt"); code != 0 {
		t.Fatalf("import = %d\n%s", code, stderr)
	}
	for _, args := range [][]string{
		{"query", "--metric", "tool:time"},
		{"compare", "--metric", "tool:time", "1", "2"},
		{"show", "--ranks", "--metric", "tool:time", "1"},
	} {
		code, stdout, stderr := efaxx(t, append([]string{"--db", db, "--format", "csv"}, args...)...)
		if code != 0 || !strings.Contains(stdout, " (us)") || strings.Contains(stdout, "(time)") {
			t.Errorf("efaxx %s = %d, want the unit us\n%s%s", strings.Join(args, " "), code, stdout, stderr)
		}
	}
}

// TestCheckToolUnit: check states a tool value in the unit its tool
// printed it in, as query does, not in its name ("9.480 time").
func TestCheckToolUnit(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "x.db")
	if code, _, stderr := efaxx(t, "--db", db, "import", "nccl-tests", "../../results/nccltests/testdata/h200_all_reduce_2.txt"); code != 0 {
		t.Fatalf("import = %d\n%s", code, stderr)
	}
	expect := writeFile(t, filepath.Join(dir, "e.toml"), `name = "e"
benchmark = "external"
[external]
program = "true"
parser = "nccl-tests"
[[expect]]
where = { benchmark = "nccl:all_reduce", size = "8B" }
metric = "tool:time"
min = 0
`)
	code, stdout, stderr := efaxx(t, "--db", db, "check", "--expect", expect, "1")
	if code != 0 || !strings.Contains(stdout, "9.480 us") || strings.Contains(stdout, " time ") {
		t.Errorf("efaxx check of tool:time = %d, want its value in us\n%s%s", code, stdout, stderr)
	}
}

// TestShowRanksEmptyLists: show --ranks's JSON writes an empty list as [],
// never null (docs/cli.md), for an imported run, whose samples name no host.
func TestShowRanksEmptyLists(t *testing.T) {
	db := filepath.Join(t.TempDir(), "x.db")
	if code, _, stderr := efaxx(t, "--db", db, "import", "nccl-tests", "../../results/nccltests/testdata/h200_all_reduce_2.txt"); code != 0 {
		t.Fatalf("import = %d\n%s", code, stderr)
	}
	code, stdout, stderr := efaxx(t, "--db", db, "show", "--ranks", "--format", "json", "1")
	var sp map[string]any
	if err := json.Unmarshal([]byte(stdout), &sp); code != 0 || err != nil {
		t.Fatalf("show --ranks --format json = %d, %v\n%s%s", code, err, stdout, stderr)
	}
	for _, k := range []string{"sizes", "slowest_ranks", "slowest_hosts", "slowest_rails"} {
		if _, ok := sp[k].([]any); !ok {
			t.Errorf("show --ranks --format json: %s = %v, want a list ([] for none)", k, sp[k])
		}
	}
}
