package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"efaxx/results"
	"efaxx/results/record"
	"efaxx/results/synth"
)

// demoFile is the demo sweep, from this package's directory.
const demoFile = "../../sweeps/demo.toml"

// TestFlagsAnywhere: every flag of every command is read after the
// command's arguments as before them, and so are the global flags.
func TestFlagsAnywhere(t *testing.T) {
	app := newApp(nil, nil)
	var walk func(path []string, cmds []*cli.Command)
	walk = func(path []string, cmds []*cli.Command) {
		for _, c := range cmds {
			p := append(slices.Clone(path), c.Name)
			walk(p, c.Subcommands)
			for _, f := range c.Flags {
				words := []string{"--" + f.Names()[0]}
				if takesValue(f) {
					words = append(words, "V")
				}
				line := append(append(append([]string{"efaxx"}, p...), "ARG"), words...)
				cl, err := readCommandLine(app, line)
				if err != nil {
					t.Errorf("%v: %v", line, err)
					continue
				}
				want := append(append(append([]string{"efaxx"}, p...), words...), "ARG")
				if !slices.Equal(cl.args, want) {
					t.Errorf("%v reads as %v, want %v", line, cl.args, want)
				}
			}
		}
	}
	walk(nil, app.Commands)

	for _, tt := range []struct{ line, want []string }{
		{[]string{"efaxx", "runs", "--db", "x.db", "--status", "ok"}, []string{"efaxx", "--db", "x.db", "runs", "--status", "ok"}},
		{[]string{"efaxx", "--format", "csv", "runs", "--db", "x.db"}, []string{"efaxx", "--db", "x.db", "runs", "--format", "csv"}},
		{[]string{"efaxx", "show", "3", "--format=csv"}, []string{"efaxx", "show", "--format=csv", "3"}},
		{[]string{"efaxx", "tag", "3", "--", "--delete"}, []string{"efaxx", "tag", "--", "3", "--delete"}},
		{[]string{"efaxx", "import", "nccl-tests", "f.log", "--collective", "all_reduce"},
			[]string{"efaxx", "import", "nccl-tests", "--collective", "all_reduce", "f.log"}},
		{[]string{"efaxx", "compare", "now-7d..now", "-5"}, []string{"efaxx", "compare", "--", "now-7d..now", "-5"}},
	} {
		cl, err := readCommandLine(app, tt.line)
		if err != nil || !slices.Equal(cl.args, tt.want) {
			t.Errorf("%v reads as %v, %v; want %v", tt.line, cl.args, err, tt.want)
		}
	}
}

// TestFlagsAfterArguments: the flags the issue found dropped after a
// sweep file take effect.
func TestFlagsAfterArguments(t *testing.T) {
	code, stdout, stderr := efaxx(t, "plan", demoFile, "--format", "csv")
	if code != 0 || !strings.HasPrefix(stdout, "#,POINT,RANKS") {
		t.Errorf("efaxx plan SWEEP --format csv = %d, want CSV\n%s%s", code, stdout, stderr)
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "x.db")
	code, _, stderr = efaxx(t, "--db", db, "submit", demoFile, "--retry", "bogus")
	if code != 2 || !strings.Contains(stderr, `--retry "bogus"`) {
		t.Errorf("efaxx submit SWEEP --retry bogus = %d, want 2 naming --retry\n%s", code, stderr)
	}
	code, _, stderr = efaxx(t, "--db", db, "run", demoFile, "--runner", runnerPath, "--tag", "=x")
	if code != 2 || !strings.Contains(stderr, `--tag "=x"`) {
		t.Errorf("efaxx run SWEEP --tag =x = %d, want 2 naming --tag\n%s", code, stderr)
	}
	code, _, stderr = efaxx(t, "--db", db, "show", "1", "--bogus")
	if code != 2 || !strings.Contains(stderr, "unknown flag --bogus") {
		t.Errorf("efaxx show 1 --bogus = %d, want 2 naming the flag\n%s", code, stderr)
	}
}

// TestExitCodes: 2 for a wrong command line, with one line of error and
// the usage line on stderr and nothing on stdout; 3 for any other error.
func TestExitCodes(t *testing.T) {
	db := writeSynth(t, &synth.Run{UID: "a", Ranks: 2, Sizes: []uint64{4096}})
	for _, tt := range []struct {
		args      []string
		code      int
		msg, line string
	}{
		{[]string{"foo"}, 2, `efaxx: unknown command "foo"`, "usage: efaxx [--db FILE]"},
		{[]string{"rnus"}, 2, `efaxx: unknown command "rnus" (did you mean "runs"?)`, "usage: efaxx [--db FILE]"},
		{[]string{"help", "foo"}, 2, `efaxx: unknown command "foo"`, "usage: efaxx [--db FILE]"},
		{[]string{"import", "foo"}, 2, `efaxx: import: unknown command "foo"`, "usage: efaxx import COMMAND"},
		{[]string{"runs", "--limit", "abc"}, 2, `efaxx: --limit "abc": not a valid value`, "usage: efaxx runs [flags]"},
		{[]string{"runs", "--format"}, 2, "efaxx: flag --format needs a value", "usage: efaxx runs [flags]"},
		{[]string{"runs", "--stauts", "ok"}, 2, `efaxx: unknown flag --stauts (did you mean "status"?)`, "usage: efaxx runs [flags]"},
		{[]string{"show", "x"}, 2, `efaxx: run id "x": want a positive number`, "usage: efaxx show [flags] RUN"},
		{[]string{"show", "99"}, 3, "efaxx: run 99: not in the store", ""},
	} {
		code, stdout, stderr := efaxx(t, append([]string{"--db", db}, tt.args...)...)
		lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
		wantLines := 1
		if tt.line != "" {
			wantLines = 2
		}
		if code != tt.code || stdout != "" || len(lines) != wantLines || !strings.HasPrefix(lines[0], tt.msg) ||
			tt.line != "" && !strings.HasPrefix(lines[1], tt.line) {
			t.Errorf("efaxx %v = %d, stdout %q, stderr:\n%s\nwant %d, nothing on stdout, and on stderr %q then %q",
				tt.args, code, stdout, stderr, tt.code, tt.msg, tt.line)
		}
	}
}

// TestHelpExitStatus: every command's help says what each exit status
// means, and status 1 only where the command gives a verdict.
func TestHelpExitStatus(t *testing.T) {
	judges := []string{"validate", "doctor", "compare", "check"}
	var walk func(path []string, cmds []*cli.Command)
	walk = func(path []string, cmds []*cli.Command) {
		for _, c := range cmds {
			p := append(slices.Clone(path), c.Name)
			if len(c.Subcommands) > 0 {
				walk(p, c.Subcommands)
				continue
			}
			code, stdout, stderr := efaxx(t, append(p, "--help")...)
			_, status, _ := strings.Cut(stdout, "EXIT STATUS\n")
			status = regexp.MustCompile(`(?m)^\s+`).ReplaceAllString(status, "")
			if code != 0 || !strings.HasPrefix(status, "0  success\n") ||
				!strings.Contains(status, "\n2  the command line was wrong") || !strings.Contains(status, "\n3  anything else") {
				t.Errorf("efaxx %s --help = %d, lacks EXIT STATUS 0, 2 and 3:\n%s%s", strings.Join(p, " "), code, stdout, stderr)
			}
			if got, want := strings.Contains(status, "\n1  "), slices.Contains(judges, c.Name); got != want {
				t.Errorf("efaxx %s --help: exit status 1 documented = %v, want %v", strings.Join(p, " "), got, want)
			}
		}
	}
	walk(nil, newApp(nil, nil).Commands)
}

// TestReadOnlyCreatesNoStore: the commands that read the store never
// create one: a store that is not there is an error naming its path.
func TestReadOnlyCreatesNoStore(t *testing.T) {
	typo := filepath.Join(t.TempDir(), "typo.db")
	for _, args := range [][]string{
		{"runs"}, {"runs", "--no-sync"}, {"show", "1"}, {"show", "--ranks", "1"}, {"query"}, {"compare", "1", "2"},
		{"compare", "--baseline", "libefaxx-p5", "1"}, {"check", "1"}, {"tag", "1", "a=b"}, {"plot", "--run", "1"},
		{"figures", "--specs", "../../plots/figures"}, {"status"}, {"status", "--no-sync"}, {"sync"}, {"cancel", "1"},
	} {
		code, stdout, stderr := efaxx(t, append([]string{"--db", typo}, args...)...)
		if code != 3 || !strings.Contains(stderr, `no store at "`+typo+`"`) {
			t.Errorf("efaxx %v on a missing store = %d, want 3 naming it\n%s%s", args, code, stdout, stderr)
		}
		if _, err := os.Stat(typo); err == nil {
			t.Fatalf("efaxx %v created %s", args, typo)
		}
	}
}

// TestFiltersChecked: a filter value that nothing stored has and the
// schema does not know is an error with the closest name, not an empty
// answer; every run id the store lacks is named.
func TestFiltersChecked(t *testing.T) {
	db := writeSynth(t,
		&synth.Run{UID: "a", Benchmark: "write", Ranks: 2, Sizes: []uint64{4096}, Params: map[string]any{"provider": "shm"},
			Tags: map[string]string{"cluster": "a"}},
		&synth.Run{UID: "b", Benchmark: "write", Ranks: 2, Sizes: []uint64{4096}, Params: map[string]any{"provider": "tcp"}})
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"runs", "--status", "okay"}, 2, `status "okay": matches nothing: want ok, failed, partial, timeout, cancelled, running (did you mean "ok"?)`},
		{[]string{"runs", "--benchmark", "wrte"}, 2, `benchmark "wrte": matches nothing: no stored run has it (did you mean "write"?)`},
		{[]string{"runs", "--param", "provder=shm"}, 2, `parameter "provder": matches nothing: no stored run has it (did you mean "provider"?)`},
		{[]string{"runs", "--tag", "clustr=a"}, 2, `tag "clustr": matches nothing: no stored run has it (did you mean "cluster"?)`},
		{[]string{"runs", "--sweep", "sytnh"}, 2, `sweep "sytnh": matches nothing: no stored run has it (did you mean "synth"?)`},
		{[]string{"runs", "--host", "nowhere"}, 2, `host "nowhere": matches nothing: no stored run has it`},
		{[]string{"query", "--by", "bogus"}, 2, `parameter "bogus": matches nothing`},
		{[]string{"compare", "1", "99"}, 3, "run 99: not in the store"},
		{[]string{"compare", "1,98,99", "2"}, 3, "runs 98, 99: not in the store"},
		{[]string{"plot", "--run", "1", "--run", "98", "--run", "99"}, 3, "runs 98, 99: not in the store"},
		{[]string{"check", "sytnh"}, 2, `sweep "sytnh": matches nothing: no stored run has it (did you mean "synth"?)`},
	} {
		code, _, stderr := efaxx(t, append([]string{"--db", db}, tt.args...)...)
		if code != tt.code || !strings.Contains(stderr, tt.want) {
			t.Errorf("efaxx %v = %d, stderr:\n%s\nwant %d and %q", tt.args, code, stderr, tt.code, tt.want)
		}
	}
	// A benchmark the schema knows but no run has is an empty answer.
	if code, stdout, stderr := efaxx(t, "--db", db, "runs", "--benchmark", "sendrecv", "--format", "json"); code != 0 || stdout != "[]\n" {
		t.Errorf("efaxx runs --benchmark sendrecv = %d, %q, %q; want 0 and []", code, stdout, stderr)
	}
}

// TestJSONOutput: every command's JSON spells its keys one way,
// snake_case, and an empty list is [], never null.
func TestJSONOutput(t *testing.T) {
	sizes := []uint64{4096, 65536}
	db := writeSynth(t,
		&synth.Run{UID: "a", Benchmark: "write", Ranks: 4, Sizes: sizes, Noise: 0.02, Seed: 1, Params: map[string]any{"provider": "shm"}},
		&synth.Run{UID: "b", Benchmark: "write", Ranks: 4, Sizes: sizes, Noise: 0.02, Seed: 2, Params: map[string]any{"provider": "shm"}})
	snake := regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	for _, args := range [][]string{
		{"runs"}, {"runs", "--benchmark", "sendrecv"}, {"show", "1"}, {"show", "--ranks", "1"}, {"query"},
		{"query", "--benchmark", "sendrecv"}, {"compare", "1", "2"}, {"status", "--no-sync"}, {"plan", demoFile},
	} {
		code, stdout, stderr := efaxx(t, append([]string{"--db", db, "--format", "json"}, args...)...)
		var v any
		if err := json.Unmarshal([]byte(stdout), &v); code != 0 || err != nil {
			t.Errorf("efaxx %v --format json = %d, %v\n%s%s", args, code, err, stdout, stderr)
			continue
		}
		walkJSON(v, "", func(path string, v any, key string) {
			if key != "" && !snake.MatchString(key) {
				t.Errorf("efaxx %v --format json: key %s is not snake_case", args, path)
			}
			if v == nil {
				t.Errorf("efaxx %v --format json: %s is null", args, path)
			}
		})
	}
}

// walkJSON calls visit for every value of v, with its path and key; the
// params and tags, and a fingerprint's values, are data as the runs wrote
// them, and are not visited.
func walkJSON(v any, path string, visit func(path string, v any, key string)) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if k == "value" && strings.Contains(path, ".fingerprint.") {
				continue
			}
			visit(path+"."+k, x, k)
			if k != "params" && k != "tags" {
				walkJSON(x, path+"."+k, visit)
			}
		}
	case []any:
		for i, x := range v {
			walkJSON(x, fmt.Sprintf("%s[%d]", path, i), visit)
		}
	}
}

// TestRunsListing: runs shows why a run failed, sorts and picks columns on
// request, says how many runs --limit left out, and escapes the control
// characters of stored strings in a table.
func TestRunsListing(t *testing.T) {
	day := int64(24 * 3600 * 1e9)
	db := writeSynth(t,
		&synth.Run{UID: "a", Ranks: 2, Sizes: []uint64{4096}, StartNs: 1_700_000_000e9},
		&synth.Run{UID: "b", Ranks: 4, Sizes: []uint64{4096}, StartNs: 1_700_000_000e9 + day, Fail: "boom \x1b[2J\x07"},
		&synth.Run{UID: "c", Ranks: 2, Sizes: []uint64{4096, 65536}, StartNs: 1_700_000_000e9 + 2*day,
			Tags: map[string]string{"note": "red \x1b[31mtext"}})
	code, stdout, stderr := efaxx(t, "--db", db, "runs", "--no-sync")
	if code != 0 || strings.ContainsAny(stdout, "\x1b\x07") || !strings.Contains(stdout, `rank 0: boom \x1b[2J\x07`) ||
		!strings.Contains(stdout, `note=red \x1b[31mtext`) || !strings.Contains(stdout, "REASON") {
		t.Errorf("efaxx runs = %d, want a REASON column and control characters escaped:\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = efaxx(t, "--db", db, "runs", "--no-sync", "--limit", "2", "--format", "csv")
	if code != 0 || strings.Count(stdout, "\n") != 3 || !strings.Contains(stderr, "2 of 3 runs shown") {
		t.Errorf("efaxx runs --limit 2 = %d, want 2 rows and a note that one was left out:\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = efaxx(t, "--db", db, "runs", "--no-sync", "--sort", "-samples,id", "--columns", "run,samples,status,reason",
		"--format", "csv")
	if want := "RUN,SAMPLES,STATUS,REASON\n2,4,failed,rank 0: boom \x1b[2J\x07\n3,4,ok,\n1,2,ok,\n"; code != 0 || stdout != want {
		t.Errorf("efaxx runs --sort -samples,id --columns ... = %d\n%s%s\nwant\n%s", code, stdout, stderr, want)
	}
	for _, bad := range [][]string{{"--sort", "speed"}, {"--columns", "run,resaon"}} {
		_, name, _ := strings.Cut(bad[1], ",")
		if code, _, stderr := efaxx(t, append([]string{"--db", db, "runs"}, bad...)...); code != 2 || !strings.Contains(stderr, `"`+cmp.Or(name, bad[1])+`"`) {
			t.Errorf("efaxx runs %v = %d, want 2 naming it:\n%s", bad, code, stderr)
		}
	}
}

// TestShowFingerprint: show prints each fingerprint field once, and where
// the ranks differ, each value with its ranks; JSON holds the same.
func TestShowFingerprint(t *testing.T) {
	db := writeSynth(t, &synth.Run{UID: "a", Ranks: 4, PerHost: 2, Sizes: []uint64{4096},
		Fingerprint: func(rank int, fp *record.Rank) {
			if rank == 3 {
				fp.Libfabric = "1.18.0"
			}
		}})
	code, stdout, stderr := efaxx(t, "--db", db, "show", "1")
	for _, want := range []string{"fingerprint of 4 ranks:", "libfabric        1.17.0 (ranks 0-2); 1.18.0 (rank 3)",
		"mpi              Open MPI v4.1.4\n", "host             node0000 (ranks 0-1); node0001 (ranks 2-3)",
		"efaxx_version    synth\n", "provider         shm\n"} {
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("efaxx show 1 = %d, lacks %q:\n%s%s", code, want, stdout, stderr)
		}
	}
	code, stdout, _ = efaxx(t, "--db", db, "show", "--format", "json", "1")
	var got struct {
		Fingerprint results.Fingerprint `json:"fingerprint"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); code != 0 || err != nil {
		t.Fatalf("efaxx show --format json 1 = %d, %v", code, err)
	}
	i := slices.IndexFunc(got.Fingerprint.Fields, func(f results.FingerprintField) bool { return f.Key == "libfabric" })
	if i < 0 || len(got.Fingerprint.Fields[i].Values) != 2 || got.Fingerprint.Fields[i].Values[1].Ranks != "3" {
		t.Errorf("show JSON fingerprint = %+v, want libfabric with 1.18.0 on rank 3", got.Fingerprint)
	}
}

// TestPlanSplitsScripts: a valid 10,000-point sweep, whose one job script
// would pass Slurm's default max_script_size, runs as several jobs, and
// plan says so.
func TestPlanSplitsScripts(t *testing.T) {
	iters := make([]string, 10_000)
	for i := range iters {
		iters[i] = fmt.Sprint(i + 1)
	}
	sweep := writeFile(t, filepath.Join(t.TempDir(), "big.toml"), "name = \"big\"\nbenchmark = \"write\"\n[params]\niterations = ["+
		strings.Join(iters, ",")+"]\n[slurm]\ntime = \"10\"\n")
	code, stdout, stderr := efaxx(t, "plan", sweep, "--runner", runnerPath)
	if code != 0 || !regexp.MustCompile(`split: the 10000 points of nodes=1 ranks=2 run as 2 jobs: one script of them all would be \d+\.\d MB \(\d+ bytes\), more than max_script_size, 4\.2 MB \(4194304 bytes\)`).MatchString(stdout) ||
		strings.Count(stdout, "==> job ") != 2 {
		i := strings.Index(stdout, "split:")
		t.Errorf("efaxx plan of 10000 points = %d, want 2 jobs and a note on the split\n%s%s", code, stdout[max(0, i):min(len(stdout), max(0, i)+300)], stderr)
	}
}
