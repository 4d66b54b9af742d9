package main

import (
	"bytes"
	"cmp"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"efaxx/harness"
	"efaxx/lineerr"
	"efaxx/results"
	"efaxx/results/record"
	"efaxx/results/synth"
	"efaxx/slurm"
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

// TestHelpSubcommand: efaxx help COMMAND SUB describes the subcommand,
// as efaxx COMMAND SUB --help does, and efaxx help COMMAND lists a
// command's subcommands: the usage line of import baseline sends a user
// to "efaxx help import baseline", which printed import's help alone.
func TestHelpSubcommand(t *testing.T) {
	for _, sub := range []string{"baseline", "nccl-tests"} {
		code, stdout, stderr := efaxx(t, "help", "import", sub)
		_, want, _ := efaxx(t, "import", sub, "--help")
		if code != 0 || stdout != want || !strings.Contains(stdout, "efaxx import "+sub) || !strings.Contains(stdout, "EXIT STATUS") {
			t.Errorf("efaxx help import %s = %d, not import %s's help\n%s%s", sub, code, sub, stdout, stderr)
		}
	}
	code, stdout, stderr := efaxx(t, "help", "import")
	if code != 0 || !strings.Contains(stdout, "COMMANDS:") || !strings.Contains(stdout, "   nccl-tests ") {
		t.Errorf("efaxx help import = %d, does not list its commands\n%s%s", code, stdout, stderr)
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
	code, _, stderr = efaxx(t, "--db", db, "run", demoFile, "--runner", runner(t), "--tag", "=x")
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
		{[]string{"import"}, 2, "efaxx: import needs a command: baseline or nccl-tests", "usage: efaxx import COMMAND"},
		{[]string{"runs", "--limit", "abc"}, 2, `efaxx: --limit "abc": not a valid value`, "usage: efaxx runs [flags]"},
		// Flag values that make no sense are refused, not read as something else.
		{[]string{"runs", "--limit", "-1"}, 2, "efaxx: --limit -1: want 0 (all) or more", "usage: efaxx runs [flags]"},
		{[]string{"status", "--limit", "-1"}, 2, "efaxx: --limit -1: want 0 (all) or more", "usage: efaxx status [flags]"},
		{[]string{"status", "--watch", "--interval", "0s"}, 2, "efaxx: --interval 0s: want a positive duration", "usage: efaxx status [flags]"},
		{[]string{"show", "--ranks", "--top", "0", "1"}, 2, "efaxx: --top 0: want 1 or more", "usage: efaxx show [flags] RUN"},
		{[]string{"show", "--ranks", "--top", "-1", "1"}, 2, "efaxx: --top -1: want 1 or more", "usage: efaxx show [flags] RUN"},
		{[]string{"runs", "--sort", ""}, 2, "efaxx: --sort is empty", "usage: efaxx runs [flags]"},
		{[]string{"runs", "--columns", "run,,sweep"}, 2, `efaxx: --columns "run,,sweep": an empty item`, "usage: efaxx runs [flags]"},
		{[]string{"runs", "--sort", "id,-id"}, 2, `efaxx: --sort "id,-id": id twice`, "usage: efaxx runs [flags]"},
		// --by "" groups by no parameter (TestQueryCommand); an empty item is a slip.
		{[]string{"query", "--by", "provider,,memory"}, 2, `efaxx: --by "provider,,memory": an empty item`, "usage: efaxx query [flags]"},
		{[]string{"compare", "--by", "chunk,chunk", "1", "1"}, 2, `efaxx: --by "chunk,chunk": chunk twice`, "usage: efaxx compare [flags]"},
		// An empty --workdir names no folder, wherever it is on the line.
		{[]string{"runs", "--workdir", ""}, 2, `efaxx: --workdir "": want a folder`, "usage: efaxx runs [flags]"},
		{[]string{"--workdir=", "plan", "x.toml"}, 2, `efaxx: --workdir "": want a folder`, "usage: efaxx plan [flags]"},
		{[]string{"runs", "--format"}, 2, "efaxx: flag --format needs a value", "usage: efaxx runs [flags]"},
		{[]string{"runs", "--stauts", "ok"}, 2, `efaxx: unknown flag --stauts (did you mean "status"?)`, "usage: efaxx runs [flags]"},
		{[]string{"show", "x"}, 2, `efaxx: run id "x": want a positive number`, "usage: efaxx show [flags] RUN"},
		{[]string{"show", "99"}, 3, "efaxx: run 99: not in the store", ""},
		{[]string{"import", "nccl-tests", "main.go"}, 3, "efaxx: main.go: no result table", ""},
		{[]string{"plot", "--run", "0"}, 2, `efaxx: run id "0": want a positive number`, "usage: efaxx plot [flags]"},
		{[]string{"plot", "--run", "1", "--out", "x.jpg"}, 2, `efaxx: --out "x.jpg": want a .png or .svg file`, "usage: efaxx plot [flags]"},
		{[]string{"plot", "--run", "1", "--out", ""}, 2, `efaxx: --out "": want a .png or .svg file`, "usage: efaxx plot [flags]"},
		// A selector that names no job is an error that names it, the same for each command.
		{[]string{"status", "abc"}, 3, `efaxx: status "abc": no jobs match`, ""},
		{[]string{"status", "--no-sync", "99", "100"}, 3, `efaxx: status "99" "100": no jobs match`, ""},
		{[]string{"status", "--watch", "abc"}, 3, `efaxx: status "abc": no jobs match`, ""},
		{[]string{"cancel", "abc"}, 3, `efaxx: cancel "abc": no jobs match`, ""},
		{[]string{"sync", "abc"}, 3, `efaxx: sync "abc": no jobs match`, ""},
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

// readOnlyCommands are the commands that read the store, and never
// create one.
var readOnlyCommands = [][]string{
	{"runs"}, {"runs", "--no-sync"}, {"show", "1"}, {"show", "--ranks", "1"}, {"query"}, {"compare", "1", "2"},
	{"compare", "--baseline", "libefaxx-p5", "1"}, {"check", "1"}, {"tag", "1", "a=b"}, {"plot", "--run", "1"},
	{"figures", "--specs", "../../plots/figures"}, {"status"}, {"status", "--no-sync"}, {"sync"}, {"cancel", "1"},
	{"prune", "--all", "--dry-run"}, {"query", "--raw"},
}

// TestEmptyDB: an empty --db is a usage error that names the flag, for a
// command that reads the store and for one that creates it.
func TestEmptyDB(t *testing.T) {
	for _, args := range append(readOnlyCommands, []string{"ingest", "../../plots/data/vm-2core/repeat"}) {
		code, stdout, stderr := efaxx(t, append([]string{"--db", ""}, args...)...)
		if code != 2 || !strings.HasPrefix(stderr, `efaxx: --db "": want a file`) {
			t.Errorf("efaxx --db \"\" %v = %d, want 2 naming --db\n%s%s", args, code, stdout, stderr)
		}
	}
}

// TestReadOnlyCreatesNoStore: the commands that read the store never
// create one: a store that is not there is an error naming its path.
func TestReadOnlyCreatesNoStore(t *testing.T) {
	typo := filepath.Join(t.TempDir(), "typo.db")
	for _, args := range readOnlyCommands {
		code, stdout, stderr := efaxx(t, append([]string{"--db", typo}, args...)...)
		if code != 3 || !strings.Contains(stderr, `no store at "`+typo+`"`) {
			t.Errorf("efaxx %v on a missing store = %d, want 3 naming it\n%s%s", args, code, stdout, stderr)
		}
		if _, err := os.Stat(typo); err == nil {
			t.Fatalf("efaxx %v created %s", args, typo)
		}
	}
}

// TestReadOnlyRefusesOtherFiles: the commands that read the store refuse
// a file that is not one (an empty file, another program's database),
// and leave it as it was, writing no schema into it.
func TestReadOnlyRefusesOtherFiles(t *testing.T) {
	empty := writeFile(t, filepath.Join(t.TempDir(), "empty.db"), "")
	other := filepath.Join(t.TempDir(), "other.db")
	db, err := sql.Open("sqlite3", other)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE notes (text TEXT)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	for _, path := range []string{empty, other} {
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, args := range readOnlyCommands {
			code, stdout, stderr := efaxx(t, append([]string{"--db", path}, args...)...)
			if code != 3 || !strings.Contains(stderr, `no store at "`+path+`": the file is not an efaxx store`) {
				t.Errorf("efaxx %v on %s = %d, want 3 naming it\n%s%s", args, path, code, stdout, stderr)
			}
			if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, want) {
				t.Fatalf("efaxx %v changed %s (%v)", args, path, err)
			}
			if dir, _ := os.ReadDir(filepath.Dir(path)); len(dir) != 1 {
				t.Fatalf("efaxx %v left files beside %s: %v", args, path, dir)
			}
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
		{[]string{"runs", "--status", "okay"}, 2, `status "okay": matches nothing: want ok, failed, partial, timeout, cancelled, running, any (did you mean "ok"?)`},
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

// TestPointLabels: runs and show name a run's point by its benchmark and
// the parameters that vary among its sweep's points of one benchmark, so
// that two points of a sweep never share a label, and a sweep of one point
// gets its benchmark alone.
func TestPointLabels(t *testing.T) {
	db := writeSynth(t,
		&synth.Run{UID: "a", Benchmark: "write", Ranks: 2, Sizes: []uint64{4096},
			Params: map[string]any{"provider": "shm", "memory": "host", "slots": 64, "chunk": 8 << 20}},
		&synth.Run{UID: "b", Benchmark: "write", Ranks: 2, Sizes: []uint64{4096},
			Params: map[string]any{"provider": "shm", "memory": "pinned", "slots": 64, "chunk": 8 << 20}},
		// sendrecv has no slots, and its chunk by default is not write's:
		// neither varies within a benchmark, so neither names a point.
		&synth.Run{UID: "c", Benchmark: "sendrecv", Ranks: 2, Sizes: []uint64{4096},
			Params: map[string]any{"provider": "shm", "memory": "host", "chunk": 1 << 20}},
		&synth.Run{UID: "d", Sweep: "one-point", Benchmark: "write", Ranks: 2, Sizes: []uint64{4096},
			Params: map[string]any{"provider": "shm", "memory": "pinned"}})
	code, stdout, stderr := efaxx(t, "--db", db, "runs", "--no-sync", "--sort", "id", "--columns", "run,point", "--format", "csv")
	want := "RUN,POINT\n1,write memory=host\n2,write memory=pinned\n3,sendrecv memory=host\n4,write\n"
	if code != 0 || stdout != want {
		t.Errorf("efaxx runs --columns run,point = %d\n%s%s\nwant\n%s", code, stdout, stderr, want)
	}
	code, stdout, stderr = efaxx(t, "--db", db, "show", "2")
	if code != 0 || !strings.HasPrefix(stdout, "run 2  write memory=pinned  OK\n") {
		t.Errorf("efaxx show 2 = %d, want the header to name memory=pinned:\n%s%s", code, stdout, stderr)
	}
}

// TestShowFingerprint: show prints each fingerprint field once, and where
// the ranks differ, each value with its ranks; JSON holds the same. Under
// its table, show says which bytes its Gbps count.
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
		"efaxx_version    synth\n", "provider         shm\n",
		"\n  Gbps: payload bytes the rank sent and received, per second of timed loop, in 1e9 bit/s\n"} {
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
	sweep := bigSweep(t, 10_000)
	code, stdout, stderr := efaxx(t, "plan", sweep, "--runner", "/opt/efaxx/bin/efaxx-runner") // plan only writes the path into its scripts
	if code != 0 || !regexp.MustCompile(`split: the 10000 points of nodes=1 ranks=2 run as 2 jobs: one script of them all would be \d+\.\d MB \(\d+ bytes\), more than max_script_size, 4\.2 MB \(4194304 bytes\)`).MatchString(stdout) ||
		strings.Count(stdout, "==> job ") != 2 {
		i := strings.Index(stdout, "split:")
		t.Errorf("efaxx plan of 10000 points = %d, want 2 jobs and a note on the split\n%s%s", code, stdout[max(0, i):min(len(stdout), max(0, i)+300)], stderr)
	}
}

// TestFiguresAnyDirectory: efaxx figures draws its shipped specs from
// outside the repository.
func TestFiguresAnyDirectory(t *testing.T) {
	data, err := filepath.Abs("../../plots/data/vm-2core/demo")
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "demo.db")
	if code, stdout, stderr := efaxx(t, "--db", db, "ingest", data); code != 0 {
		t.Fatalf("efaxx ingest = %d\n%s%s", code, stdout, stderr)
	}
	t.Chdir(t.TempDir())
	code, stdout, stderr := efaxx(t, "--db", db, "figures", "--out-dir", "out", "demo")
	if _, err := os.Stat(filepath.Join("out", "demo.png")); code != 0 || err != nil {
		t.Errorf("efaxx figures demo outside the repository = %d, %v\n%s%s", code, err, stdout, stderr)
	}
}

// TestCheckHelpExample: the sweep files check's help names exist and hold
// expectations, and its example passes on the demo's committed runs.
func TestCheckHelpExample(t *testing.T) {
	help := newCheckCommand().Description
	files := regexp.MustCompile(`sweeps/\S+\.toml`).FindAllString(help, -1)
	if len(files) == 0 {
		t.Fatalf("check's help names no sweep file:\n%s", help)
	}
	for _, f := range files {
		s, err := harness.Load("../../" + f)
		if err != nil || len(s.Expects) == 0 {
			t.Errorf("check's help names %s: %v, %d expectations", f, err, len(s.Expects))
		}
	}
	db := filepath.Join(t.TempDir(), "demo.db")
	if code, stdout, stderr := efaxx(t, "--db", db, "ingest", "../../plots/data/vm-2core/demo"); code != 0 {
		t.Fatalf("efaxx ingest = %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr := efaxx(t, "--db", db, "check", "--expect", "../../sweeps/local/acceptance.toml", "demo")
	if code != 0 || !strings.Contains(stdout, "13 passed, 0 failed (4 runs, 3 expectations") {
		t.Errorf("check's example on the demo's runs = %d\n%s%s", code, stdout, stderr)
	}
}

// TestPruneCommand: prune refuses to run without a selection, says what a
// dry run would delete and deletes nothing, deletes what it selects, and
// removes run directories only when asked.
func TestPruneCommand(t *testing.T) {
	db := writeSynth(t,
		&synth.Run{UID: "a", Ranks: 2, Sizes: []uint64{4096}, Tags: map[string]string{"k": "v"}},
		&synth.Run{UID: "b", Ranks: 2, Sizes: []uint64{4096}, Params: map[string]any{"provider": "tcp"}},
		&synth.Run{UID: "c", Ranks: 2, Sizes: []uint64{4096}, Params: map[string]any{"provider": "tcp"}})
	if code, _, stderr := efaxx(t, "--db", db, "prune"); code != 2 || !strings.Contains(stderr, "prune needs run ids or a filter") {
		t.Errorf("efaxx prune = %d, %q; want 2", code, stderr)
	}
	code, stdout, _ := efaxx(t, "--db", db, "prune", "--param", "provider=tcp", "--dry-run")
	if code != 0 || !strings.Contains(stdout, "prune would delete (dry run: nothing deleted) 2 runs (2-3): 4 samples, 1 point and") {
		t.Errorf("efaxx prune --dry-run = %d:\n%s", code, stdout)
	}
	if got := runIDs(t, db, "--no-sync"); len(got) != 3 {
		t.Fatalf("after a dry run: runs %v, want 3", got)
	}
	var dir string
	sqlRow(t, db, `SELECT dir FROM runs WHERE id = 1`, &dir)
	code, stdout, _ = efaxx(t, "--db", db, "prune", "--tag", "k=v")
	if _, err := os.Stat(dir); code != 0 || err != nil || !strings.Contains(stdout, "run directories kept") {
		t.Errorf("efaxx prune --tag k=v = %d, dir %v:\n%s", code, err, stdout)
	}
	code, stdout, _ = efaxx(t, "--db", db, "prune", "--delete-dirs", "2", "--format", "json")
	var rec struct {
		Runs        []int64  `json:"runs"`
		DirsRemoved []string `json:"dirs_removed"`
	}
	if err := json.Unmarshal([]byte(stdout), &rec); code != 0 || err != nil || len(rec.Runs) != 1 || len(rec.DirsRemoved) != 1 {
		t.Fatalf("efaxx prune --delete-dirs 2 = %d, %+v, %v", code, rec, err)
	}
	if _, err := os.Stat(rec.DirsRemoved[0]); !os.IsNotExist(err) {
		t.Errorf("run 2's directory is still there: %v", err)
	}
	if got := runIDs(t, db, "--no-sync"); len(got) != 1 || got[0] != 3 {
		t.Errorf("runs left = %v, want [3]", got)
	}
}

// TestPruneArgsAreRunIDs: prune's arguments are run ids, 12 or 12,13,14,
// and nothing else: a compare selector word (a time window, sweep:NAME,
// tag:K=V) is a usage error that names it, never a filter that replaces
// --since or --until and widens what is deleted.
func TestPruneArgsAreRunIDs(t *testing.T) {
	db := writeSynth(t,
		&synth.Run{UID: "a", Ranks: 2, Sizes: []uint64{4096}, Tags: map[string]string{"k": "v"}},
		&synth.Run{UID: "b", Ranks: 2, Sizes: []uint64{4096}, StartNs: 1_710_000_000_000_000_000},
		&synth.Run{UID: "c", Ranks: 2, Sizes: []uint64{4096}, StartNs: 1_720_000_000_000_000_000})
	for _, args := range [][]string{
		{"--until", "2024-01-01", "2020-01-01.."}, {"--until", "2024-01-01", "2020-01-01..now"},
		{"sweep:b"}, {"--sweep", "a", "sweep:b"}, {"tag:k=v"}, {"status:ok"}, {"1,x"}, {"1-3"}, {"0"}, {""},
	} {
		word := args[len(args)-1]
		code, stdout, stderr := efaxx(t, append([]string{"--db", db, "prune"}, args...)...)
		if code != 2 || !strings.Contains(stderr, fmt.Sprintf("prune %q: ", word)) || !strings.Contains(stderr, "12,13,14") {
			t.Errorf("efaxx prune %q = %d, want 2 naming %q and what prune takes\n%s%s", args, code, word, stdout, stderr)
		}
		if got := runIDs(t, db, "--no-sync"); len(got) != 3 {
			t.Fatalf("efaxx prune %q deleted runs: %v left", args, got)
		}
	}
	code, stdout, stderr := efaxx(t, "--db", db, "prune", "--dry-run", "1,2", "3")
	if code != 0 || !strings.Contains(stdout, "would delete (dry run: nothing deleted) 3 runs (1-3)") {
		t.Errorf("efaxx prune --dry-run 1,2 3 = %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = efaxx(t, "--db", db, "prune", "--until", "2024-01-01", "1,2")
	if got := runIDs(t, db, "--no-sync"); code != 0 || !slices.Equal(got, []int64{3, 2}) && !slices.Equal(got, []int64{2, 3}) {
		t.Errorf("efaxx prune --until 2024-01-01 1,2 = %d, runs left %v, want 2 and 3\n%s%s", code, got, stdout, stderr)
	}
}

// threeRunsOneForeign stores three runs, and makes the run.json in run
// 1's directory another run's: --delete-dirs must leave it in place.
func threeRunsOneForeign(t *testing.T) (db string, dirs [3]string) {
	t.Helper()
	db = writeSynth(t,
		&synth.Run{UID: "a", Ranks: 2, Sizes: []uint64{4096}},
		&synth.Run{UID: "b", Ranks: 2, Sizes: []uint64{4096}},
		&synth.Run{UID: "c", Ranks: 2, Sizes: []uint64{4096}})
	for i := range dirs {
		sqlRow(t, db, fmt.Sprintf(`SELECT dir FROM runs WHERE id = %d`, i+1), &dirs[i])
	}
	manifest := filepath.Join(dirs[0], "run.json")
	data, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, manifest, strings.Replace(string(data), `"uid": "a"`, `"uid": "other"`, 1))
	return db, dirs
}

// TestPruneDeleteDirsLeftInPlace: prune --delete-dirs tries every run's
// directory: one whose run.json names another run is left in place and
// named with why, the others are removed all the same, and the error says
// that the store's rows are deleted and which directories remain.
func TestPruneDeleteDirsLeftInPlace(t *testing.T) {
	for _, format := range []string{"table", "json"} {
		db, dirs := threeRunsOneForeign(t)
		code, stdout, stderr := efaxx(t, "--db", db, "prune", "--all", "--delete-dirs", "--format", format)
		if code != 3 || !strings.Contains(stderr, "deleted from the store") || !strings.Contains(stderr, dirs[0]) {
			t.Errorf("efaxx prune --all --delete-dirs --format %s = %d, want 3 saying the runs are deleted and naming %s\n%s%s",
				format, code, dirs[0], stdout, stderr)
		}
		if _, err := os.Stat(dirs[0]); err != nil {
			t.Errorf("run 1's directory, which names another run, is gone: %v", err)
		}
		for _, d := range dirs[1:] {
			if _, err := os.Stat(d); !os.IsNotExist(err) {
				t.Errorf("%s: still there after a directory before it was left in place (%v)\n%s%s", d, err, stdout, stderr)
			}
		}
		switch format {
		case "table":
			if !strings.Contains(stdout, "removed 2 of 3 run directories") || !strings.Contains(stdout, "run 1: "+dirs[0]) ||
				!strings.Contains(stdout, `"other"`) {
				t.Errorf("efaxx prune --delete-dirs does not say what it removed and left, and why:\n%s", stdout)
			}
		case "json":
			var rec struct {
				DirsRemoved []string `json:"dirs_removed"`
				DirsLeft    []struct {
					Run    int64  `json:"run"`
					Dir    string `json:"dir"`
					Reason string `json:"reason"`
				} `json:"dirs_left"`
			}
			if err := json.Unmarshal([]byte(stdout), &rec); err != nil || !slices.Equal(rec.DirsRemoved, dirs[1:]) ||
				len(rec.DirsLeft) != 1 || rec.DirsLeft[0].Run != 1 || rec.DirsLeft[0].Dir != dirs[0] || rec.DirsLeft[0].Reason == "" {
				t.Errorf("efaxx prune --delete-dirs --format json = %+v, %v\n%s", rec, err, stdout)
			}
		}
		if got := runIDs(t, db, "--no-sync"); len(got) != 0 {
			t.Errorf("runs left in the store: %v", got)
		}
	}
}

// TestPruneDryRunDeleteDirs: prune --dry-run --delete-dirs lists the
// directories a prune would remove and those it would leave in place, with
// why, and removes none.
func TestPruneDryRunDeleteDirs(t *testing.T) {
	db, dirs := threeRunsOneForeign(t)
	code, stdout, stderr := efaxx(t, "--db", db, "prune", "--all", "--dry-run", "--delete-dirs")
	if code != 0 || !strings.Contains(stdout, "would remove 2 of 3 run directories:\n  run 2: "+dirs[1]+"\n  run 3: "+dirs[2]+"\n") ||
		!strings.Contains(stdout, "would leave 1 in place:\n  run 1: "+dirs[0]+`: its run.json is another run's (uid "other"`) ||
		strings.Contains(stdout, "run directories kept") {
		t.Errorf("efaxx prune --dry-run --delete-dirs = %d, want the directories it would remove and leave\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = efaxx(t, "--db", db, "prune", "--all", "--dry-run", "--delete-dirs", "--format", "json")
	var rec struct {
		DirsRemoved []string `json:"dirs_removed"`
		DirsLeft    []struct {
			Run int64 `json:"run"`
		} `json:"dirs_left"`
	}
	if err := json.Unmarshal([]byte(stdout), &rec); code != 0 || err != nil || !slices.Equal(rec.DirsRemoved, dirs[1:]) ||
		len(rec.DirsLeft) != 1 || rec.DirsLeft[0].Run != 1 {
		t.Errorf("efaxx prune --dry-run --delete-dirs --format json = %d, %+v, %v\n%s%s", code, rec, err, stdout, stderr)
	}
	for _, d := range dirs {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("a dry run removed %s: %v", d, err)
		}
	}
	if got := runIDs(t, db, "--no-sync"); len(got) != 3 {
		t.Errorf("a dry run deleted runs: %v left", got)
	}
}

// TestPruneFormat: prune writes table or json; any other --format,
// csv included, is a usage error that names them, and deletes nothing.
func TestPruneFormat(t *testing.T) {
	db := writeSynth(t, &synth.Run{UID: "a", Ranks: 2, Sizes: []uint64{4096}})
	for _, format := range []string{"csv", "ndjson", "xml"} {
		code, stdout, stderr := efaxx(t, "--db", db, "prune", "--all", "--format", format)
		if code != 2 || !strings.Contains(stderr, fmt.Sprintf("--format %q: prune writes table or json", format)) {
			t.Errorf("efaxx prune --format %s = %d, want 2 naming table and json\n%s%s", format, code, stdout, stderr)
		}
	}
	if got := runIDs(t, db, "--no-sync"); len(got) != 1 {
		t.Errorf("a refused prune deleted runs: %v left", got)
	}
	code, stdout, stderr := efaxx(t, "--db", db, "help", "prune")
	if code != 0 || !regexp.MustCompile(`--format value +output as table or json `).MatchString(stdout) {
		t.Errorf("efaxx help prune = %d, its --format does not say table or json\n%s%s", code, stdout, stderr)
	}
}

// TestQueryRaw: query --raw exports every sample of the selected runs, one
// a line in NDJSON, a row in CSV, an element of a JSON array ([] for none).
func TestQueryRaw(t *testing.T) {
	db := writeSynth(t,
		&synth.Run{UID: "a", Ranks: 3, Sizes: []uint64{4096, 65536}},
		&synth.Run{UID: "b", Ranks: 2, Sizes: []uint64{4096}, Params: map[string]any{"provider": "tcp"}})
	code, stdout, stderr := efaxx(t, "--db", db, "query", "--raw", "--format", "ndjson", "--param", "provider=shm")
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	var first results.RawSample
	if err := json.Unmarshal([]byte(lines[0]), &first); code != 0 || len(lines) != 6 || err != nil || first.Run != 1 ||
		first.Size != 4096 || first.Host != "node0000" || first.Value == nil || first.ElapsedNs == 0 {
		t.Errorf("query --raw --format ndjson = %d, %d lines, %+v, %v\n%s%s", code, len(lines), first, err, stdout, stderr)
	}
	code, stdout, _ = efaxx(t, "--db", db, "query", "--raw", "--format", "csv", "--metric", "lat_us")
	if rows := strings.Split(strings.TrimSpace(stdout), "\n"); code != 0 || len(rows) != 9 ||
		!strings.HasPrefix(rows[0], "RUN,BENCHMARK,SIZE,RANK,PEER,VARIANT,ROLE,HOST,") || !strings.HasSuffix(rows[0], ",LAT_US (us)") {
		t.Errorf("query --raw --format csv = %d:\n%s", code, stdout)
	}
	var all []results.RawSample
	code, stdout, _ = efaxx(t, "--db", db, "query", "--raw", "--format", "json")
	if err := json.Unmarshal([]byte(stdout), &all); code != 0 || err != nil || len(all) != 8 {
		t.Errorf("query --raw --format json = %d, %d samples, %v", code, len(all), err)
	}
	if code, stdout, _ = efaxx(t, "--db", db, "query", "--raw", "--format", "json", "--benchmark", "sendrecv"); code != 0 || stdout != "[]\n" {
		t.Errorf("query --raw of nothing = %d, %q; want []", code, stdout)
	}
}

// TestCompletion: each shell's script passes the shell's own syntax check
// and completes commands, flags and flag values in that shell; --install
// writes it where the shell looks.
func TestCompletion(t *testing.T) {
	dir := t.TempDir()
	scripts := map[string]string{}
	for _, shell := range []string{"bash", "zsh", "fish"} {
		code, stdout, stderr := efaxx(t, "completion", shell)
		if code != 0 || stdout == "" {
			t.Fatalf("efaxx completion %s = %d: %s", shell, code, stderr)
		}
		scripts[shell] = writeFile(t, filepath.Join(dir, shell+".sh"), stdout)
		if out, err := exec.Command(shell, "-n", scripts[shell]).CombinedOutput(); err != nil {
			t.Errorf("%s -n on its completion: %v\n%s", shell, err, out)
		}
	}
	cases := []struct{ line, want string }{
		{"efaxx ru", "run runs"},
		{"efaxx --db x.db ru", "run runs"},
		{"efaxx runs --sta", "--status"},
		{"efaxx runs --status ", "any cancelled failed ok partial running timeout"},
		{"efaxx compare --for", "--format"},
		{"efaxx import ", "baseline nccl-tests"},
		{"efaxx import nccl-tests --c", "--collective"},
		{"efaxx plan ../../sweeps/local/re", "../../sweeps/local/repeat.toml"},
		// A flag's value, before the command too: a path, a directory, or
		// one of the values the command takes.
		{"efaxx --db ../../sweeps/de", "../../sweeps/demo.toml"},
		{"efaxx --workdir ../../sweeps/", "../../sweeps/gpu ../../sweeps/local ../../sweeps/p5 ../../sweeps/testbed"},
		{"efaxx --db x.db --workdir ../../sweeps/", "../../sweeps/gpu ../../sweeps/local ../../sweeps/p5 ../../sweeps/testbed"},
		{"efaxx runs --workdir ../../sweeps/", "../../sweeps/gpu ../../sweeps/local ../../sweeps/p5 ../../sweeps/testbed"},
		{"efaxx --db x.db ", "cancel check compare completion doctor figures import ingest plan plot " +
			"prune query run runs show status submit sync tag validate"},
		{"efaxx runs --format ", "csv json table"},
		{"efaxx prune --format ", "json table"},
		{"efaxx query --format ", "csv json ndjson table"},
	}
	bash := `source "$1"; shift; COMP_WORDS=($1); [[ $1 == *" " ]] && COMP_WORDS+=(""); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _efaxx; printf '%s\n' "${COMPREPLY[@]}"`
	fish := `source $argv[1]; complete -C $argv[2] | string replace -r '\t.*' ''; true`
	for _, c := range cases {
		for shell, run := range map[string][]string{"bash": {"bash", "-c", bash, "bash", scripts["bash"], c.line},
			"fish": {"fish", "-c", fish, scripts["fish"], c.line}} {
			out, err := exec.Command(run[0], run[1:]...).Output()
			got := strings.Fields(string(out))
			for i := range got {
				got[i] = strings.TrimSuffix(got[i], "/") // fish ends a directory with /, bash does not
			}
			slices.Sort(got)
			if err != nil || strings.Join(got, " ") != c.want {
				t.Errorf("%s completes %q as %q (%v), want %q", shell, c.line, got, err, c.want)
			}
		}
	}
	// zsh finds the script on its fpath, by its #compdef line.
	zdir := filepath.Join(dir, "zsh")
	if code, _, stderr := efaxx(t, "completion", "--install", "--dir", zdir, "zsh"); code != 0 {
		t.Fatalf("efaxx completion --install --dir DIR zsh = %d: %s", code, stderr)
	}
	out, err := exec.Command("zsh", "-fc", "fpath=("+zdir+" $fpath); autoload -Uz compinit; compinit -u -D; print $_comps[efaxx]").Output()
	if err != nil || strings.TrimSpace(string(out)) != "_efaxx" {
		t.Errorf("zsh loads %q for efaxx (%v), want _efaxx", out, err)
	}
	// --install without --dir: under HOME, where each shell looks.
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("XDG_CONFIG_HOME", "")
	for shell, path := range map[string]string{"bash": ".local/share/bash-completion/completions/efaxx",
		"zsh": ".local/share/zsh/site-functions/_efaxx", "fish": ".config/fish/completions/efaxx.fish"} {
		code, stdout, _ := efaxx(t, "completion", shell, "--install")
		if _, err := os.Stat(filepath.Join(home, path)); code != 0 || err != nil || !strings.Contains(stdout, "wrote "+filepath.Join(home, path)) {
			t.Errorf("efaxx completion %s --install = %d, %v:\n%s", shell, code, err, stdout)
		}
	}
}

// withoutSlurm makes PATH a folder holding only a fake fi_info and a fake
// efaxx-runner, as a machine with libfabric and no Slurm installed, and
// returns the runner.
func withoutSlurm(t *testing.T) string {
	t.Helper()
	bin := t.TempDir()
	writeFile(t, filepath.Join(bin, "fi_info"), "#!/bin/sh\nif [ \"$1\" = -l ]; then printf 'tcp:\\n    version: 1\\n'; "+
		"else printf 'provider: tcp\\n    domain: lo\\n'; fi\n")
	runner := writeFile(t, filepath.Join(bin, "efaxx-runner"), "#!/bin/sh\necho 'efaxx-runner v0 (abc)'\n")
	for _, f := range []string{"fi_info", "efaxx-runner"} {
		if err := os.Chmod(filepath.Join(bin, f), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin)
	return runner
}

// TestDoctorWithoutSlurm: where Slurm is not installed (no sinfo or srun
// on PATH), doctor says so once, and that local runs work, rather than
// failing on each of Slurm's commands.
func TestDoctorWithoutSlurm(t *testing.T) {
	runner := withoutSlurm(t)
	code, stdout, stderr := efaxx(t, "--workdir", t.TempDir(), "doctor", "--runner", runner)
	if code != 0 || strings.Count(stdout, "slurm") != 1 || strings.Contains(stdout, "FAIL") ||
		!strings.Contains(stdout, "warn  slurm      Slurm is not installed here (no sinfo on PATH): efaxx run runs sweeps on this machine") {
		t.Errorf("efaxx doctor without Slurm = %d, want 0 saying once that Slurm is not installed\n%s%s", code, stdout, stderr)
	}
	code, stdout, _ = efaxx(t, "--workdir", t.TempDir(), "doctor", "--runner", runner, demoSlurmSweep(t))
	if code != 1 || !strings.Contains(stdout, "FAIL  slurm      the sweep has a [slurm] or [container] table, and Slurm is not installed here") {
		t.Errorf("efaxx doctor of a [slurm] sweep without Slurm = %d, want 1 failing the slurm check\n%s", code, stdout)
	}
}

// TestDoctorNotRunner: a --runner that answers --version, but not as
// efaxx-runner does, fails the runner check, saying what it printed.
func TestDoctorNotRunner(t *testing.T) {
	bin := filepath.Dir(withoutSlurm(t))
	// another program's --version, as /bin/echo's, and one that names efaxx-runner but no version
	echo := writeFile(t, filepath.Join(bin, "echo"), "#!/bin/sh\necho 'echo (GNU coreutils) 9.1'\n")
	notRunner := writeFile(t, filepath.Join(bin, "other"), "#!/bin/sh\necho 'efaxx-runner'\n")
	for _, f := range []string{echo, notRunner} {
		if err := os.Chmod(f, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, runner := range []string{echo, notRunner} {
		code, stdout, stderr := efaxx(t, "--workdir", t.TempDir(), "doctor", "--runner", runner)
		if code != 1 || !strings.Contains(stdout, "FAIL  runner     "+runner+" is not efaxx-runner: its --version printed") {
			t.Errorf("efaxx doctor --runner %s = %d, want 1 failing the runner check\n%s%s", runner, code, stdout, stderr)
		}
	}
}

// demoSlurmSweep writes a sweep with a [slurm] table.
func demoSlurmSweep(t *testing.T) string {
	return writeFile(t, filepath.Join(t.TempDir(), "s.toml"), "name = \"s\"\nbenchmark = \"write\"\n[slurm]\npartition = \"gpu\"\n")
}

// TestSubmitWithoutSlurm: where Slurm is not installed, submit says so,
// as doctor does, before any sbatch, and leaves no store or session.
func TestSubmitWithoutSlurm(t *testing.T) {
	withoutSlurm(t)
	dir := t.TempDir()
	db, workdir := filepath.Join(dir, "r.db"), filepath.Join(dir, "runs")
	code, _, stderr := efaxx(t, "--db", db, "--workdir", workdir, "submit", demoFile)
	if code != 3 || !strings.Contains(stderr, "Slurm is not installed here (no sinfo on PATH)") || strings.Contains(stderr, "sbatch") {
		t.Errorf("efaxx submit without Slurm = %d, want 3 saying Slurm is not installed\n%s", code, stderr)
	}
	for _, p := range []string{db, workdir} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("submit without Slurm left %s behind", p)
		}
	}
}

// TestSubmitWithoutCluster: where no Slurm cluster is configured, submit
// says so, as doctor does, instead of sbatch's fatal DNS lookup, and leaves
// no store or session behind.
func TestSubmitWithoutCluster(t *testing.T) {
	if _, err := slurm.NewClient().Partitions(t.Context()); !errors.Is(err, slurm.ErrNoCluster) {
		t.Skipf("this machine is not without a Slurm cluster: %v", err)
	}
	dir := t.TempDir()
	db, workdir := filepath.Join(dir, "r.db"), filepath.Join(dir, "runs")
	code, _, stderr := efaxx(t, "--db", db, "--workdir", workdir, "submit", demoFile)
	if code != 3 || !strings.Contains(stderr, "no Slurm cluster is configured here") || strings.Contains(stderr, "sbatch") {
		t.Errorf("efaxx submit without a cluster = %d, want 3 saying there is no cluster\n%s", code, stderr)
	}
	for _, p := range []string{db, workdir} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("submit without a cluster left %s behind", p)
		}
	}
}

// TestPruneDeleteDirsImported: an imported run has no run directory, only
// the file it was imported from, which is the user's: prune --delete-dirs
// keeps it and says so, and that is no failure.
func TestPruneDeleteDirsImported(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a2a.txt")
	data, err := os.ReadFile("../../results/external/testdata/nccl-tests/alltoall_16.rank0.txt")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, file, string(data))
	db := filepath.Join(dir, "x.db")
	if code, _, stderr := efaxx(t, "--db", db, "import", "nccl-tests", file); code != 0 {
		t.Fatalf("import: %d %s", code, stderr)
	}
	code, stdout, stderr := efaxx(t, "--db", db, "prune", "--all", "--delete-dirs")
	if code != 0 || !strings.Contains(stdout, "removed 0 of 0 run directories; 2 imported runs, whose files are kept") {
		t.Errorf("prune --all --delete-dirs of imported runs = %d, want 0 saying their files are kept\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(file); err != nil {
		t.Errorf("the imported file: %v", err)
	}
}

// TestSyncReportsBeforeError: a sync that fails for one job prints what it
// stored of the others, with the warnings about their rank files, and
// returns the error; it printed nothing, and a warning of a job it
// settled was never said again.
func TestSyncReportsBeforeError(t *testing.T) {
	rep := &harness.SyncReport{
		Jobs:     []results.Job{{JobID: "301", State: "COMPLETED", Source: "squeue"}, {JobID: "302", State: "COMPLETED", Source: "squeue"}},
		Runs:     []results.IngestedRun{{ID: 1, Status: record.StatusPartial, Reason: "unusable lines from rank 1", Dir: "s/000", New: true}},
		Problems: []*lineerr.Error{{File: "s/000/rank-00001.ndjson", Line: 3, Err: errors.New("unknown record type \"x\"")}},
	}
	broken := errors.New("sbatch job 301: read plan: no such file")
	var stdout, stderr bytes.Buffer
	if err := reportSync(&stdout, &stderr, rep, broken); err != broken {
		t.Errorf("reportSync = %v, want the sync's error", err)
	}
	if !strings.Contains(stdout.String(), "run 1 new: partial, 0 new samples (s/000): unusable lines from rank 1") ||
		stderr.String() != "warning: s/000/rank-00001.ndjson:3: unknown record type \"x\"\n" {
		t.Errorf("reportSync printed\n%s%s\nwant run 1 and the warning about its rank 1", stdout.String(), stderr.String())
	}
}
