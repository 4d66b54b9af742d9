package harness_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"efaxx/harness"
	"efaxx/lineerr"
	"efaxx/results/external"
)

// ncclSweep is the study's NCCL sweep, reduced: three collectives by two
// node counts, the published arguments, sizes from the sweep.
const ncclSweep = `name = "nccl"
benchmark = "external"
[params]
sizes = "32MiB..2GiB"
[slurm]
nodes = [2, 4]
ntasks_per_node = 8
[external]
program = "/opt/nccl-tests/build/{collective}_perf"
args = ["-b", "{min_size}", "-e", "{max_size}", "-f", "2", "-n", "1000", "-w", "10", "--blocking", "0", "-J", "{output}"]
parser = "nccl-tests"
output = "nccl-tests.json"
env = { FI_PROVIDER = "efa", NCCL_DEBUG_FILE = "{run_dir}/nccl.%h.%p" }
vars = { collective = ["alltoall", "all_gather", "all_reduce"] }
`

func TestExternalSweep(t *testing.T) {
	s, err := harness.Parse("nccl.toml", []byte(ncclSweep))
	if err != nil {
		t.Fatal(err)
	}
	points := s.Points()
	if len(points) != 6 {
		t.Fatalf("%d points, want 3 collectives x 2 node counts", len(points))
	}
	p := points[1] // nodes 2, all_gather: the vars vary fastest
	if p.Tool() != "nccl:all_gather" || p.Ranks != 16 || p.Label() != "nccl:all_gather nodes=2 collective=all_gather" {
		t.Errorf("point 1 = %s, %d ranks, label %q", p.Tool(), p.Ranks, p.Label())
	}
	if got := p.RunnerArgs(); !slices.Equal(got, []string{"external"}) {
		t.Errorf("RunnerArgs = %q, want [external]", got)
	}
	params := p.Params()
	if params["collective"] != "all_gather" || params["parser"] != "nccl-tests" || params["iterations"] != nil ||
		params["timeout"] != "1h" || params["ranks"] != 16 {
		t.Errorf("params = %v", params)
	}
	spec, err := p.ExternalSpec("/runs/x/001-abc")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"/opt/nccl-tests/build/all_gather_perf", "-b", "33554432", "-e", "2147483648", "-f", "2", "-n", "1000",
		"-w", "10", "--blocking", "0", "-J", "/runs/x/001-abc/nccl-tests.json"}
	if !slices.Equal(spec.Argv, want) || spec.Env["NCCL_DEBUG_FILE"] != "/runs/x/001-abc/nccl.%h.%p" ||
		spec.Parser != "nccl-tests" || spec.Output != "nccl-tests.json" {
		t.Errorf("spec = %+v\nwant argv %q", spec, want)
	}
	if points[0].Hash == points[1].Hash {
		t.Error("points of different collectives share a hash")
	}
}

// TestExternalVarsFileOrder: the vars are axes in the order the file
// writes them, whether as a table or an inline one; the last varies fastest.
func TestExternalVarsFileOrder(t *testing.T) {
	head := "name = \"ext1\"\nbenchmark = \"external\"\n[external]\nprogram = \"/opt/{tool}_perf\"\n" +
		"args = [\"-x\", \"{zeta}\", \"{alpha}\"]\nparser = \"nccl-tests\"\n"
	for _, vars := range []string{
		"[external.vars]\nzeta = [\"1\", \"2\"]\ntool = \"all_reduce\"\nalpha = [\"a\", \"b\"]\n",
		"vars = { zeta = [\"1\", \"2\"], tool = \"all_reduce\", alpha = [\"a\", \"b\"] }\n",
	} {
		s, err := harness.Parse("ext1.toml", []byte(head+vars))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range s.Points() {
			got = append(got, p.Label())
		}
		want := []string{"nccl:all_reduce zeta=1 alpha=a", "nccl:all_reduce zeta=1 alpha=b",
			"nccl:all_reduce zeta=2 alpha=a", "nccl:all_reduce zeta=2 alpha=b"}
		if !slices.Equal(got, want) {
			t.Errorf("points of %q =\n%s\nwant\n%s", vars, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// TestExternalHostileValues: a var's value reaches the program as one
// argument, byte for byte, whatever it holds; a list var gives one
// argument per item.
func TestExternalHostileValues(t *testing.T) {
	hostile := []string{"; rm -rf /tmp/x", "$(touch /tmp/pwned)", "`id`", `it's "quoted"`, "two\nlines", "{ranks}", "a b\tc", "*"}
	var quoted []string
	for _, h := range hostile {
		quoted = append(quoted, tomlString(h))
	}
	text := `name = "hostile"
benchmark = "external"
[external]
program = "osu_latency"
args = ["--label={label}", "{label}", "{{literal}}", "{flags}"]
parser = "osu"
[external.vars]
label = [` + strings.Join(quoted, ", ") + `]
flags = [["-x", "3"]]
`
	s, err := harness.Parse("hostile.toml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range s.Points() {
		spec, err := p.ExternalSpec("/run")
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"osu_latency", "--label=" + hostile[i], hostile[i], "{literal}", "-x", "3"}
		if !slices.Equal(spec.Argv, want) {
			t.Errorf("argv = %q, want %q", spec.Argv, want)
		}
		if strings.ContainsAny(p.Label(), "\n\t") {
			t.Errorf("label %q holds a control character: it goes on a line of a job script", p.Label())
		}
	}
}

// tomlString writes s as a TOML basic string.
func tomlString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`)
	return `"` + r.Replace(s) + `"`
}

func TestExternalSweepErrors(t *testing.T) {
	base := "name = \"x\"\nbenchmark = \"external\"\n"
	tests := []struct {
		name, text, want string
	}{
		{"no table", base, "x.toml: external: missing required key: benchmark external needs it"},
		{"table, other benchmark", "name = \"x\"\nbenchmark = \"write\"\n[external]\nprogram = \"p\"\nparser = \"osu\"\n",
			"x.toml:3: external: applies to benchmark external only, and the sweep runs write"},
		{"with another benchmark", "name = \"x\"\nbenchmark = [\"write\", \"external\"]\n[external]\nprogram = \"p\"\nparser = \"osu\"\n",
			"x.toml:2: benchmark: external runs alone: put write in a sweep of its own"},
		{"no program", base + "[external]\nparser = \"osu\"\n", "x.toml:3: external.program: missing required key"},
		{"unknown parser", base + "[external]\nprogram = \"p\"\nparser = \"ncl-tests\"\n",
			`x.toml:5: external.parser: unknown parser "ncl-tests" (did you mean "nccl-tests"?); known: fabtests, jacobi, nccl-tests, nvbandwidth, nvshmem, osu`},
		{"unknown placeholder", base + "[external]\nprogram = \"p\"\nparser = \"osu\"\nargs = [\"{colective}\"]\nvars = { collective = \"a\" }\n",
			`x.toml:6: external.args: item 1: unknown placeholder {colective} (did you mean "collective"?): want a var of [external.vars] or one of ranks, nodes, ranks_per_node, sizes, min_size, max_size, run_dir, output`},
		{"sizes unset", base + "[external]\nprogram = \"p\"\nparser = \"osu\"\nargs = [\"-m\", \"{max_size}\"]\n",
			"x.toml:6: external.args: item 2: {max_size} without sizes: set [params] sizes"},
		{"output unset", base + "[external]\nprogram = \"p\"\nparser = \"osu\"\nargs = [\"{output}\"]\n",
			"x.toml:6: external.args: item 1: {output} without an output file: set [external] output"},
		{"run dir in program", base + "[external]\nprogram = \"{run_dir}/p\"\nparser = \"osu\"\n",
			"x.toml:4: external.program: {run_dir} in the program: the program names the runs' benchmark, which must not change per run"},
		{"list inside text", base + "[external]\nprogram = \"p\"\nparser = \"osu\"\nargs = [\"-f{flags}\"]\nvars = { flags = [[\"a\"]] }\n",
			`x.toml:6: external.args: item 1: {flags} is a list var: only an argument of its own, "{flags}", can take it`},
		{"lone brace", base + "[external]\nprogram = \"p\"\nparser = \"osu\"\nargs = [\"a}\"]\n",
			`x.toml:6: external.args: item 1: "a}": a } without its {: write }} for a literal brace`},
		{"item on a line of its own", base + "[external]\nprogram = \"p\"\nparser = \"osu\"\nargs = [\"-n\",\n  2]\n",
			"x.toml:7: external.args: item 2: want string, got integer"},
		// A var's values are the text they give: 1 and "1" are one.
		{"duplicate var values", base + "[external]\nprogram = \"p\"\nparser = \"osu\"\nargs = [\"{x}\", \"{y}\"]\nvars = { x = [1, \"1\"], y = [[], [\"a\"], []] }\n",
			"x.toml:7: external.vars.x: duplicate value \"1\" (items 1 and 2)\n" +
				"x.toml:7: external.vars.y: duplicate value [] (items 1 and 3)"},
		{"var named like a param", base + "[external]\nprogram = \"p\"\nparser = \"osu\"\nvars = { ranks = 2 }\n",
			"x.toml:6: external.vars.ranks: var \"ranks\": the name of a param or a built-in placeholder (ranks, nodes, ranks_per_node, sizes, min_size, max_size, run_dir, output)"},
		// Every error at once: a refused var, and the templates' errors
		// beside it; a placeholder of the refused var is not one again.
		{"refused var and a placeholder", base + "[external]\nprogram = \"p\"\nparser = \"osu\"\nargs = [\"{nope}\", \"{coll}\"]\nvars = { coll = 1.5 }\n",
			"x.toml:6: external.args: item 1: unknown placeholder {nope} (did you mean \"nodes\"?): want a var of [external.vars] or one of ranks, nodes, ranks_per_node, sizes, min_size, max_size, run_dir, output\n" +
				"x.toml:7: external.vars.coll: want string, integer, or a list of them, got float"},
		{"output a path", base + "[external]\nprogram = \"p\"\nparser = \"osu\"\noutput = \"../x.json\"\n",
			`x.toml:6: external.output: output "../x.json": want a file name in the run directory, such as "results.json", not a path or one of efaxx's files`},
		// The program names the runs' benchmark, which a job script's
		// header shows: a line break there would end the line, and the
		// job would fail to render, not the sweep to validate.
		{"line break in program", base + "[external]\nprogram = \"/opt/x/all_reduce_perf\\ntouch PWNED\"\nparser = \"nccl-tests\"\n",
			`x.toml:4: external.program: program "/opt/x/all_reduce_perf\ntouch PWNED": holds control character U+000A (a line break ends a script line)`},
		{"carriage return in program", base + "[external]\nprogram = \"osu_latency\\r\"\nparser = \"osu\"\n",
			`x.toml:4: external.program: program "osu_latency\r": holds control character U+000D (a line break ends a script line)`},
		{"line break from a var in program", base + "[external]\nprogram = \"/opt/{c}_perf\"\nparser = \"nccl-tests\"\nvars = { c = [\"all_reduce\", \"x\\ny\"] }\n",
			`x.toml:4: external.program: {c} in the program: value "x\ny": holds control character U+000A (a line break ends a script line)`},
		{"iterations", base + "[params]\niterations = 5\n[external]\nprogram = \"p\"\nparser = \"osu\"\n",
			"x.toml:4: params.iterations: applies to benchmarks sendrecv, send, write, all2all, proxy, ipc, ipc-all2all and queue only, and the sweep runs external"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := harness.Parse("x.toml", []byte(tt.text))
			if err == nil || err.Error() != tt.want {
				t.Errorf("Parse error =\n%v\nwant\n%s", err, tt.want)
			}
			var list lineerr.Errors
			if err != nil && !errors.As(err, &list) {
				t.Errorf("error %T is not a lineerr.Errors", err)
			}
		})
	}
}

// TestExternalPlaceholderErrors: every wrong placeholder is reported at
// once, each at the line of its item or variable and under its key.
func TestExternalPlaceholderErrors(t *testing.T) {
	text := `name = "ext3"
benchmark = "external"

[external]
parser = "nccl-tests"
program = "/opt/all_reduce_perf"
args = ["-n", "{rank}",
        "-b", "{max_size}",
        "pre{flags}", "{rank}{rank}"]
env = { A = "{outptu}" }

[external.vars]
flags = [[], ["-a"]]
`
	_, err := harness.Parse("ext3.toml", []byte(text))
	var list lineerr.Errors
	if !errors.As(err, &list) {
		t.Fatalf("Parse error = %v, want a lineerr.Errors", err)
	}
	var got []string
	for _, e := range list {
		got = append(got, fmt.Sprintf("%d %s %s", e.Line, e.Key, strings.SplitN(e.Err.Error(), " (", 2)[0]))
	}
	want := []string{
		"7 external.args item 2: unknown placeholder {rank}",
		"8 external.args item 4: {max_size} without sizes: set [params] sizes",
		`9 external.args item 5: {flags} is a list var: only an argument of its own, "{flags}", can take it`,
		"9 external.args item 6: unknown placeholder {rank}",
		"10 external.env.A unknown placeholder {outptu}",
	}
	if !slices.Equal(got, want) {
		t.Errorf("errors =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestExternalBadSizes: a sizes the file got wrong is its one error; the
// placeholders are not judged against the default that stands in for it.
func TestExternalBadSizes(t *testing.T) {
	text := "name = \"x\"\nbenchmark = \"external\"\n[params]\nsizes = [\"4KiB\", true]\n" +
		"[external]\nprogram = \"p\"\nparser = \"osu\"\nargs = [\"-m\", \"{min_size}\"]\n"
	_, err := harness.Parse("x.toml", []byte(text))
	var list lineerr.Errors
	if !errors.As(err, &list) || len(list) != 1 || list[0].Key != "params.sizes" {
		t.Errorf("Parse = %v, want the one error of params.sizes", err)
	}
}

// TestExpectToolBenchmark: an [[expect]] of an external sweep names the
// tool's benchmark, as its runs are stored.
func TestExpectToolBenchmark(t *testing.T) {
	text := ncclSweep + "[[expect]]\nwhere = { benchmark = \"nccl:alltoall\", size = \">= 1GiB\" }\nmetric = \"busbw\"\nmin = 40\n"
	s, err := harness.Parse("nccl.toml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if w := s.Expects[0].Where; !w.Matches("nccl:alltoall", nil, 2<<30) || w.Matches("nccl:all_gather", nil, 2<<30) {
		t.Errorf("where %+v does not select nccl:alltoall alone", w)
	}
	bad := strings.Replace(text, "nccl:alltoall", "ncl:alltoall", 1)
	if _, err := harness.Parse("nccl.toml", []byte(bad)); err == nil || !strings.Contains(err.Error(), `unknown benchmark "ncl:alltoall"`) {
		t.Errorf("where benchmark ncl:alltoall: %v", err)
	}
}

// TestExpectEveryToolBenchmark: every parser's benchmark may be named in
// an [[expect]] where; nvbandwidth's was refused as unknown.
func TestExpectEveryToolBenchmark(t *testing.T) {
	for _, parser := range external.Names() {
		b := external.Benchmark(parser, "/opt/tool/tool_name")
		text := ncclSweep + "[[expect]]\nwhere = { benchmark = \"" + b + "\" }\nmetric = \"tool:time\"\nmin = 1\n"
		if _, err := harness.Parse("nccl.toml", []byte(text)); err != nil {
			t.Errorf("where benchmark %s (parser %s): %v", b, parser, err)
		}
	}
}
