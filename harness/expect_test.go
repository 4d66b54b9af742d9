package harness_test

import (
	"errors"
	"math"
	"reflect"
	"testing"

	"efaxx/harness"
)

const expectSweep = `name = "accept"
benchmark = ["write", "sendrecv"]

[params]
provider = ["efa", "tcp"]

[[expect]]
name   = "one EFA at line rate"
where  = { benchmark = "write", provider = "efa", rails = 1, size = ">= 64MiB" }
min    = 95

[[expect]]
where     = { benchmark = "sendrecv", size = "4KiB..64KiB", chunk = "1MiB" }
metric    = "lat_us"
stat      = "p99"
ref       = 20
tolerance = "10%"

[[expect]]
where = { provider = ["efa", "tcp"], size = 4096 }
max   = 400
min   = 0.5
`

func TestParseExpects(t *testing.T) {
	s, err := harness.Parse("accept.toml", []byte(expectSweep))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Expects) != 3 {
		t.Fatalf("Expects = %+v, want 3", s.Expects)
	}
	inf := math.Inf(1)
	tests := []struct {
		got                       harness.Expect
		name, metric, stat, bound string
		line                      int
		lo, hi                    float64
		where                     harness.Where
	}{
		{s.Expects[0], "one EFA at line rate", "gbps", "median", ">= 95", 8, 95, inf, harness.Where{
			Benchmarks: []string{"write"}, Params: map[string][]any{"provider": {"efa"}, "rails": {1}},
			Sizes: []harness.SizeCond{{Op: ">=", Size: 64 << 20}}}},
		{s.Expects[1], "", "lat_us", "p99", "<= 20 + 10%", 13, math.Inf(-1), 22, harness.Where{
			Benchmarks: []string{"sendrecv"}, Params: map[string][]any{"chunk": {uint64(1 << 20)}},
			Sizes: []harness.SizeCond{{Op: ">=", Size: 4096}, {Op: "<=", Size: 65536}}}},
		{s.Expects[2], "", "gbps", "median", ">= 0.5, <= 400", 20, 0.5, 400, harness.Where{
			Params: map[string][]any{"provider": {"efa", "tcp"}}, Sizes: []harness.SizeCond{{Op: "==", Size: 4096}}}},
	}
	for i, tt := range tests {
		g := tt.got
		if g.Name != tt.name || g.Metric.Name != tt.metric || g.Stat != tt.stat || g.Bound != tt.bound ||
			g.Line != tt.line || g.File != "accept.toml" || math.Abs(g.Lo-tt.lo) > 1e-12 || math.Abs(g.Hi-tt.hi) > 1e-12 ||
			!reflect.DeepEqual(g.Where, tt.where) {
			t.Errorf("expect %d = %+v, want name %q metric %s stat %s bound %q line %d [%v, %v] where %+v",
				i, g, tt.name, tt.metric, tt.stat, tt.bound, tt.line, tt.lo, tt.hi, tt.where)
		}
	}
}

func TestWhereMatches(t *testing.T) {
	s, err := harness.Parse("accept.toml", []byte(expectSweep+"\n[[expect]]\nwhere = { duration = [\"0s\", \"2s\"] }\nmin = 1\n"+
		"\n[[expect]]\nwhere = { chunk = \"auto\" }\nmin = 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	// Params as a stored run decodes them from JSON: numbers are float64.
	efa := map[string]any{"provider": "efa", "chunk": float64(1 << 20), "ranks": 2.0, "rails": 1.0}
	tests := []struct {
		expect    int
		benchmark string
		params    map[string]any
		size      uint64
		want      bool
	}{
		{0, "write", efa, 64 << 20, true},
		{0, "write", efa, 32 << 20, false},
		{0, "sendrecv", efa, 64 << 20, false},
		{0, "write", map[string]any{"provider": "tcp"}, 64 << 20, false},
		{0, "write", map[string]any{"provider": "efa", "rails": 4.0}, 64 << 20, false},
		{0, "write", map[string]any{}, 64 << 20, false}, // a run without the param does not match it
		{1, "sendrecv", efa, 8192, true},
		{1, "sendrecv", map[string]any{"chunk": 65536.0}, 8192, false},
		{1, "sendrecv", efa, 128 << 10, false},
		{2, "anything", map[string]any{"provider": "tcp"}, 4096, true},
		// duration is stored only when on: a run without it is at "0s".
		{3, "write", map[string]any{}, 4096, true},
		{3, "write", map[string]any{"duration": "2s"}, 4096, true},
		{3, "write", map[string]any{"duration": "5s"}, 4096, false},
		{3, "queue", map[string]any{}, 4096, false}, // the queue takes no duration
		// chunk "auto" is what a run stores for it: the bytes it gives the
		// run's benchmark, strategy and memory.
		{4, "write", map[string]any{"strategy": "single", "chunk": float64(8 << 20)}, 4096, true},
		{4, "write", map[string]any{"strategy": "single", "memory": "device", "chunk": float64(64 << 20)}, 4096, true},
		{4, "write", map[string]any{"strategy": "single", "memory": "device", "chunk": float64(8 << 20)}, 4096, false},
		{4, "write", map[string]any{"strategy": "per-op", "chunk": float64(1 << 20)}, 4096, true},
		{4, "write", map[string]any{"strategy": "single", "chunk": float64(1 << 20)}, 4096, false},
		{4, "sendrecv", map[string]any{"chunk": float64(1 << 20)}, 4096, true},
		{4, "sendrecv", map[string]any{"chunk": float64(8 << 20)}, 4096, false},
	}
	for _, tt := range tests {
		if got := s.Expects[tt.expect].Where.Matches(tt.benchmark, tt.params, tt.size); got != tt.want {
			t.Errorf("expect %d Matches(%s, %v, %d) = %v, want %v", tt.expect, tt.benchmark, tt.params, tt.size, got, tt.want)
		}
	}
}

func TestParseExpectErrors(t *testing.T) {
	tests := []struct {
		name, text, want string
		wantErr          error
	}{
		{"unknown key", "[[expect]]\nwhere = {}\nmn = 95\n",
			"x.toml:4: expect[1]: missing required key: min, max or ref (with a tolerance)\n" +
				`x.toml:5: expect[1].mn: unknown key (did you mean "min"?)`, harness.ErrUnknownKey},
		{"no bound", "[[expect]]\nwhere = { benchmark = \"write\" }\n",
			"x.toml:4: expect[1]: missing required key: min, max or ref (with a tolerance)", harness.ErrMissingKey},
		{"unknown where key", "[[expect]]\nwhere = { rail = 1 }\nmin = 1\n",
			`x.toml:4: expect[1].where.rail: unknown key (did you mean "rails"?)`, harness.ErrUnknownKey},
		{"typo in where", "[[expect]]\nwhere = { provder = \"efa\" }\nmin = 1\n",
			`x.toml:4: expect[1].where.provder: unknown key (did you mean "provider"?)`, harness.ErrUnknownKey},
		{"bad benchmark", "[[expect]]\nwhere = { benchmark = \"wrte\" }\nmin = 1\n",
			`x.toml:4: expect[1].where.benchmark: unknown benchmark "wrte" (did you mean "write"?); known: sendrecv, send, write, all2all, proxy, ipc, ipc-all2all, queue, or an external program's, as nccl:alltoall`, harness.ErrValue},
		{"bad size", "[[expect]]\nwhere = { size = \">= 64MB\" }\nmin = 1\n",
			`x.toml:4: expect[1].where.size: size "64MB": unit "MB" is ambiguous (1000 or 1024?): write "64MiB", or a number of bytes`, harness.ErrSize},
		{"bad metric", "[[expect]]\nmetric = \"bw\"\nmin = 1\n",
			`x.toml:4: expect[1].metric: metric "bw": unknown metric; known: gbps, lat_us, lat_p99_us, iter_us, libefaxx_gbps, dir_gbps, dir_gbs, mops, pct_link, algbw, busbw, and tool:NAME for a value a tool printed`, harness.ErrValue},
		{"ref without tolerance", "[[expect]]\nref = 97\n",
			"x.toml:4: expect[1].ref: missing required key: a ref needs a tolerance, like tolerance = \"3%\"", harness.ErrMissingKey},
		{"bad tolerance", "[[expect]]\nref = 97\ntolerance = \"3\"\n",
			`x.toml:5: expect[1].tolerance: tolerance "3": want a percentage like "3%" (0 to 100) or a number`, harness.ErrValue},
		{"empty band", "[[expect]]\nmin = 10\nmax = 5\n",
			"x.toml:5: expect[1].max: the bounds leave no value: at least 10 and at most 5", harness.ErrValue},
		{"string bound", "[[expect]]\nmin = \"95\"\n",
			"x.toml:4: expect[1].min: want number, got string", harness.ErrType},
		{"table, not array", "[expect]\nmin = 1\n",
			"x.toml:3: expect: want list of tables ([[expect]]), got table", harness.ErrType},
		{"param its benchmarks do not take", "[[expect]]\nwhere = { benchmark = [\"sendrecv\", \"queue\"], slots = 4, ranks = 2 }\nmin = 1\n",
			`x.toml:4: expect[1].where.slots: applies to benchmarks send, write, all2all and proxy only, and where names sendrecv and queue: it would match no run`, harness.ErrValue},
		{"empty list", "[[expect]]\nwhere = { provider = [] }\nmin = 1\n",
			"x.toml:4: expect[1].where.provider: empty list: where would match no run", harness.ErrEmptyList},
		{"line break in name", "[[expect]]\nname = \"\"\"one\nEFA\"\"\"\nmin = 1\n",
			`x.toml:4: expect[1].name: name "one\nEFA" holds control character U+000A: it names a row of efaxx check's report`, harness.ErrValue},
		{"second table", "[[expect]]\nmin = 1\n[[expect]]\nstat = \"p50\"\nmin = 1\n",
			`x.toml:6: expect[2].stat: unknown stat "p50"; known: median, min, max, mean, p99`, harness.ErrValue},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := harness.Parse("x.toml", []byte(head+tt.text))
			if err == nil || err.Error() != tt.want || !errors.Is(err, tt.wantErr) {
				t.Errorf("Parse error =\n%v\nwant\n%s", err, tt.want)
			}
		})
	}
}

// TestParseExpectErrors_Lines checks that errors in the tables of
// [[expect]] name their own lines, dotted keys and [expect.where] too: the
// toml package keeps one position per dotted key, which the tables of an
// array share.
func TestParseExpectErrors_Lines(t *testing.T) {
	text := head + `[[expect]]
where = { size = "4KiB" }
min = 1

[[expect]]
where = { size = "4 parsecs" }
min = 1

[[expect]]
where.provider = "efa"
where.size = "big"
max = "2"

[[expect]]
min = 1
[expect.where]
size = "huge"

[[expect]]
min = 1
where.provider = [
  "efa",
  "ibv",
]

[[expect]]

[[expect]]
min = 1
`
	want := "x.toml:8: expect[2].where.size: size \"4 parsecs\": unknown unit \"parsecs\": want B, KiB, MiB, GiB or TiB\n" +
		"x.toml:13: expect[3].where.size: size \"big\": want a whole number of bytes with an optional unit, like 4096 or \"4KiB\"\n" +
		"x.toml:14: expect[3].max: want number, got string\n" +
		"x.toml:19: expect[4].where.size: size \"huge\": want a whole number of bytes with an optional unit, like 4096 or \"4KiB\"\n" +
		"x.toml:25: expect[5].where.provider: item 2: unknown provider \"ibv\"; known: auto, shm, tcp, efa\n" +
		"x.toml:28: expect[6]: missing required key: min, max or ref (with a tolerance)"
	if _, err := harness.Parse("x.toml", []byte(text)); err == nil || err.Error() != want {
		t.Errorf("Parse error =\n%v\nwant\n%s", err, want)
	}
}
