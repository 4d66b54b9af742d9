package harness_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"efaxx/harness"
	"efaxx/lineerr"
)

func TestParseDemo(t *testing.T) {
	data, err := os.ReadFile("testdata/expand/demo.toml")
	if err != nil {
		t.Fatal(err)
	}
	s, err := harness.Parse("sweeps/demo.toml", data)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	if got, want := s.Name, "demo"; got != want {
		t.Errorf("Name = %q, want %q", got, want)
	} else if got, want := s.Description, "libfabric SEND/RECV ping-pong and RDMA WRITE between 2 local ranks, over shm and tcp"; got != want {
		t.Errorf("Description = %q, want %q", got, want)
	} else if got, want := s.Benchmarks, []string{"sendrecv", "write"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Benchmarks = %q, want %q", got, want)
	} else if got, want := s.File, "sweeps/demo.toml"; got != want {
		t.Errorf("File = %q, want %q", got, want)
	} else if got, want := s.Hash, hex.EncodeToString(sum[:]); got != want {
		t.Errorf("Hash = %q, want %q", got, want)
	} else if got, want := len(s.Points()), 4; got != want {
		t.Errorf("len(Points()) = %d, want %d", got, want)
	}
}

// head is the start of most test sweeps: name and benchmark on lines 1-2, so
// a [params] header is line 3 and its first key line 4.
const head = "name = \"x\"\nbenchmark = \"write\"\n"

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, text string
		want       string // the whole message, one error per line
	}{
		// Keys.
		{"typo in params", head + "[params]\nsizez = \"4KiB\"\n",
			`sweeps/x.toml:4: params.sizez: unknown key (did you mean "sizes"?)`},
		{"typo at top", "name = \"x\"\nbenchmarks = \"write\"\n",
			"sweeps/x.toml:2: benchmarks: unknown key (did you mean \"benchmark\"?)\n" +
				"sweeps/x.toml: benchmark: missing required key"},
		{"unknown key, nothing close", head + "colour = \"red\"\n",
			"sweeps/x.toml:3: colour: unknown key; known: benchmark, container, description, expect, external, max_points, name, params, slurm"},
		{"case matters", head + "Name = \"y\"\n",
			`sweeps/x.toml:3: Name: unknown key (did you mean "name"?)`},
		{"quoted key", head + "[params]\n\"ranks x\" = 2\n",
			`sweeps/x.toml:4: params."ranks x": unknown key (did you mean "ranks"?)`},
		{"unknown table", head + "[param]\nranks = 2\n",
			`sweeps/x.toml:3: param: unknown key (did you mean "params"?)`},
		{"missing name and benchmark", "description = \"d\"\n",
			"sweeps/x.toml: name: missing required key\nsweeps/x.toml: benchmark: missing required key"},

		// Types.
		{"string for integer", head + "[params]\nranks = \"two\"\n",
			"sweeps/x.toml:4: params.ranks: want integer, got string"},
		{"float for integer", head + "[params]\nranks = 2.0\n",
			"sweeps/x.toml:4: params.ranks: want integer, got float"},
		{"boolean for integer", head + "[params]\nwarmup = true\n",
			"sweeps/x.toml:4: params.warmup: want integer, got boolean"},
		{"list of lists", head + "[params]\nprovider = [[\"shm\"], \"tcp\"]\n",
			"sweeps/x.toml:4: params.provider: item 1: want string, got list"},
		{"inline table for integer", head + "[params]\nranks = { n = 2 }\n",
			"sweeps/x.toml:4: params.ranks: want integer, got table"},
		{"table header for integer", head + "[params.ranks]\nn = 2\n",
			"sweeps/x.toml:3: params.ranks: want integer, got table"},
		{"list of tables in a list", head + "[params]\nprovider = [{ name = \"shm\" }]\n",
			"sweeps/x.toml:4: params.provider: item 1: want string, got table"},
		{"integer for table", head + "params = 3\n",
			"sweeps/x.toml:3: params: want table, got integer"},
		{"array of tables", head + "[[params]]\nranks = 2\n",
			"sweeps/x.toml:3: params: want table, got list"},
		{"integer for name", "name = 7\nbenchmark = \"write\"\n",
			"sweeps/x.toml:1: name: want string, got integer"},
		{"list for description", head + "description = [\"a\"]\n",
			"sweeps/x.toml:3: description: want string, got list"},
		{"integer for duration", head + "[params]\ntimeout = 60\n",
			`sweeps/x.toml:4: params.timeout: want duration (a string like "60s"), got integer`},
		{"datetime for duration", head + "[params]\ntimeout = 1979-05-27\n",
			`sweeps/x.toml:4: params.timeout: want duration (a string like "60s"), got datetime`},
		{"float for size", head + "[params]\nchunk = 1.5\n",
			`sweeps/x.toml:4: params.chunk: want size (like "4KiB" or 4096), got float`},

		// Values.
		{"bad name", "name = \"../x\"\nbenchmark = \"write\"\n",
			`sweeps/x.toml:1: name: "../x" is not a valid name: want letters, digits, '.', '_' and '-', starting with a letter or digit`},
		{"unknown benchmark", "name = \"x\"\nbenchmark = \"wirte\"\n",
			`sweeps/x.toml:2: benchmark: unknown benchmark "wirte" (did you mean "write"?); known: sendrecv, send, write, all2all, proxy, ipc, ipc-all2all, queue, external`},
		{"unknown benchmark in a list", "name = \"x\"\nbenchmark = [\"write\", \"alltoall\"]\n",
			`sweeps/x.toml:2: benchmark: item 2: unknown benchmark "alltoall" (did you mean "all2all"?); known: sendrecv, send, write, all2all, proxy, ipc, ipc-all2all, queue, external`},
		{"unknown provider", head + "[params]\nprovider = \"verbs\"\n",
			`sweeps/x.toml:4: params.provider: unknown provider "verbs"; known: auto, shm, tcp, efa`},
		{"strategies benchmarks cannot use", "name = \"x\"\nbenchmark = [\"sendrecv\", \"proxy\"]\n[params]\nstrategy = [\"adaptive\", \"round-robin\"]\n",
			"sweeps/x.toml:4: params.strategy: sendrecv cannot use the adaptive strategy: a receive must be posted on the rail its message arrives on before the sender picks one; use write or all2all, or a fixed strategy\n" +
				"sweeps/x.toml:4: params.strategy: proxy cannot use the round-robin strategy: it writes to one peer at a time; use single, split, per-op or adaptive"},
		{"ranks too few", head + "[params]\nranks = 1\n",
			"sweeps/x.toml:4: params.ranks: benchmark write runs on 2..65536 ranks, got 1"},
		{"window too large", head + "[params]\nwindow = 4097\n",
			"sweeps/x.toml:4: params.window: 4097 is out of range: want 1..4096"},
		{"negative warmup", head + "[params]\nwarmup = -1\n",
			"sweeps/x.toml:4: params.warmup: -1 is out of range: want 0..1000000000000"},
		{"warmup past 10^12", head + "[params]\nwarmup = 1000000000001\n",
			"sweeps/x.toml:4: params.warmup: 1000000000001 is out of range: want 0..1000000000000"},
		{"zero iterations", head + "[params]\niterations = 0\n",
			"sweeps/x.toml:4: params.iterations: 0 is out of range: want 1..1000000000000"},
		{"iterations past 10^12", head + "[params]\niterations = 9223372036854775807\n",
			"sweeps/x.toml:4: params.iterations: 9223372036854775807 is out of range: want 1..1000000000000"},
		{"timeout too long", head + "[params]\ntimeout = \"25h\"\n",
			`sweeps/x.toml:4: params.timeout: duration "25h" is out of range: want more than 0s and at most 24h`},
		{"timeout zero", head + "[params]\ntimeout = \"0s\"\n",
			`sweeps/x.toml:4: params.timeout: duration "0s" is out of range: want more than 0s and at most 24h`},
		{"timeout malformed", head + "[params]\ntimeout = \"soon\"\n",
			`sweeps/x.toml:4: params.timeout: duration "soon": want a number and a unit (ns, us, ms, s, m, h), like "60s"`},
		{"chunk zero", head + "[params]\nchunk = 0\n",
			"sweeps/x.toml:4: params.chunk: size 0: zero bytes"},
		{"chunk fraction", head + "[params]\nchunk = \"1.5MiB\"\n",
			`sweeps/x.toml:4: params.chunk: size "1.5MiB": fractions are not allowed: write "1536KiB"`},
		{"chunk as range", head + "[params]\nchunk = \"1KiB..4KiB\"\n",
			`sweeps/x.toml:4: params.chunk: size "1KiB..4KiB": unknown unit "KiB..4KiB": want B, KiB, MiB, GiB or TiB`},

		// Sizes.
		{"range upside down", head + "[params]\nsizes = \"64MiB..4KiB\"\n",
			`sweeps/x.toml:4: params.sizes: range "64MiB..4KiB": minimum is larger than maximum`},
		{"range from zero", head + "[params]\nsizes = \"0..4KiB\"\n",
			`sweeps/x.toml:4: params.sizes: range "0..4KiB": size "0": zero bytes`},
		{"range step 1", head + "[params]\nsizes = \"4KiB..1MiB x1\"\n",
			`sweeps/x.toml:4: params.sizes: range "4KiB..1MiB x1": step "x1": want a whole number of at least 2`},
		{"range step not a number", head + "[params]\nsizes = \"4KiB..1MiB x2.5\"\n",
			`sweeps/x.toml:4: params.sizes: range "4KiB..1MiB x2.5": step "x2.5": want a whole number of at least 2`},
		{"range without maximum", head + "[params]\nsizes = \"4KiB..\"\n",
			`sweeps/x.toml:4: params.sizes: range "4KiB..": want "MIN..MAX" or "MIN..MAX xN", like "4KiB..16MiB x4"`},
		{"range twice", head + "[params]\nsizes = \"4KiB..1MiB..2MiB\"\n",
			`sweeps/x.toml:4: params.sizes: range "4KiB..1MiB..2MiB": want "MIN..MAX" or "MIN..MAX xN", like "4KiB..16MiB x4"`},
		{"range with KB", head + "[params]\nsizes = \"4KB..1MB\"\n",
			`sweeps/x.toml:4: params.sizes: range "4KB..1MB": size "4KB": unit "KB" is ambiguous (1000 or 1024?): write "4KiB", or a number of bytes`},
		{"sizes with MB", head + "[params]\nsizes = [\"4KiB\", \"1mb\"]\n",
			`sweeps/x.toml:4: params.sizes: item 2: size "1mb": unit "mb" is ambiguous (1000 or 1024?): write "1MiB", or a number of bytes`},
		{"sizes negative", head + "[params]\nsizes = [-4096]\n",
			"sweeps/x.toml:4: params.sizes: item 1: size -4096: negative"},
		{"sizes overflow", head + "[params]\nsizes = \"16777216TiB\"\n",
			`sweeps/x.toml:4: params.sizes: size "16777216TiB": larger than 2^64-1 bytes`},
		// Past 1 TiB the runner's buffers cannot be allocated, and near
		// 2^64 their sizes wrap around.
		{"range past 1 TiB", head + "[params]\nsizes = \"1..18446744073709551615\"\n",
			`sweeps/x.toml:4: params.sizes: range "1..18446744073709551615": size 18446744073709551615B is out of range: want at most 1TiB`},
		{"size past 1 TiB", head + "[params]\nsizes = [\"4KiB\", \"2TiB\"]\n",
			`sweeps/x.toml:4: params.sizes: item 2: size 2TiB is out of range: want at most 1TiB`},
		{"integer size past 1 TiB", head + "[params]\nsizes = 1099511627777\n",
			`sweeps/x.toml:4: params.sizes: size 1099511627777B is out of range: want at most 1TiB`},
		{"chunk past 1 TiB", head + "[params]\nchunk = \"2TiB\"\n",
			`sweeps/x.toml:4: params.chunk: size 2TiB is out of range: want at most 1TiB`},

		// Lists.
		{"empty provider", head + "[params]\nprovider = []\n",
			"sweeps/x.toml:4: params.provider: empty list: the sweep would expand to no points"},
		{"empty benchmark", "name = \"x\"\nbenchmark = []\n",
			"sweeps/x.toml:2: benchmark: empty list: the sweep would expand to no points"},
		{"empty sizes", head + "[params]\nsizes = []\n",
			"sweeps/x.toml:4: params.sizes: empty list: a point needs at least one size"},
		{"duplicate provider", head + "[params]\nprovider = [\"shm\", \"tcp\", \"shm\"]\n",
			`sweeps/x.toml:4: params.provider: duplicate value "shm" (items 1 and 3)`},
		{"duplicate size spelled twice", head + "[params]\nsizes = [\"1MiB\", \"4KiB\", 1048576]\n",
			"sweeps/x.toml:4: params.sizes: duplicate value 1MiB (items 1 and 3)"},
		{"duplicate timeout spelled twice", head + "[params]\ntimeout = [\"1m\", \"60s\"]\n",
			"sweeps/x.toml:4: params.timeout: duplicate value 60s (items 1 and 2)"},
		{"duplicate benchmark", "name = \"x\"\nbenchmark = [\"write\", \"write\"]\n",
			`sweeps/x.toml:2: benchmark: duplicate value "write" (items 1 and 2)`},
		// "auto" is write's 8 MiB: the two items would give the same points.
		{"chunk auto and its bytes", head + "[params]\nchunk = [\"auto\", \"8MiB\"]\n",
			`sweeps/x.toml:4: params.chunk: duplicate value: "auto" is 8MiB for benchmark write under strategy single on host memory, which the list also gives: the points would be the same`},
		// On GPU memory "auto" is 64 MiB, and 8 MiB another chunk.
		{"chunk auto and its bytes on GPU memory", head + "[params]\nchunk = [\"auto\", \"64MiB\"]\nmemory = [\"host\", \"device\"]\n",
			`sweeps/x.toml:4: params.chunk: duplicate value: "auto" is 64MiB for benchmark write under strategy single on device memory, which the list also gives: the points would be the same`},
		{"chunk auto and its bytes, per-op", "name = \"x\"\nbenchmark = [\"write\", \"sendrecv\"]\n[params]\nchunk = [\"auto\", \"1MiB\"]\nstrategy = [\"split\", \"per-op\"]\n",
			"sweeps/x.toml:4: params.chunk: duplicate value: \"auto\" is 1MiB for benchmark write under strategy per-op on host memory, which the list also gives: the points would be the same\n" +
				"sweeps/x.toml:4: params.chunk: duplicate value: \"auto\" is 1MiB for benchmark sendrecv under strategy split on host memory, which the list also gives: the points would be the same"},

		// Positions.
		{"dotted key at top", head + "params.ranks = \"two\"\n",
			"sweeps/x.toml:3: params.ranks: want integer, got string"},
		{"dotted typo", head + "params.ranks = 2\nparams.sizez = 1\n",
			`sweeps/x.toml:4: params.sizez: unknown key (did you mean "sizes"?)`},
		{"dotted unknown table", head + "\n\nparam.ranks = 2\n",
			`sweeps/x.toml:5: param: unknown key (did you mean "params"?)`},
		{"dotted key in table", head + "[params]\nranks = 2\nsizes.min = 4\n",
			"sweeps/x.toml:5: params.sizes: want size (like \"4KiB\" or 4096), got table"},
		{"inline table", head + "params = { window = 0, ranks = 1 }\n",
			"sweeps/x.toml:3: params.window: 0 is out of range: want 1..4096\n" +
				"sweeps/x.toml:3: params.ranks: benchmark write runs on 2..65536 ranks, got 1"},
		{"multi-line list", head + "[params]\nranks = 2\nsizes = [\n  \"4KiB\",\n  \"4KB\",\n]\n",
			`sweeps/x.toml:7: params.sizes: item 2: size "4KB": unit "KB" is ambiguous (1000 or 1024?): write "4KiB", or a number of bytes`},
		{"after a multi-line string", "description = \"\"\"\none\ntwo\n\"\"\"\n" + head + "ranks = 1\n",
			"sweeps/x.toml:7: ranks: unknown key; known: benchmark, container, description, expect, external, max_points, name, params, slurm"},

		// Several errors at once, in line order.
		{"every error reported", `# line 1
name = "bad name"
benchmark = ["write", "wirte"]

[params]
provider = []
ranks = "two"
sizez = "4KiB"
sizes = "64MiB..4KiB"
timeout = 60
window = [1, 1]
`, `sweeps/x.toml:2: name: "bad name" is not a valid name: want letters, digits, '.', '_' and '-', starting with a letter or digit
sweeps/x.toml:3: benchmark: item 2: unknown benchmark "wirte" (did you mean "write"?); known: sendrecv, send, write, all2all, proxy, ipc, ipc-all2all, queue, external
sweeps/x.toml:6: params.provider: empty list: the sweep would expand to no points
sweeps/x.toml:7: params.ranks: want integer, got string
sweeps/x.toml:8: params.sizez: unknown key (did you mean "sizes"?)
sweeps/x.toml:9: params.sizes: range "64MiB..4KiB": minimum is larger than maximum
sweeps/x.toml:10: params.timeout: want duration (a string like "60s"), got integer
sweeps/x.toml:11: params.window: duplicate value 1 (items 1 and 2)`},
		{"every bad item reported", head + "[params]\nranks = [1, \"2\", 3, 3]\n",
			"sweeps/x.toml:4: params.ranks: item 2: want integer, got string\n" +
				"sweeps/x.toml:4: params.ranks: duplicate value 3 (items 3 and 4)"},
		{"range in a list", head + "[params]\nsizes = [\"4KiB..64KiB\", \"1MiB\"]\n",
			`sweeps/x.toml:4: params.sizes: item 1: range "4KiB..64KiB" inside a list: a range is the whole value (sizes = "4KiB..64KiB")`},
		// One argument of efaxx-runner carries every size of a point.
		{"too many sizes", head + "[params]\nsizes = [" + countList(4097) + "]\n",
			"sweeps/x.toml:4: params.sizes: 4097 sizes: want at most 4096 a point (they reach the program in one argument, and Linux takes at most 128 KiB in one)"},
		// A list over several lines: each item's error at the item's line.
		{"bad items at their lines", "name = \"x\"\nbenchmark = [\n  \"write\",\n  \"wrte\",\n]\n" +
			"[params]\nranks = [\n  2,\n  \"4\",\n  8,\n  8,\n]\n" +
			"[slurm]\nextra = [\n  \"--mem=0\",\n  \"-x\",\n]\n" +
			"[container]\nimage = \"/i\"\nmounts = [\"/a:/a\",\n  \"a:b\"]\n",
			"sweeps/x.toml:4: benchmark: item 2: unknown benchmark \"wrte\" (did you mean \"write\"?); known: sendrecv, send, write, all2all, proxy, ipc, ipc-all2all, queue, external\n" +
				"sweeps/x.toml:9: params.ranks: item 2: want integer, got string\n" +
				"sweeps/x.toml:11: params.ranks: duplicate value 8 (items 3 and 4)\n" +
				"sweeps/x.toml:16: slurm.extra: item 2: sbatch option \"-x\": want --name or --name=value\n" +
				"sweeps/x.toml:21: container.mounts: item 2: mount \"a:b\": SRC and DST must be absolute paths"},

		// A param the file got wrong takes its default, which no check of
		// params together may blame.
		{"bad item, ranks over nodes", head + "[params]\nranks = [8, \"16\"]\n[slurm]\nnodes = 4\n",
			"sweeps/x.toml:4: params.ranks: item 2: want integer, got string"},
		{"bad ntasks_per_node, ranks over nodes", head + "[slurm]\nnodes = 4\nntasks_per_node = \"8\"\n",
			"sweeps/x.toml:5: slurm.ntasks_per_node: want integer, got string"},
		{"bad producer, cells", "name = \"x\"\nbenchmark = \"queue\"\n[params]\nproducer = \"CPU\"\ncells = \"host\"\n",
			`sweeps/x.toml:4: params.producer: unknown producer "CPU"; known: gpu, cpu`},

		// A key some benchmarks of the sweep do not take: one error naming them all.
		{"key for some benchmarks", "name = \"x\"\nbenchmark = [\"sendrecv\", \"write\", \"ipc\"]\n[params]\nslots = 4\n",
			"sweeps/x.toml:4: params.slots: applies to benchmarks send, write, all2all and proxy only, and the sweep runs sendrecv and ipc"},

		// A misspelt benchmark hides nothing about the others.
		{"unknown benchmark and the others' errors", "name = \"x\"\nbenchmark = [\"write\", \"ipcc\"]\n[params]\nlaunch = \"1x1\"\nranks = 3\n[slurm]\nnodes = 2\n",
			`sweeps/x.toml:2: benchmark: item 2: unknown benchmark "ipcc" (did you mean "ipc"?); known: sendrecv, send, write, all2all, proxy, ipc, ipc-all2all, queue, external` + "\n" +
				"sweeps/x.toml:4: params.launch: applies to benchmarks ipc and ipc-all2all only, and the sweep runs write\n" +
				"sweeps/x.toml:7: slurm.nodes: ranks = 3 do not spread evenly over nodes = 2"},
		{"unknown benchmark and max_points", "max_points = 3\nname = \"x\"\nbenchmark = [\"write\", \"ipcc\"]\n[params]\nranks = [2, 4]\nwindow = [1, 2]\n",
			`sweeps/x.toml:3: benchmark: item 2: unknown benchmark "ipcc" (did you mean "ipc"?); known: sendrecv, send, write, all2all, proxy, ipc, ipc-all2all, queue, external` + "\n" +
				"sweeps/x.toml: sweep expands to 4 points (ranks 2 × window 2), more than max_points = 3: " +
				"a list where a range or one value was meant? A larger max_points at the top of the file allows it"},

		{"misspelt external, [external]", "name = \"x\"\nbenchmark = [\"write\", \"externl\"]\n[external]\nprogram = \"x\"\nparser = \"osu\"\n",
			`sweeps/x.toml:2: benchmark: item 2: unknown benchmark "externl" (did you mean "external"?); known: sendrecv, send, write, all2all, proxy, ipc, ipc-all2all, queue, external`},

		// Syntax errors stop the parse.
		{"syntax error", head + "[params]\nranks = = 2\nwindow = 0\n",
			"sweeps/x.toml:4: syntax error: expected value but found '=' instead"},
		{"duplicate key", head + "[params]\nranks = 2\nranks = 3\n",
			"sweeps/x.toml:5: syntax error: Key 'params.ranks' has already been defined."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := harness.Parse("sweeps/x.toml", []byte(tt.text))
			if got := errText(err); got != tt.want {
				t.Errorf("Parse(%q) error:\n%s\nwant:\n%s", tt.text, got, tt.want)
			}
			if s != nil {
				t.Errorf("Parse(%q) = %v, want nil with an error", tt.text, s)
			}
		})
	}
}

func TestParseErrorValues(t *testing.T) {
	_, err := harness.Parse("x.toml", []byte("name = \"x\"\nbenchmark = \"write\"\nparams.ranks = \"two\"\nparams.sizes = []\n"))
	var list lineerr.Errors
	if !errors.As(err, &list) {
		t.Fatalf("Parse() error = %#v, want a lineerr.Errors", err)
	}
	want := lineerr.Errors{
		{File: "x.toml", Line: 3, Key: "params.ranks", Err: list[0].Err},
		{File: "x.toml", Line: 4, Key: "params.sizes", Err: list[1].Err},
	}
	if !reflect.DeepEqual(list, want) {
		t.Errorf("Parse() error = %#v, want %#v", list, want)
	}
	tests := []struct {
		err  error
		want error
	}{
		{list[0], harness.ErrType},
		{list[1], harness.ErrEmptyList},
		{err, harness.ErrType},
		{err, harness.ErrEmptyList},
	}
	for _, tt := range tests {
		if !errors.Is(tt.err, tt.want) {
			t.Errorf("errors.Is(%v, %v) = false, want true", tt.err, tt.want)
		}
	}
	if errors.Is(err, harness.ErrSyntax) {
		t.Errorf("errors.Is(%v, ErrSyntax) = true, want false", err)
	}
	var first *lineerr.Error
	if !errors.As(err, &first) || first != list[0] {
		t.Errorf("errors.As(err, *SweepError) = %v, want the first error", first)
	}
}

func TestParseErrorKinds(t *testing.T) {
	tests := []struct {
		name, text string
		want       error
	}{
		{"syntax", "name = ", harness.ErrSyntax},
		{"unknown key", head + "x = 1\n", harness.ErrUnknownKey},
		{"missing key", "name = \"x\"\n", harness.ErrMissingKey},
		{"type", head + "params.ranks = 2.5\n", harness.ErrType},
		{"value", head + "params.window = 0\n", harness.ErrValue},
		{"range", head + "params.sizes = \"8..4\"\n", harness.ErrValue},
		{"size", head + "params.chunk = \"4KB\"\n", harness.ErrSize},
		{"size in range", head + "params.sizes = \"4KB..8KiB\"\n", harness.ErrSize},
		{"empty list", head + "params.ranks = []\n", harness.ErrEmptyList},
		{"duplicate", head + "params.ranks = [2, 2]\n", harness.ErrDuplicate},
		{"item", head + "params.ranks = [2, 1]\n", harness.ErrValue},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := harness.Parse("x.toml", []byte(tt.text))
			if !errors.Is(err, tt.want) {
				t.Errorf("Parse(%q) error = %v, want one that is %v", tt.text, err, tt.want)
			}
		})
	}
}

func TestSweepErrorWithoutFile(t *testing.T) {
	_, err := harness.Parse("", []byte(head+"params.ranks = 1\n"))
	if got, want := errText(err), "line 3: params.ranks: benchmark write runs on 2..65536 ranks, got 1"; got != want {
		t.Errorf("Parse(\"\", …) error = %q, want %q", got, want)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.toml")
	if err := os.WriteFile(path, []byte(head+"params.window = 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := harness.Load(path)
	if got, want := errText(err), path+":3: params.window: 0 is out of range: want 1..4096"; got != want {
		t.Errorf("Load() error = %q, want %q", got, want)
	}

	missing := filepath.Join(dir, "missing.toml")
	_, err = harness.Load(missing)
	if !errors.Is(err, os.ErrNotExist) || !strings.HasPrefix(errText(err), "read sweep ") {
		t.Errorf("Load(%q) error = %v, want a wrapped os.ErrNotExist", missing, err)
	}
}

func TestParseDefaults(t *testing.T) {
	s := mustParse(t, "name = \"d\"\nbenchmark = \"sendrecv\"\n")
	p := s.Points()
	if len(p) != 1 {
		t.Fatalf("len(Points()) = %d, want 1", len(p))
	}
	want := []string{"--benchmark", "sendrecv", "--provider", "auto",
		"--sizes", "4096,8192,16384,32768,65536,131072,262144,524288,1048576,2097152,4194304",
		"--iterations", "100", "--warmup", "10", "--timeout", "60s", "--chunk", "1048576", "--window", "16",
		"--rails", "1", "--strategy", "single", "--nic", "auto", "--pin", "numa", "--memory", "host", "--link-gbps", "0"}
	if got := p[0].RunnerArgs(); !reflect.DeepEqual(got, want) {
		t.Errorf("RunnerArgs() = %q, want %q", got, want)
	} else if got, want := p[0].Ranks, 2; got != want {
		t.Errorf("Ranks = %d, want %d", got, want)
	}
}

func TestParseRejectsCombinationsAndMemory(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"sendrecv adaptive", "name = \"x\"\nbenchmark = [\"sendrecv\", \"write\"]\n[params]\nstrategy = [\"split\", \"adaptive\"]\n",
			"params.strategy: sendrecv cannot use the adaptive strategy"},
		{"unknown memory", "name = \"x\"\nbenchmark = \"write\"\n[params]\nmemory = \"hbm\"\n",
			`params.memory: unknown memory "hbm"; known: host, pinned, device`},
		{"proxy round-robin", "name = \"x\"\nbenchmark = \"proxy\"\n[params]\nstrategy = \"round-robin\"\n",
			"params.strategy: proxy cannot use the round-robin strategy"},
		{"mode on write", "name = \"x\"\nbenchmark = \"write\"\n[params]\nmode = \"nbi\"\n",
			"params.mode: applies to benchmarks proxy and queue only, and the sweep runs write"},
		{"rails", "name = \"x\"\nbenchmark = \"write\"\n[params]\nrails = 17\n", "params.rails: 17 is out of range"},
		{"link", "name = \"x\"\nbenchmark = \"write\"\n[params]\nlink_gbps = -1\n", "params.link_gbps: -1 Gbps is out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := harness.Parse("x.toml", []byte(tt.text))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse = %v, want an error containing %q", err, tt.want)
			}
		})
	}
	s, err := harness.Parse("x.toml", []byte("name = \"x\"\nbenchmark = \"all2all\"\n[params]\nrails = 4\nstrategy = \"adaptive\"\nlink_gbps = 0.25\n"))
	if err != nil {
		t.Fatal(err)
	}
	args := strings.Join(s.Points()[0].RunnerArgs(), " ")
	if !strings.Contains(args, "--rails 4 --strategy adaptive") || !strings.Contains(args, "--link-gbps 0.25") {
		t.Errorf("RunnerArgs = %s", args)
	}
	// -0 is 0: the same point, and no "-0" for the runner.
	zero := mustParse(t, "name = \"x\"\nbenchmark = \"write\"\n[params]\nlink_gbps = 0\n").Points()[0]
	for _, v := range []string{"0.0", "-0.0", "-0"} {
		p := mustParse(t, "name = \"x\"\nbenchmark = \"write\"\n[params]\nlink_gbps = "+v+"\n").Points()[0]
		if args := strings.Join(p.RunnerArgs(), " ") + " "; p.Hash != zero.Hash || !strings.Contains(args, "--link-gbps 0 ") {
			t.Errorf("link_gbps = %s: hash %s (0's is %s), RunnerArgs %s", v, p.Hash, zero.Hash, args)
		}
	}
}

// countList writes the integers 1..n as the items of a TOML list.
func countList(n int) string {
	items := make([]string, n)
	for i := range items {
		items[i] = strconv.Itoa(i + 1)
	}
	return strings.Join(items, ", ")
}

// TestMostSizes: 4096 sizes, the most a point takes, go in one argument
// that Linux starts a program with (at most 128 KiB).
func TestMostSizes(t *testing.T) {
	s := mustParse(t, head+"[params]\nsizes = ["+countList(4096)+"]\n")
	for i, arg := range s.Points()[0].RunnerArgs() {
		if len(arg) > 128<<10 {
			t.Errorf("runner argument %d is %d bytes, more than Linux starts a program with", i, len(arg))
		}
	}
	if n := len(strings.Repeat("1099511627776,", 4096)); n > 128<<10 { // the longest: 4096 sizes of 1 TiB
		t.Errorf("4096 sizes of 1 TiB take %d bytes", n)
	}
}

// TestLongestArgument: a value that makes one argument of a program
// longer than Linux starts a program with (MAX_ARG_STRLEN: 128 KiB, its
// NUL included) is refused at its key's line, whichever program takes it:
// efaxx-runner's flags, srun's pyxis options, an external program's
// arguments and environment. One byte less is taken.
func TestLongestArgument(t *testing.T) {
	const most = 128<<10 - 1
	long := func(n int) string { return strings.Repeat("x", n) }
	ext := "name = \"x\"\nbenchmark = \"external\"\n[external]\nparser = \"osu\"\n"
	// Each text makes its longest argument most+over bytes long.
	tests := []struct {
		name string
		text func(over int) string
		want string
	}{
		{"nics", func(over int) string { return head + "[params]\nnics = \"" + long(most+over) + "\"\n" },
			"sweeps/x.toml:4: params.nics: value is 131072 bytes: want at most 131071 " +
				"(it reaches the program in one argument, and Linux takes at most 128 KiB in one)"},
		{"nics item", func(over int) string {
			return head + "[params]\nnics = [\n  \"lo\",\n  \"" + long(most+over) + "\",\n]\n"
		}, "sweeps/x.toml:6: params.nics: item 2: value is 131072 bytes"},
		{"image", func(over int) string {
			return head + "[container]\nimage = \"/" + long(most+over-len("--container-image=/")) + "\"\n"
		}, "sweeps/x.toml:4: container.image: --container-image=IMAGE is 131072 bytes"},
		{"workdir", func(over int) string {
			return head + "[container]\nimage = \"/i\"\nworkdir = \"/" + long(most+over-len("--container-workdir=/")) + "\"\n"
		}, "sweeps/x.toml:5: container.workdir: --container-workdir=DIR is 131072 bytes"},
		{"mounts", func(over int) string {
			return head + "[container]\nimage = \"/i\"\nmounts = [\"/a:/a\", \"/b:/" +
				long(most+over-len("--container-mounts=/a:/a,/b:/")) + "\"]\n"
		}, "sweeps/x.toml:5: container.mounts: --container-mounts=MOUNTS is 131072 bytes"},
		{"container env", func(over int) string {
			return head + "[container]\nimage = \"/i\"\nenv = { X = \"" + long(most+over-len("X=")) + "\" }\n"
		}, "sweeps/x.toml:5: container.env.X: NAME=VALUE is 131072 bytes"},
		{"program", func(over int) string { return ext + "program = \"" + long(most+over) + "\"\n" },
			"sweeps/x.toml:5: external.program: program is 131072 bytes"},
		{"args", func(over int) string { return ext + "program = \"p\"\nargs = [\"-x\", \"" + long(most+over) + "\"]\n" },
			"sweeps/x.toml:6: external.args: item 2: argument is 131072 bytes"},
		{"external env", func(over int) string {
			return ext + "program = \"p\"\nenv = { E = \"" + long(most+over-len("E=")) + "\" }\n"
		}, "sweeps/x.toml:6: external.env.E: NAME=VALUE is 131072 bytes"},
		{"var", func(over int) string {
			return ext + "program = \"p\"\nargs = [\"{v}\"]\n[external.vars]\nv = [\"a\", \"" + long(most+over) + "\"]\n"
		}, "sweeps/x.toml:8: external.vars.v: item 2: value is 131072 bytes"},
		{"placeholders", func(over int) string {
			return ext + "program = \"p\"\nargs = [\"{v}" + long(most+over-65536) + "\"]\n[external.vars]\nv = [\"a\", \"" + long(65536) + "\"]\n"
		}, "sweeps/x.toml:6: external.args: item 1: argument with its placeholders' longest values is 131072 bytes"},
		{"list var", func(over int) string {
			return ext + "program = \"p\"\nargs = [\"{v}\"]\n[external.vars]\nv = [[\"a\", \"" + long(most+over) + "\"]]\n"
		}, "sweeps/x.toml:8: external.vars.v: item 1: value is 131072 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := harness.Parse("sweeps/x.toml", []byte(tt.text(0))); err != nil {
				t.Errorf("Parse with an argument of %d bytes: %v", most, err)
			}
			_, err := harness.Parse("sweeps/x.toml", []byte(tt.text(1)))
			if !errors.Is(err, harness.ErrValue) || !strings.HasPrefix(errText(err), tt.want) {
				t.Errorf("Parse with an argument of %d bytes = %v, want %s...", most+1, err, tt.want)
			}
		})
	}
	// The bound is the kernel's: it starts a program with the longest
	// argument taken, and refuses one byte more.
	if err := exec.Command("true", long(most)).Run(); err != nil {
		t.Errorf("true with an argument of %d bytes: %v", most, err)
	}
	if err := exec.Command("true", long(most+1)).Run(); !errors.Is(err, syscall.E2BIG) {
		t.Errorf("true with an argument of %d bytes = %v, want %v", most+1, err, syscall.E2BIG)
	}
}
