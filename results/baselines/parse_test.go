package baselines_test

import (
	"os"
	"strings"
	"testing"

	"efaxx/results/baselines"
)

// TestParse_Shipped parses the baseline that ships with efaxx and
// checks numbers against the published tables they were copied from.
func TestParse_Shipped(t *testing.T) {
	data, err := os.ReadFile("libefaxx-p5.toml")
	if err != nil {
		t.Fatal(err)
	}
	b, err := baselines.Parse("libefaxx-p5.toml", data)
	if err != nil {
		t.Fatal(err)
	}
	if b.Name != "libefaxx-p5" || len(b.Series) != 31 {
		t.Fatalf("baseline %q with %d series, want libefaxx-p5 with 31", b.Name, len(b.Series))
	}
	want := map[string]map[uint64]float64{
		"sendrecv Device libefaxx_gbps":     {128 << 10: 9.75, 128 << 20: 48.28},
		"write SingleDMA libefaxx_gbps":     {1 << 30: 97.71},
		"write MultiDMA libefaxx_gbps":      {1 << 30: 380.00, 256 << 10: 32.76},
		"write MultiDMA iter_us":            {1 << 30: 22604.91},
		"all2all SingleDMA libefaxx_gbps":   {128 << 20: 12.73},
		"proxy ProxyMultiNBI libefaxx_gbps": {1 << 30: 379.08},
	}
	for _, s := range b.Series {
		for size, v := range want[s.Benchmark+" "+s.Variant+" "+s.Metric] {
			if s.Values[size] != v {
				t.Errorf("%s %s %s at %d = %v, want %v", s.Benchmark, s.Variant, s.Metric, size, s.Values[size], v)
			}
		}
		if s.File == "" || s.Commit == "" || s.Denominator == "" {
			t.Errorf("%s %s %s lacks its provenance or denominator", s.Benchmark, s.Variant, s.Metric)
		}
		// A series is compared only with runs of its setup: over EFA,
		// from the memory its variant names, on its rails.
		memory := map[bool]string{true: "device", false: "pinned"}[strings.HasSuffix(s.Variant, "DMA") || s.Variant == "Device"]
		if s.Benchmark != "queue" && (s.Params["provider"] != "efa" || s.Params["strategy"] == nil ||
			s.Benchmark != "proxy" && s.Params["memory"] != memory) {
			t.Errorf("%s %s %s params = %v, want provider efa, a strategy and memory %s", s.Benchmark, s.Variant, s.Metric,
				s.Params, memory)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"missing keys", "name = \"b\"\n",
			"b.toml: repository: missing required key\nb.toml: series: missing required key"},
		{"bad series", `name = "b"
repository = "r"
[[series]]
benchmark = "write"
variant = "v"
metric = "gbps"
file = "f"
commit = "c"
denominator = "d"
values = { "1MiB" = 1.5 }

[[series]]
benchmark = "write"
varient = "v"
metric = "gbps"
file = "f"
commit = ""
denominator = "d"
values = { "1MB" = 1, "2MiB" = "fast" }
`, "b.toml:12: series[2].variant: missing required key\n" +
			"b.toml:14: series[2].varient: unknown key (did you mean \"variant\"?)\n" +
			"b.toml:17: series[2].commit: empty: say what it is, or \"unknown\"\n" +
			"b.toml:19: series[2].values.1MB: size \"1MB\": unit \"MB\" is ambiguous (1000 or 1024?): write \"1MiB\", or a number of bytes\n" +
			"b.toml:19: series[2].values.2MiB: want number, got string"},
		// A table without keys is reported at its own [[series]] header,
		// not at another table's line.
		{"empty series", `name = "b"
repository = "r"
[[series]]
benchmark = "write"
variant = "v"
metric = "gbps"
file = "f"
commit = "c"
denominator = "d"
values = { "1MiB" = 1.5 }

[[series]]

[[series]]
benchmark = "write"
variant = "w"
metric = "gbps"
file = "f"
commit = "c"
denominator = "d"
values = { "1MiB" = 1.5 }
`, "b.toml:12: series[2].benchmark: missing required key\n" +
			"b.toml:12: series[2].variant: missing required key\n" +
			"b.toml:12: series[2].metric: missing required key\n" +
			"b.toml:12: series[2].file: missing required key\n" +
			"b.toml:12: series[2].commit: missing required key\n" +
			"b.toml:12: series[2].denominator: missing required key\n" +
			"b.toml:12: series[2].values: missing required key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := baselines.Parse("b.toml", []byte(tt.text))
			if err == nil || err.Error() != tt.want {
				t.Errorf("Parse error =\n%v\nwant\n%s", err, tt.want)
			}
		})
	}
}
