package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"efaxx/results/record"
	"efaxx/results/synth"
)

// writeSynth writes synthetic runs into a new session directory and
// ingests them into a new store, and returns the store's path.
func writeSynth(t *testing.T, runs ...*synth.Run) string {
	t.Helper()
	dir := t.TempDir()
	session := filepath.Join(dir, "session")
	for i, r := range runs {
		if err := r.Write(filepath.Join(session, fmt.Sprintf("%03d", i))); err != nil {
			t.Fatal(err)
		}
	}
	db := filepath.Join(dir, "test.db")
	want := 0
	if slices.ContainsFunc(runs, func(r *synth.Run) bool { return r.Fail != "" }) {
		want = 3 // a run that did not end ok
	}
	if code, stdout, stderr := efaxx(t, "--db", db, "ingest", session); code != want {
		t.Fatalf("efaxx ingest = %d, want %d\n%s%s", code, want, stdout, stderr)
	}
	return db
}

// runIDs runs efaxx runs with args and --format json, and returns the ids.
func runIDs(t *testing.T, db string, args ...string) []int64 {
	t.Helper()
	code, stdout, stderr := efaxx(t, append([]string{"--db", db, "runs", "--format", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("efaxx runs %v = %d: %s", args, code, stderr)
	}
	var runs []struct {
		ID int64 `json:"id"`
	}
	if err := json.Unmarshal([]byte(stdout), &runs); err != nil {
		t.Fatalf("efaxx runs %v: %v\n%s", args, err, stdout)
	}
	var ids []int64
	for _, r := range runs {
		ids = append(ids, r.ID)
	}
	return ids
}

func TestRunsFilters(t *testing.T) {
	day := int64(24 * 3600 * 1e9)
	db := writeSynth(t,
		&synth.Run{UID: "a", Benchmark: "write", Ranks: 2, Sizes: []uint64{4096}, StartNs: 1_700_000_000e9,
			Params: map[string]any{"provider": "shm", "chunk": 1 << 20}, Tags: map[string]string{"cluster": "a"}},
		&synth.Run{UID: "b", Benchmark: "sendrecv", Ranks: 16, Sizes: []uint64{4096}, StartNs: 1_700_000_000e9 + day,
			Params: map[string]any{"provider": "tcp", "chunk": 65536}, Tags: map[string]string{"cluster": "b"}},
		&synth.Run{UID: "c", Benchmark: "write", Ranks: 2, Sizes: []uint64{4096}, StartNs: 1_700_000_000e9 + 2*day,
			Params: map[string]any{"provider": "tcp", "chunk": 1 << 20}, Tags: map[string]string{"cluster": "a", "baseline": "yes"}},
	)
	tests := []struct {
		args []string
		want []int64
	}{
		{nil, []int64{3, 2, 1}},
		{[]string{"--benchmark", "write"}, []int64{3, 1}},
		{[]string{"--tag", "cluster=a"}, []int64{3, 1}},
		{[]string{"--tag", "cluster=a", "--tag", "baseline"}, []int64{3}},
		{[]string{"--param", "chunk=1MiB"}, []int64{3, 1}},
		{[]string{"--param", "chunk=1MiB", "--param", "provider=tcp"}, []int64{3}},
		{[]string{"--host", "node0001"}, []int64{2}}, // 16 ranks, 8 per host
		{[]string{"--since", "2023-11-15T22:13:20Z"}, []int64{3, 2}},
		{[]string{"--until", "2023-11-15T22:13:20Z"}, []int64{1}},
		{[]string{"--status", "failed"}, nil},
		{[]string{"--limit", "1"}, []int64{3}},
	}
	for _, tt := range tests {
		if got := runIDs(t, db, tt.args...); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("efaxx runs %v = %v, want %v", tt.args, got, tt.want)
		}
	}
	for _, bad := range [][]string{{"--param", "chunk=1.5MiB"}, {"--tag", "=x"}, {"--since", "yesterday"},
		// More days than a time.Duration holds: not a wrapped-around bound.
		{"--since", "now-200000d"}, {"--until", "now-106752d"}, {"--since", "now-3000000h"},
		// Times whose Unix nanoseconds an int64 cannot hold, which the store compares.
		{"--since", "1600-01-01"}, {"--until", "2300-01-01"}} {
		if code, _, _ := efaxx(t, append([]string{"--db", db, "runs"}, bad...)...); code != 2 {
			t.Errorf("efaxx runs %v = %d, want 2", bad, code)
		}
	}
}

// TestRunsParamChunkAuto: a point stores chunk "auto" as the bytes it
// resolves to, so --param chunk=auto selects the runs whose chunk is the
// one "auto" gives their benchmark, strategy and memory (write's 8 MiB
// but under per-op and adaptive, 1 MiB elsewhere; 64 MiB on GPU memory
// under single, split and round-robin), as a sweep's chunk = "auto" ran.
func TestRunsParamChunkAuto(t *testing.T) {
	run := func(uid, benchmark, strategy, memory string, chunk int) *synth.Run {
		return &synth.Run{UID: uid, Benchmark: benchmark, Ranks: 2, Sizes: []uint64{4096},
			Params: map[string]any{"strategy": strategy, "memory": memory, "chunk": chunk}}
	}
	db := writeSynth(t,
		run("a", "write", "single", "host", 8<<20), run("b", "write", "single", "host", 1<<20),
		run("c", "write", "per-op", "pinned", 1<<20), run("d", "sendrecv", "single", "host", 1<<20),
		run("e", "sendrecv", "split", "host", 8<<20), run("f", "all2all", "adaptive", "host", 1<<20),
		run("g", "write", "single", "device", 64<<20), run("h", "write", "single", "device", 8<<20),
		run("i", "sendrecv", "single", "device", 1<<20))
	tests := []struct {
		args []string
		want []int64
	}{
		{[]string{"--param", "chunk=auto"}, []int64{7, 6, 4, 3, 1}},
		{[]string{"--param", "chunk=auto", "--benchmark", "write"}, []int64{7, 3, 1}},
		{[]string{"--param", "chunk=auto", "--param", "strategy=single"}, []int64{7, 4, 1}},
		{[]string{"--param", "chunk=auto", "--param", "memory=device"}, []int64{7}},
		{[]string{"--param", "chunk=8MiB"}, []int64{8, 5, 1}},
	}
	for _, tt := range tests {
		if got := runIDs(t, db, tt.args...); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("efaxx runs %v = %v, want %v", tt.args, got, tt.want)
		}
	}
}

func TestTag(t *testing.T) {
	db := writeSynth(t, &synth.Run{UID: "a", Ranks: 2, Sizes: []uint64{4096}, Tags: map[string]string{"site": "x"}})
	code, stdout, stderr := efaxx(t, "--db", db, "tag", "--delete", "site", "1", "driver=550.54", "note=after the swap")
	if code != 0 || strings.TrimSpace(stdout) != "run 1: driver=550.54,note=after the swap" {
		t.Fatalf("efaxx tag = %d, %q, %q", code, stdout, stderr)
	}
	if got := runIDs(t, db, "--tag", "driver=550.54"); !reflect.DeepEqual(got, []int64{1}) {
		t.Errorf("runs tagged driver=550.54 = %v, want [1]", got)
	}
	// No run has the key any more: a filter on it is an error, as a typo is.
	if code, _, stderr := efaxx(t, "--db", db, "runs", "--tag", "site"); code != 2 || !strings.Contains(stderr, `tag "site": matches nothing`) {
		t.Errorf("runs tagged site (deleted) = %d, %q; want 2: no run has the key", code, stderr)
	}
	if code, _, stderr := efaxx(t, "--db", db, "tag", "7", "a=b"); code != 3 || !strings.Contains(stderr, "run 7: not in the store") {
		t.Errorf("efaxx tag of a missing run = %d, %q; want 3 naming the run", code, stderr)
	}
	if code, _, _ := efaxx(t, "--db", db, "tag", "1", "novalue"); code != 2 {
		t.Errorf("efaxx tag 1 novalue = %d, want 2", code)
	}
}

// TestTagComma: efaxx tag refuses a value with a comma, which the TAGS
// column could not tell from two tags, and --tag selects a stored value as
// it is, commas and edge spaces included (a run.json may hold one).
func TestTagComma(t *testing.T) {
	db := writeSynth(t, &synth.Run{UID: "a", Ranks: 2, Sizes: []uint64{4096}, Tags: map[string]string{"v": "a,b=c"}},
		&synth.Run{UID: "b", Ranks: 2, Sizes: []uint64{4096}, Tags: map[string]string{"v": "a"}})
	if code, _, stderr := efaxx(t, "--db", db, "tag", "2", "v=a,b=c"); code != 2 || !strings.Contains(stderr, "comma") {
		t.Errorf("efaxx tag 2 v=a,b=c = %d, %q; want 2 refusing the comma", code, stderr)
	}
	if code, _, _ := efaxx(t, "--db", db, "tag", "2", "note= spaced "); code != 0 {
		t.Fatalf("efaxx tag 2 'note= spaced ' = %d, want 0", code)
	}
	for _, tt := range []struct {
		tag  string
		want []int64
	}{
		{"v=a,b=c", []int64{1}},
		{"v=a", []int64{2}},
		{"note= spaced ", []int64{2}},
	} {
		if got := runIDs(t, db, "--tag", tt.tag); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("efaxx runs --tag %q = %v, want %v", tt.tag, got, tt.want)
		}
	}
}

func TestQueryCommand(t *testing.T) {
	db := writeSynth(t,
		&synth.Run{UID: "a", Ranks: 4, Sizes: []uint64{4096, 1 << 20}, Params: map[string]any{"provider": "shm"}},
		&synth.Run{UID: "b", Ranks: 4, Sizes: []uint64{4096, 1 << 20}, Params: map[string]any{"provider": "tcp"}, Seed: 2},
	)
	code, stdout, stderr := efaxx(t, "--db", db, "query", "--format", "csv")
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if code != 0 || len(lines) != 5 || !strings.HasPrefix(lines[0], "BENCHMARK,PROVIDER,SIZE,RUNS,SAMPLES,MIN (Gbps),MEDIAN (Gbps)") ||
		!strings.HasPrefix(lines[1], "write,shm,4KiB,1,4,") {
		t.Fatalf("efaxx query = %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, _ = efaxx(t, "--db", db, "query", "--by", "", "--metric", "lat_us", "--format", "json")
	var res struct {
		Metric struct{ Name string }
		Rows   []struct{ Count, Runs int }
	}
	if err := json.Unmarshal([]byte(stdout), &res); code != 0 || err != nil || res.Metric.Name != "lat_us" ||
		len(res.Rows) != 2 || res.Rows[0].Count != 8 || res.Rows[0].Runs != 2 {
		t.Errorf("efaxx query --by '' --metric lat_us = %d, %+v, %v\n%s", code, res, err, stdout)
	}
	if code, _, stderr := efaxx(t, "--db", db, "query", "--metric", "bandwidth"); code != 2 || !strings.Contains(stderr, "known: gbps") {
		t.Errorf("efaxx query --metric bandwidth = %d, %q; want 2 listing the metrics", code, stderr)
	}
}

// TestQueryNotOK: query aggregates and exports the runs that ended ok,
// and names the others on stderr, as compare leaves them out, unless
// --status selects a status (any: every run); stdout stays CSV and JSON. A failed run's
// samples were pooled with the ok runs' as if it had measured its point.
func TestQueryNotOK(t *testing.T) {
	day := int64(24 * 3600 * 1e9)
	db := writeSynth(t,
		&synth.Run{UID: "a", Ranks: 2, Sizes: []uint64{4096}, StartNs: 1_700_000_000e9},
		&synth.Run{UID: "b", Ranks: 2, Sizes: []uint64{4096}, StartNs: 1_700_000_000e9 + day, Seed: 2, Fail: "verification failed at 4096 B"},
		&synth.Run{UID: "c", Ranks: 2, Sizes: []uint64{4096}, StartNs: 1_700_000_000e9 + 2*day, Seed: 3, Fail: "rank 0: timed out"},
	)
	const note = "note: left out runs 2-3, which did not end ok (--status STATUS queries them)\n"
	code, stdout, stderr := efaxx(t, "--db", db, "query", "--format", "csv")
	if lines := strings.Split(strings.TrimSpace(stdout), "\n"); code != 0 || len(lines) != 2 || !strings.HasPrefix(lines[1], "write,4KiB,1,2,") ||
		stderr != note {
		t.Errorf("efaxx query --format csv = %d, %q, %q; want run 1 alone (1 run, 2 samples), runs 2-3 named on stderr", code, stdout, stderr)
	}
	code, stdout, stderr = efaxx(t, "--db", db, "query", "--format", "json")
	var res struct{ Rows []struct{ Runs, Count int } }
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || code != 0 || len(res.Rows) != 1 || res.Rows[0].Runs != 1 || stderr != note {
		t.Errorf("efaxx query --format json = %d, %+v, %v, %q; want 1 run in JSON, the note on stderr", code, res, err, stderr)
	}
	code, stdout, stderr = efaxx(t, "--db", db, "query", "--raw", "--format", "ndjson")
	if code != 0 || strings.Count(stdout, "\n") != 2 || strings.Count(stdout, `"run":1,`) != 2 || stderr != note {
		t.Errorf("efaxx query --raw = %d, %q, %q; want run 1's 2 samples, the note on stderr", code, stdout, stderr)
	}
	code, stdout, stderr = efaxx(t, "--db", db, "query", "--since", "2023-11-15", "--format", "csv")
	if code != 0 || strings.Count(stdout, "\n") != 1 || stderr != note {
		t.Errorf("efaxx query of failed runs only = %d, %q, %q; want the header alone and both runs named", code, stdout, stderr)
	}
	code, stdout, stderr = efaxx(t, "--db", db, "query", "--status", "failed", "--format", "csv")
	if lines := strings.Split(strings.TrimSpace(stdout), "\n"); code != 0 || len(lines) != 2 || !strings.HasPrefix(lines[1], "write,4KiB,2,4,") ||
		stderr != "" {
		t.Errorf("efaxx query --status failed = %d, %q, %q; want runs 2-3 (2 runs, 4 samples), no note", code, stdout, stderr)
	}
	code, stdout, stderr = efaxx(t, "--db", db, "query", "--status", "any", "--format", "csv")
	if lines := strings.Split(strings.TrimSpace(stdout), "\n"); code != 0 || len(lines) != 2 || !strings.HasPrefix(lines[1], "write,4KiB,3,6,") ||
		stderr != "" {
		t.Errorf("efaxx query --status any = %d, %q, %q; want every run (3 runs, 6 samples), no note", code, stdout, stderr)
	}
}

// TestShowCSVNotOK: show's CSV holds the numbers alone, so a run that did
// not end ok is named on stderr, as its table's header and its JSON say
// it; the CSV of a failed run read as a measurement of its point.
func TestShowCSVNotOK(t *testing.T) {
	db := writeSynth(t, &synth.Run{UID: "a", Ranks: 2, Sizes: []uint64{4096}},
		&synth.Run{UID: "b", Ranks: 2, Sizes: []uint64{4096}, Seed: 2, Fail: "verification failed \x1b[2J at 4096 B"})
	const note = "note: run 2 did not end ok: failed (rank 0: verification failed \\x1b[2J at 4096 B)\n"
	for _, args := range [][]string{{"show", "--format", "csv", "2"}, {"show", "--ranks", "--format", "csv", "2"}} {
		code, stdout, stderr := efaxx(t, append([]string{"--db", db}, args...)...)
		if code != 0 || !strings.HasPrefix(stdout, "SIZE,") || stderr != note {
			t.Errorf("efaxx %v = %d, %q, %q; want the CSV on stdout, the status on stderr", args, code, stdout, stderr)
		}
		args[len(args)-1] = "1"
		if code, _, stderr := efaxx(t, append([]string{"--db", db}, args...)...); code != 0 || stderr != "" {
			t.Errorf("efaxx %v of an ok run = %d, %q; want no note", args, code, stderr)
		}
	}
}

func TestShowRanks(t *testing.T) {
	db := writeSynth(t, &synth.Run{UID: "a", Ranks: 16, PerHost: 4, Sizes: []uint64{4096, 1 << 20},
		Noise: 0.005, Slow: map[int]float64{6: 2}})
	code, stdout, stderr := efaxx(t, "--db", db, "show", "--ranks", "--top", "3", "1")
	if code != 0 {
		t.Fatalf("efaxx show --ranks = %d: %s", code, stderr)
	}
	_, after, found := strings.Cut(stdout, "SLOWEST RANKS")
	lines := strings.Split(after, "\n")
	if !found || len(lines) < 2 || !strings.HasPrefix(strings.Fields(lines[1])[0], "6") || !strings.Contains(lines[1], "node0001") ||
		!strings.Contains(lines[1], "0.50") {
		t.Errorf("efaxx show --ranks: want rank 6 on node0001 at speed 0.50 first among the slowest:\n%s", stdout)
	}
	if code, after, stderr := efaxx(t, "--db", db, "show", "1", "--ranks", "--top", "3"); code != 0 || after != stdout {
		t.Errorf("efaxx show 1 --ranks --top 3 = %d, %q; want what flags before the run id print:\n%s", code, stderr, after)
	}
}

func TestCompareCommand(t *testing.T) {
	sizes := []uint64{4096, 65536, 1 << 20}
	all := map[int]float64{}
	for r := range 8 {
		all[r] = 1 / 0.9
	}
	rng := rand.New(rand.NewPCG(1, 1))
	var runs []*synth.Run
	for i := range 10 {
		r := &synth.Run{UID: fmt.Sprint("run", i), Ranks: 8, Sizes: sizes, Noise: 0.03, Seed: uint64(i + 1),
			Offset: math.Exp(0.02 * rng.NormFloat64()), Tags: map[string]string{"build": "old"},
			Params: map[string]any{"provider": "shm", "chunk": 1 << 20}}
		if i >= 5 { // runs 6-10: a new build, 10% slower at 64KiB, with a bigger chunk
			r.Tags["build"], r.Params["chunk"], r.Slow, r.SlowSizes = "new", 2<<20, all, map[uint64]bool{65536: true}
		}
		runs = append(runs, r)
	}
	db := writeSynth(t, runs...)
	code, stdout, stderr := efaxx(t, "--db", db, "compare", "--a", "tag:build=old", "--b", "tag:build=new", "--by", "")
	if code != 1 || !strings.Contains(stdout, "3 rows: 1 REGRESSION, 2 ~") || !strings.Contains(stdout, "differs: chunk: A 1048576, B 2097152") {
		t.Errorf("efaxx compare --a tag:build=old --b tag:build=new = %d, want 1 with one regression, naming chunk\n%s%s", code, stdout, stderr)
	}
	for _, line := range strings.Split(stdout, "\n") {
		if strings.Contains(line, "REGRESSION") && strings.Contains(line, "KiB") && !strings.Contains(line, "64KiB") {
			t.Errorf("a regression outside 64KiB: %q", line)
		}
	}
	// The same sides as ids, as arguments, and a flag after them.
	_, table, _ := strings.Cut(stdout, "\n") // past the line that names the sides
	if code, out, _ := efaxx(t, "--db", db, "compare", "1,2,3,4,5", "6,7,8,9,10", "--by", ""); code != 1 || !strings.HasSuffix(out, table) {
		t.Errorf("efaxx compare 1,2,3,4,5 6,7,8,9,10 = %d, want what --a and --b gave:\n%s", code, out)
	}
	// One run a side: too little evidence, said plainly, exit 0.
	code, stdout, _ = efaxx(t, "--db", db, "compare", "1", "6")
	if code != 0 || !strings.Contains(stdout, "3 rows: 3 inconclusive") ||
		!strings.Contains(stdout, "inconclusive: too few runs to judge 3 rows (1 run in A, 1 run in B: a verdict needs 4 runs a side)") {
		t.Errorf("efaxx compare 1 6 = %d, want 0 and inconclusive\n%s", code, stdout)
	}
	code, stdout, _ = efaxx(t, "--db", db, "compare", "--format", "json", "--a", "tag:build=old", "--b", "tag:build=new",
		"--b", "param:chunk=2MiB", "--threshold", "0.2")
	var c struct {
		Rows []struct {
			A       struct{ Runs, Samples int }
			Verdict string
		}
		Differ []struct{ Key string }
	}
	if err := json.Unmarshal([]byte(stdout), &c); err != nil || code != 0 || len(c.Rows) != 3 || c.Rows[0].A.Runs != 5 ||
		c.Rows[0].A.Samples != 40 || c.Rows[1].Verdict != "worse" || len(c.Differ) != 1 {
		t.Errorf("efaxx compare --threshold 0.2 --format json = %d, %+v, %v; want 64KiB worse, not a regression", code, c, err)
	}
	// A side of no run is said to be one, not to share nothing with the other.
	if code, _, stderr := efaxx(t, "--db", db, "compare", "tag:build=old", "status:failed"); code != 3 ||
		stderr != "efaxx: compare tag:build=old with status:failed: side B selects no runs\n" {
		t.Errorf("efaxx compare tag:build=old status:failed = %d, %q; want 3, side B selects no runs", code, stderr)
	}
	// Sides that share runs would compare those with themselves: "~", which reads as a pass.
	for _, sides := range [][]string{{"1,2,3,4,5", "1,2,3,4,5", "share runs 1-5:"}, {"tag:build=new", "8,9,10,1", "share runs 8-10:"}} {
		if code, _, stderr := efaxx(t, "--db", db, "compare", sides[0], sides[1]); code != 2 || !strings.Contains(stderr, sides[2]) {
			t.Errorf("efaxx compare %s %s = %d, %q; want 2, %q", sides[0], sides[1], code, stderr, sides[2])
		}
	}
	for _, bad := range [][]string{{"1"}, {"1", "x"}, {"--threshold", "2", "1", "2"}, {"1", "yesterday..now"}, {"--a", "1", "2", "3"},
		{"--a", "1"}, {"--alpha", "0", "1", "2"}, {"--a", "bogus:1", "--b", "2"},
		// NaN fails every comparison: as a threshold it made each regression "worse", as alpha each row "~".
		{"--threshold", "NaN", "1,2,3,4,5", "6,7,8,9,10"}, {"--alpha", "NaN", "1,2,3,4,5", "6,7,8,9,10"},
		{"--resamples", "1000001", "1", "6"}} {
		if code, _, stderr := efaxx(t, append([]string{"--db", db, "compare"}, bad...)...); code != 2 || strings.Count(stderr, "\n") != 2 {
			t.Errorf("efaxx compare %v = %d, %q; want 2, one line and the usage", bad, code, stderr)
		}
	}
}

const checkSpec = `name = "accept"
benchmark = "write"

[[expect]]
name  = "line rate"
where = { size = ">= 1MiB" }
min   = 95

[[expect]]
name  = "small messages"
where = { size = "4KiB" }
ref   = 50
tolerance = "10%"
`

func TestCheckCommand(t *testing.T) {
	db := writeSynth(t, &synth.Run{UID: "a", Ranks: 4, Sizes: []uint64{4096, 64 << 20}, Spec: checkSpec})
	code, stdout, stderr := efaxx(t, "--db", db, "check", "1")
	if code != 1 || !strings.Contains(stdout, "1 passed, 1 failed") || !strings.Contains(stdout, ">= 50 - 10%") {
		t.Errorf("efaxx check 1 = %d, want 1 with one failure\n%s%s", code, stdout, stderr)
	}
	pass := writeFile(t, filepath.Join(t.TempDir(), "pass.toml"), strings.Replace(checkSpec, "ref   = 50", "ref   = 6", 1))
	if code, stdout, stderr := efaxx(t, "--db", db, "check", "--expect", pass, "1"); code != 0 || !strings.Contains(stdout, "2 passed, 0 failed") {
		t.Errorf("efaxx check --expect pass.toml 1 = %d\n%s%s", code, stdout, stderr)
	}
	none := writeFile(t, filepath.Join(t.TempDir(), "none.toml"), "name = \"n\"\nbenchmark = \"sendrecv\"\n[[expect]]\nwhere = { benchmark = \"sendrecv\" }\nmin = 1\n")
	if code, stdout, _ := efaxx(t, "--db", db, "check", "--expect", none, "synth"); code != 1 || !strings.Contains(stdout, "no run or size matched") {
		t.Errorf("efaxx check of an expectation nothing matches = %d, want 1\n%s", code, stdout)
	}
	// In JSON, no data is a null value, not a 0 that reads as measured.
	code, stdout, _ = efaxx(t, "--db", db, "check", "--expect", none, "--format", "json", "1")
	var recs []map[string]any
	if err := json.Unmarshal([]byte(stdout), &recs); code != 1 || err != nil || len(recs) != 1 {
		t.Fatalf("efaxx check --format json of an expectation nothing matches = %d, %v\n%s", code, err, stdout)
	}
	if v, ok := recs[0]["value"]; !ok || v != nil || recs[0]["result"] != "no data" {
		t.Errorf("efaxx check --format json: no data as %v; want \"value\": null, \"result\": \"no data\"", recs[0])
	}
	bad := writeFile(t, filepath.Join(t.TempDir(), "bad.toml"), "name = \"n\"\nbenchmark = \"write\"\n[[expect]]\nmin = \"x\"\n")
	if code, _, stderr := efaxx(t, "--db", db, "check", "--expect", bad, "1"); code != 3 || !strings.Contains(stderr, bad+":4: expect[1].min: want number, got string") {
		t.Errorf("efaxx check --expect bad.toml = %d, stderr %q; want 3 naming the line", code, stderr)
	}
}

// TestCheckNotOK: a run that did not end ok is not judged, as compare,
// plot and query leave it out, and it fails the check, named: its sizes
// passed their bands, exit 0, though the run had failed, and leaving it
// out alone would pass a session whose failed run's numbers fail.
func TestCheckNotOK(t *testing.T) {
	spec := "name = \"accept\"\nbenchmark = \"write\"\n[[expect]]\nwhere = { size = \"4KiB\" }\nmin = 1\n"
	db := writeSynth(t, &synth.Run{UID: "a", Ranks: 2, Sizes: []uint64{4096}, Spec: spec},
		&synth.Run{UID: "b", Ranks: 2, Sizes: []uint64{4096}, Seed: 2, Spec: spec, Fail: "verification failed at 65536 B"})
	const left = "left out, failing the check: run 2 (failed), which did not end ok"
	code, stdout, stderr := efaxx(t, "--db", db, "check", "synth")
	if code != 1 || !strings.Contains(stdout, left) || !strings.Contains(stdout, "1 passed, 0 failed") || strings.Count(stdout, "pass") != 2 {
		t.Errorf("efaxx check of an ok run and a failed one = %d, want 1, run 1 judged, run 2 named\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = efaxx(t, "--db", db, "check", "--format", "json", "2")
	var recs []map[string]any
	if err := json.Unmarshal([]byte(stdout), &recs); code != 1 || err != nil || len(recs) != 1 || recs[0]["result"] != "no data" ||
		stderr != "note: "+left+"\n" {
		t.Errorf("efaxx check --format json 2 = %d, %v, %q, %v; want 1, no data, run 2 named on stderr", code, recs, stderr, err)
	}
}

// TestShowWhere: show prints where the ranks ran, from their
// fingerprints: the OS, whether in a container, and the image.
func TestShowWhere(t *testing.T) {
	img := &record.Image{Ref: "/images/efaxx.sqsh", Digest: "sha256:1c9e", Env: map[string]string{"GREETING": "hi"}}
	db := writeSynth(t,
		&synth.Run{UID: "a", Ranks: 2, Sizes: []uint64{4096}, Fingerprint: func(_ int, fp *record.Rank) {
			fp.OS, fp.InContainer, fp.Image = "Debian GNU/Linux 12 (bookworm)", true, img
		}},
		&synth.Run{UID: "b", Ranks: 2, Sizes: []uint64{4096}, Seed: 2, Fingerprint: func(_ int, fp *record.Rank) {
			fp.OS = "Debian GNU/Linux 12 (bookworm)"
		}})
	for id, want := range map[string][]string{
		"1": {"os               Debian GNU/Linux 12 (bookworm)\n", "in_container     true\n",
			`image            {"ref":"/images/efaxx.sqsh","digest":"sha256:1c9e","env":{"GREETING":"hi"}}` + "\n"},
		"2": {"os               Debian GNU/Linux 12 (bookworm)\n", "in_container     false\n"},
	} {
		code, stdout, stderr := efaxx(t, "--db", db, "show", id)
		for _, w := range want {
			if code != 0 || !strings.Contains(stdout, w) {
				t.Errorf("efaxx show %s = %d, want %q in:\n%s%s", id, code, w, stdout, stderr)
			}
		}
		if id == "2" && strings.Contains(stdout, "image ") {
			t.Errorf("efaxx show %s prints an image for a run on the host:\n%s", id, stdout)
		}
	}
}

// TestTagDeleteWhole: tag --delete takes its key whole, as written (edge
// spaces kept, no split at commas), as --tag does; a key no run can hold
// is refused rather than deleting nothing, and so is a key both set and
// deleted in one command.
func TestTagDeleteWhole(t *testing.T) {
	db := writeSynth(t, &synth.Run{UID: "a", Ranks: 2, Sizes: []uint64{4096}, Tags: map[string]string{"site": "x"}})
	tag := func(args ...string) (int, string, string) {
		t.Helper()
		code, stdout, stderr := efaxx(t, append([]string{"--db", db, "tag", "1"}, args...)...)
		return code, strings.TrimSpace(stdout), stderr
	}
	if code, stdout, stderr := tag(" note=v", "note=w"); code != 0 || stdout != "run 1:  note=v,note=w,site=x" {
		t.Fatalf("efaxx tag 1 ' note=v' note=w = %d, %q, %q", code, stdout, stderr)
	}
	if code, stdout, stderr := tag("--delete", " note"); code != 0 || stdout != "run 1: note=w,site=x" {
		t.Errorf("efaxx tag 1 --delete ' note' = %d, %q, %q; want only the key ' note' deleted", code, stdout, stderr)
	}
	for _, bad := range [][]string{{"--delete", "note,site"}, {"--delete", "note=w"}, {"--delete", ""}} {
		if code, stdout, stderr := tag(bad...); code != 2 || stdout != "" || !strings.Contains(stderr, "tag key") {
			t.Errorf("efaxx tag 1 %q = %d, %q, %q; want 2 refusing the key", bad, code, stdout, stderr)
		}
	}
	if code, stdout, stderr := tag("--delete", "note,site"); !strings.Contains(stderr, "repeat --delete") {
		t.Errorf("efaxx tag 1 --delete note,site = %d, %q, %q; want a hint to repeat --delete", code, stdout, stderr)
	}
	if code, stdout, stderr := tag("note=z", "--delete", "note"); code != 2 || stdout != "" ||
		!strings.Contains(stderr, `"note"`) || !strings.Contains(stderr, "both") {
		t.Errorf("efaxx tag 1 note=z --delete note = %d, %q, %q; want 2 refusing to set and delete one key", code, stdout, stderr)
	}
	// Nothing refused above changed the run's tags.
	if code, stdout, stderr := tag("--delete", "note", "--delete", "site"); code != 0 || stdout != "run 1: -" {
		t.Errorf("efaxx tag 1 --delete note --delete site = %d, %q, %q; want both deleted, none left", code, stdout, stderr)
	}
}

// TestQueryParamCells: a parameter's cells read as labels show them: a
// chunk stored as 1048576 bytes (a float64 once JSON-decoded) showed as
// "1.048576e+06".
func TestQueryParamCells(t *testing.T) {
	db := writeSynth(t,
		&synth.Run{UID: "a", Ranks: 2, Sizes: []uint64{4096}, Params: map[string]any{"provider": "shm", "chunk": 1 << 20, "timeout": "2s"}},
		&synth.Run{UID: "b", Ranks: 2, Sizes: []uint64{4096}, Seed: 2, Params: map[string]any{"provider": "tcp", "chunk": 8 << 20, "timeout": "90s"}},
	)
	code, stdout, stderr := efaxx(t, "--db", db, "query", "--by", "chunk,provider,timeout", "--format", "csv")
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if code != 0 || len(lines) != 3 || !strings.HasPrefix(lines[1], "write,1048576,shm,2s,4KiB,") || !strings.HasPrefix(lines[2], "write,8388608,tcp,90s,4KiB,") {
		t.Errorf("efaxx query --by chunk,provider,timeout = %d, %q, %q; want rows of 1048576 shm 2s and 8388608 tcp 90s", code, stdout, stderr)
	}
}
