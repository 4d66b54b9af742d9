package harness_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"efaxx/bytesize"
	"efaxx/harness"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// goldenSweep is what a golden file records of a sweep and its expansion.
type goldenSweep struct {
	Name        string        `json:"name"`
	Description string        `json:"description"`
	Benchmarks  []string      `json:"benchmarks"`
	Points      []goldenPoint `json:"points"`
}

type goldenPoint struct {
	Index  int            `json:"index"`
	Label  string         `json:"label"`
	Hash   string         `json:"hash"`
	Params map[string]any `json:"params"`
	Sizes  string         `json:"sizes"`
	Args   string         `json:"args"`
}

func newGolden(s *harness.Sweep) goldenSweep {
	g := goldenSweep{Name: s.Name, Description: s.Description, Benchmarks: s.Benchmarks}
	for _, p := range s.Points() {
		var sizes []string
		for _, n := range p.Sizes {
			sizes = append(sizes, bytesize.Format(n))
		}
		g.Points = append(g.Points, goldenPoint{Index: p.Index, Label: p.Label(), Hash: p.Hash, Params: p.Params(),
			Sizes: strings.Join(sizes, ","), Args: strings.Join(p.RunnerArgs(), " ")})
	}
	return g
}

// TestExpandGolden expands each testdata/expand/NAME.toml and compares it with
// NAME.golden.json. Use go test -update to rewrite the golden files.
func TestExpandGolden(t *testing.T) {
	inputs, err := filepath.Glob("testdata/expand/*.toml")
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no inputs under testdata/expand: %v", err)
	}
	for _, in := range inputs {
		t.Run(filepath.Base(in), func(t *testing.T) {
			s, err := harness.Load(in)
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.MarshalIndent(newGolden(s), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			golden := strings.TrimSuffix(in, ".toml") + ".golden.json"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("expansion of %s differs from %s (go test -update rewrites it):\n%s", in, golden, got)
			}
		})
	}
}

func mustParse(t *testing.T, text string) *harness.Sweep {
	t.Helper()
	s, err := harness.Parse("test.toml", []byte(text))
	if err != nil {
		t.Fatalf("Parse:\n%s\nerror:\n%v", text, err)
	}
	return s
}

func TestPointsDemo(t *testing.T) {
	s, err := harness.Load("testdata/expand/demo.toml")
	if err != nil {
		t.Fatal(err)
	}
	sizes := []uint64{4 << 10, 8 << 10, 16 << 10, 32 << 10, 64 << 10, 128 << 10, 256 << 10, 512 << 10,
		1 << 20, 2 << 20, 4 << 20, 8 << 20, 16 << 20}
	want := []struct{ benchmark, provider, label string }{
		{"sendrecv", "shm", "sendrecv provider=shm"},
		{"sendrecv", "tcp", "sendrecv provider=tcp"},
		{"write", "shm", "write provider=shm"},
		{"write", "tcp", "write provider=tcp"},
	}
	points := s.Points()
	if len(points) != len(want) {
		t.Fatalf("len(Points()) = %d, want %d", len(points), len(want))
	}
	for i, w := range want {
		p := points[i]
		got := harness.Point{Index: p.Index, Benchmark: p.Benchmark, Provider: p.Provider, Ranks: p.Ranks,
			Sizes: p.Sizes, Iterations: p.Iterations, Warmup: p.Warmup, Timeout: p.Timeout, Chunk: p.Chunk, Window: p.Window}
		chunk := uint64(1 << 20) // "auto": sendrecv's 1 MiB, write's 8 MiB
		if w.benchmark == "write" {
			chunk = 8 << 20
		}
		wantPoint := harness.Point{Index: i, Benchmark: w.benchmark, Provider: w.provider, Ranks: 2,
			Sizes: sizes, Iterations: 200, Warmup: 20, Timeout: 60 * time.Second, Chunk: chunk, Window: 16}
		if !reflect.DeepEqual(got, wantPoint) {
			t.Errorf("Points()[%d] = %+v, want %+v", i, got, wantPoint)
		}
		if got, want := p.Label(), w.label; got != want {
			t.Errorf("Points()[%d].Label() = %q, want %q", i, got, want)
		}
	}
}

func TestPointsOrder(t *testing.T) {
	s := mustParse(t, `
name = "order"
benchmark = ["write", "sendrecv"]
[params]
provider = ["tcp", "shm"]
ranks = [2, 4]
window = [8, 16, 32]
`)
	var got []string
	for _, p := range s.Points() {
		got = append(got, p.Label())
	}
	var want []string
	for _, b := range []string{"write", "sendrecv"} {
		for _, prov := range []string{"tcp", "shm"} {
			for _, r := range []string{"2", "4"} {
				for _, w := range []string{"8", "16", "32"} {
					want = append(want, b+" provider="+prov+" ranks="+r+" window="+w)
				}
			}
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("labels in order:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for i, p := range s.Points() {
		if p.Index != i {
			t.Errorf("Points()[%d].Index = %d", i, p.Index)
		}
	}
}

func TestPointHash(t *testing.T) {
	base := `name = "a"
benchmark = "write"
[params]
sizes = ["4KiB", "1MiB"]
chunk = "1MiB"
timeout = "60s"
`
	tests := []struct {
		name, text string
		same       bool
	}{
		{"identical", base, true},
		{"respelled", `# same point, other spellings
benchmark = ["write"]   # a list of one
name = "b"              # the sweep name is not part of a point
params.timeout = "1m"
params.chunk = 1048576
params.sizes = [4096, "1 m"]
params.ranks = 2        # the default, written out
`, true},
		{"sizes as range", `name = "a"
benchmark = "write"
params.sizes = "4KiB..1MiB x256"
params.chunk = "1MiB"
`, true},
		{"chunk left to its default", strings.Replace(base, `chunk = "1MiB"`, ``, 1), false},
		{"other benchmark", strings.Replace(base, `"write"`, `"sendrecv"`, 1), false},
		{"other size order", strings.Replace(base, `["4KiB", "1MiB"]`, `["1MiB", "4KiB"]`, 1), false},
		{"other chunk", strings.Replace(base, `chunk = "1MiB"`, `chunk = "2MiB"`, 1), false},
		{"other timeout", strings.Replace(base, `"60s"`, `"61s"`, 1), false},
		{"other ranks", base + "ranks = 3\n", false},
		{"duration off, written out", base + "duration = \"0s\"\n", true},
		{"a duration", base + "duration = \"2s\"\n", false},
	}
	want := mustParse(t, base).Points()[0].Hash
	if len(want) != 16 {
		t.Fatalf("Hash = %q, want 16 hex digits", want)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mustParse(t, tt.text).Points()[0].Hash
			if (got == want) != tt.same {
				t.Errorf("Hash = %s, base %s; want same = %v", got, want, tt.same)
			}
		})
	}
}

// chunk = "auto", or no chunk, is the benchmark's default for the
// point's strategy, stored and hashed as its bytes.
func TestPointChunkAuto(t *testing.T) {
	tests := []struct {
		params string
		want   []uint64 // per point: write, then sendrecv
	}{
		{"", []uint64{8 << 20, 1 << 20}},
		{`chunk = "auto"`, []uint64{8 << 20, 1 << 20}},
		{`strategy = "split"`, []uint64{8 << 20, 1 << 20}},
		{`strategy = "per-op"`, []uint64{1 << 20, 1 << 20}},
		{`chunk = "2MiB"`, []uint64{2 << 20, 2 << 20}},
	}
	for _, tt := range tests {
		s := mustParse(t, "name = \"c\"\nbenchmark = [\"write\", \"sendrecv\"]\n[params]\n"+tt.params+"\n")
		points := s.Points()
		for i, p := range points {
			if p.Chunk != tt.want[i] {
				t.Errorf("%q: %s chunk = %d, want %d", tt.params, p.Benchmark, p.Chunk, tt.want[i])
			}
		}
		if tt.params == `chunk = "auto"` && points[0].Hash != mustParse(t, "name = \"c\"\nbenchmark = [\"write\", \"sendrecv\"]\n").Points()[0].Hash {
			t.Errorf(`chunk = "auto" hashes unlike no chunk`)
		}
	}
}

func TestPointParams(t *testing.T) {
	p := mustParse(t, "name = \"p\"\nbenchmark = \"write\"\nparams.timeout = \"90m\"\n").Points()[0]
	want := map[string]any{
		"provider": "auto", "ranks": 2, "nodes": 1, "iterations": 100, "warmup": 10,
		"timeout": "5400s", "chunk": uint64(8 << 20), "window": 16, "slots": 64,
		"rails": 1, "strategy": "single", "nics": "auto", "pinning": "numa", "memory": "host", "link_gbps": 0.0,
	}
	if got := p.Params(); !reflect.DeepEqual(got, want) {
		t.Errorf("Params() = %v, want %v", got, want)
	}
}

func TestPointRunnerArgs(t *testing.T) {
	p := mustParse(t, `
name = "args"
benchmark = "write"
[params]
provider = "shm"
sizes = "4KiB..16KiB"
iterations = 200
warmup = 20
timeout = "1500ms"
`).Points()[0]
	want := []string{"--benchmark", "write", "--provider", "shm", "--sizes", "4096,8192,16384",
		"--iterations", "200", "--warmup", "20", "--timeout", "1500ms", "--chunk", "8388608", "--window", "16", "--slots", "64",
		"--rails", "1", "--strategy", "single", "--nic", "auto", "--pin", "numa", "--memory", "host", "--link-gbps", "0"}
	if got := p.RunnerArgs(); !reflect.DeepEqual(got, want) {
		t.Errorf("RunnerArgs() = %q, want %q", got, want)
	}
}

// TestPointSchedule: ipc-all2all's schedule reaches the runner, and only
// ipc-all2all takes one.
func TestPointSchedule(t *testing.T) {
	p := mustParse(t, "name = \"s\"\nbenchmark = \"ipc-all2all\"\nparams.schedule = [\"at-once\", \"shifted\"]\n").Points()
	if len(p) != 2 || !strings.Contains(strings.Join(p[1].RunnerArgs(), " "), "--schedule shifted") || p[0].Params()["schedule"] != "at-once" {
		t.Fatalf("points %v: want at-once, then shifted passed as --schedule shifted", p)
	}
	for _, tt := range []struct{ bench, value, want string }{
		{"ipc-all2all", `"rotated"`, `s.toml:3: params.schedule: unknown schedule "rotated"; known: at-once, shifted`},
		{"ipc", `"shifted"`, "s.toml:3: params.schedule: applies to benchmark ipc-all2all only, and the sweep runs ipc"},
	} {
		text := fmt.Sprintf("name = \"s\"\nbenchmark = %q\nparams.schedule = %s\n", tt.bench, tt.value)
		if _, err := harness.Parse("s.toml", []byte(text)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%q) = %v; want an error holding %q", text, err, tt.want)
		}
	}
}

// TestSizesEachBenchmarkTakes: validation refuses a size a benchmark of
// the sweep cannot measure, at the sizes key, as efaxx-runner would at
// launch.
func TestSizesEachBenchmarkTakes(t *testing.T) {
	for _, tt := range []struct{ bench, sizes, want string }{
		{"ipc", `["1MiB", "100"]`, "z.toml:3: params.sizes: ipc moves whole 16-byte words: 100 is not a multiple of 16"},
		{"ipc-all2all", `"24"`, "z.toml:3: params.sizes: ipc-all2all moves whole 16-byte words: 24 is not a multiple of 16"},
		{"queue", `"12"`, "z.toml:3: params.sizes: queue moves whole 8-byte words: 12 is not a multiple of 8"},
		{"queue", `"1TiB"`, "z.toml:3: params.sizes: 1099511627776 is more than queue takes"},
		{"write", `"7"`, ""},
	} {
		text := fmt.Sprintf("name = \"z\"\nbenchmark = %q\nparams.sizes = %s\n", tt.bench, tt.sizes)
		_, err := harness.Parse("z.toml", []byte(text))
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("Parse(%q) = %v; want %q", text, err, tt.want)
		}
	}
}

func TestPointDuration(t *testing.T) {
	p := mustParse(t, "name = \"d\"\nbenchmark = \"sendrecv\"\nparams.duration = \"1500ms\"\n").Points()[0]
	args := strings.Join(p.RunnerArgs(), " ")
	if !strings.Contains(args, "--iterations 100 --duration 1500ms --warmup 10") || p.Params()["duration"] != "1500ms" {
		t.Errorf("RunnerArgs() = %q, Params() = %v: want --duration 1500ms and duration 1500ms", args, p.Params())
	}
	for _, tt := range []struct{ bench, value, want string }{
		{"ipc", `"1s"`, "duration"}, {"write", `"-1s"`, "out of range"}, {"write", "2", "duration"},
	} {
		text := fmt.Sprintf("name = \"d\"\nbenchmark = %q\nparams.duration = %s\n", tt.bench, tt.value)
		if _, err := harness.Parse("d.toml", []byte(text)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%q) = %v; want an error holding %q", text, err, tt.want)
		}
	}
}

func TestPointLabel(t *testing.T) {
	tests := []struct {
		name, params string
		want         []string
	}{
		{"no axis", `provider = "shm"`, []string{"write"}},
		{"list of one", `provider = ["shm"]`, []string{"write"}},
		{"sizes are no axis", `sizes = ["4KiB", "8KiB"]`, []string{"write"}},
		{"chunk and timeout", "chunk = [\"64KiB\", 1000]\ntimeout = [\"1s\", \"2h\"]",
			[]string{"write timeout=1s chunk=64KiB", "write timeout=1s chunk=1000B",
				"write timeout=2h chunk=64KiB", "write timeout=2h chunk=1000B"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustParse(t, "name = \"l\"\nbenchmark = \"write\"\n[params]\n"+tt.params+"\n")
			var got []string
			for _, p := range s.Points() {
				got = append(got, p.Label())
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("labels = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestPointsDoNotShareSizes(t *testing.T) {
	s := mustParse(t, "name = \"s\"\nbenchmark = [\"write\", \"sendrecv\"]\n")
	points := s.Points()
	points[0].Sizes[0] = 1
	if got := points[1].Sizes[0]; got != 4096 {
		t.Errorf("Points()[1].Sizes[0] = %d after writing Points()[0].Sizes[0], want 4096", got)
	}
	if got := s.Points()[0].Sizes[0]; got != 4096 {
		t.Errorf("Points() again: Sizes[0] = %d, want 4096", got)
	}
}

func TestPointsTooMany(t *testing.T) {
	var windows, ranks []string
	for i := 1; i <= 400; i++ {
		windows = append(windows, strconv.Itoa(i))
		ranks = append(ranks, strconv.Itoa(i+1))
	}
	text := "name = \"big\"\nbenchmark = \"write\"\n[params]\nwindow = [" + strings.Join(windows, ",") +
		"]\nranks = [" + strings.Join(ranks, ",") + "]\n"
	_, err := harness.Parse("big.toml", []byte(text))
	want := "big.toml: sweep expands to 160000 points (ranks 400 × window 400), more than max_points = 10000: " +
		"a list where a range or one value was meant? A larger max_points at the top of the file allows it"
	if got := errText(err); got != want {
		t.Errorf("Parse() error = %q, want %q", got, want)
	}
	// The file may raise the limit.
	s, err := harness.Parse("big.toml", []byte("max_points = 160000\n"+text))
	if err != nil || len(s.Points()) != 160000 || s.Len() != 160000 {
		t.Errorf("Parse() with max_points = 160000: %v", err)
	}
	if _, err := harness.Parse("big.toml", []byte("max_points = 0\n"+text)); !strings.Contains(errText(err), "big.toml:1: max_points: 0 is out of range") {
		t.Errorf("max_points = 0: %v", err)
	}
}

func TestParamValue(t *testing.T) {
	tests := []struct {
		name, text string
		want       any
		wantErr    error
	}{
		{"chunk", "1MiB", uint64(1 << 20), nil},
		{"chunk", "1048576", uint64(1 << 20), nil},
		{"ranks", "8", 8, nil},
		{"timeout", "1m", "60s", nil},
		{"provider", "shm", "shm", nil},
		{"provider", "verbs", nil, harness.ErrValue},
		{"ranks", "two", nil, harness.ErrType},
		{"op", "all_reduce", "all_reduce", nil},
		{"ngpus", "8", int64(8), nil},
		{"busbw_factor", "1.5", 1.5, nil},
	}
	for _, tt := range tests {
		got, err := harness.ParamValue(tt.name, tt.text)
		if !errors.Is(err, tt.wantErr) || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParamValue(%q, %q) = %#v, %v; want %#v, %v", tt.name, tt.text, got, err, tt.want, tt.wantErr)
		}
	}
}

// TestLenShipped: Len, which validate prints, counts what Points expands
// to for every sweep efaxx ships.
func TestLenShipped(t *testing.T) {
	files, _ := filepath.Glob("../sweeps/*/*.toml")
	top, _ := filepath.Glob("../sweeps/*.toml")
	for _, f := range append(files, top...) {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s, err := harness.Parse(f, text)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(s.Points()); s.Len() != n {
			t.Errorf("%s: Len() = %d, Points() has %d", f, s.Len(), n)
		}
	}
	if len(files) < 8 {
		t.Fatalf("found %d sweep files under ../sweeps, want the published and local ones", len(files))
	}
}
