package plots_test

import (
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"efaxx/lineerr"
	"efaxx/plots"
)

const queueSpec = `name = "queue"
title = "GPU to CPU command queue"
out = "docs/img/queue.png"
y = "lat_us"
y_scale = "log10"
series = "cells"
series_values = ["pinned", "managed"]
roles = "initiator"
labels = { pinned = "pinned host cells" }

[runs]
sweep = ["gpu-queue", "gpu-queue-managed"]
params.producers = 1

[panel.blocking]
title = "blocking"
runs.params.mode = "blocking"

[panel.rate]
title = "NBI rate"
y = "mops"
sizes = ["8", "1KiB", 64, "2 m"]
series = ["cells", "producers"]
labels.managed = "managed cells"
runs = { params = { mode = "nbi" }, session = "all" }
`

func TestParseSpec(t *testing.T) {
	s, err := plots.ParseSpec("queue.toml", []byte(queueSpec))
	if err != nil {
		t.Fatal(err)
	}
	base := plots.Panel{X: "size", Y: "lat_us", YScale: "log10", Series: []string{"cells"},
		SeriesValues: []string{"pinned", "managed"}, Roles: []string{"initiator"},
		Labels: map[string]string{"pinned": "pinned host cells"},
		Runs:   plots.Selector{Sweeps: []string{"gpu-queue", "gpu-queue-managed"}, Params: map[string]any{"producers": int64(1)}}}
	blocking := base
	blocking.ID, blocking.Title = "blocking", "blocking"
	blocking.Runs.Params = map[string]any{"producers": int64(1), "mode": "blocking"}
	rate := base
	rate.ID, rate.Title, rate.Y, rate.Sizes = "rate", "NBI rate", "mops", []uint64{8, 1024, 64, 2 << 20}
	rate.Series = []string{"cells", "producers"}
	rate.Labels = map[string]string{"pinned": "pinned host cells", "managed": "managed cells"}
	rate.Runs.Params = map[string]any{"producers": int64(1), "mode": "nbi"}
	rate.Runs.Session = "all"
	want := &plots.Spec{File: "queue.toml", Name: "queue", Title: "GPU to CPU command queue", Kind: plots.KindLines,
		Out: "docs/img/queue.png", Legend: plots.LegendBelow, Panels: []plots.Panel{blocking, rate}}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("ParseSpec =\n%+v\nwant\n%+v", s, want)
	}
	if got := s.SVG(); got != "docs/img/queue.svg" {
		t.Errorf("SVG() = %q, want docs/img/queue.svg", got)
	}
}

func TestParseSpecOnePanel(t *testing.T) {
	s, err := plots.ParseSpec("one.toml", []byte("name = \"one\"\ntitle = \"t\"\nout = \"one.png\"\ny = \"gbps\"\nruns.ids = [3, 4]\nx = \"ranks\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []plots.Panel{{X: "ranks", Y: "gbps", Runs: plots.Selector{IDs: []int64{3, 4}}}}
	if !reflect.DeepEqual(s.Panels, want) {
		t.Errorf("Panels = %+v, want %+v", s.Panels, want)
	}
}

func TestParseSpecErrors(t *testing.T) {
	const head = "name = \"f\"\ntitle = \"t\"\nout = \"f.png\"\n"
	tests := []struct {
		name, text string
		want       string // the error's text, up to its end or to "; known:"
		is         error
	}{
		{"syntax", head + "y = \n", "f.toml:4: syntax error: expected value but found '\\n' instead", plots.ErrSpecSyntax},
		{"unknown top key", head + "colour = 1\n", `f.toml:4: colour: unknown key; known: baseline, columns,`, plots.ErrUnknownKey},
		{"unknown metric", head + "y = \"gbpz\"\nruns.ids = [1]\n", `f.toml:4: y: invalid value: metric "gbpz": unknown metric`, plots.ErrBadValue},
		{"missing keys", "y = \"gbps\"\nruns.ids = [1]\n", "f.toml: name: missing required key\nf.toml: title: missing required key\nf.toml: out: missing required key", plots.ErrMissingKey},
		{"not a png", "name = \"f\"\ntitle = \"t\"\nout = \"f.jpg\"\ny = \"gbps\"\nruns.ids = [1]\n", `f.toml:3: out: invalid value: "f.jpg": want a .png path (the .svg is written beside it)`, plots.ErrBadValue},
		{"bad name", "name = \"F g\"\ntitle = \"t\"\nout = \"f.png\"\ny = \"gbps\"\nruns.ids = [1]\n", `f.toml:1: name: invalid value: "F g": use lower-case letters, digits, '_' and '-'`, plots.ErrBadValue},
		{"panel key type", head + "y = \"gbps\"\nruns.ids = [1]\n\n[panel.a]\nsizes = true\n", "f.toml:8: panel.a.sizes: want size (like \"4KiB\" or 4096) or list of sizes, got boolean", plots.ErrType},
		{"unknown panel key", head + "y = \"gbps\"\nruns.ids = [1]\n\n[panel.a]\nstats = \"max\"\n", `f.toml:8: panel.a.stats: unknown key (did you mean "stat"?)`, plots.ErrUnknownKey},
		{"ambiguous chunk", head + "y = \"gbps\"\nruns = { sweep = \"x\", params = { chunk = \"1MB\" } }\n",
			`f.toml:5: runs.params.chunk: invalid value: param chunk=1MB: size "1MB": unit "MB" is ambiguous`, plots.ErrBadValue},
		{"unknown selector key", head + "y = \"gbps\"\nruns = { sweeep = \"x\" }\n", `f.toml:5: runs.sweeep: unknown key (did you mean "sweep"?)`, plots.ErrUnknownKey},
		{"no runs", head + "y = \"gbps\"\n", "f.toml: runs: missing required key: say which runs: sweep, ids or benchmark", plots.ErrMissingKey},
		{"no y in a panel", head + "runs.ids = [1]\n[panel.a]\ntitle = \"a\"\n", "f.toml:5: panel.a.y: missing required key", plots.ErrMissingKey},
		{"compare without reference", head + "kind = \"compare\"\ny = \"gbps\"\nruns.ids = [1]\n", "f.toml: reference: missing required key: a compare figure takes a reference table or a baseline (one of them)", plots.ErrMissingKey},
		{"reference outside compare", head + "y = \"gbps\"\nruns.ids = [1]\nreference.ids = [2]\n", `f.toml: reference: invalid value: reference, baseline and threshold belong to kind = "compare"`, plots.ErrBadValue},
		{"published without baseline", head + "kind = \"published\"\ny = \"algbw\"\nruns.benchmark = \"nccl:alltoall\"\n",
			"f.toml: baseline: missing required key: a published figure draws an imported baseline: name it", plots.ErrMissingKey},
		{"published by sweep", head + "kind = \"published\"\ny = \"algbw\"\nbaseline = \"b\"\nruns.sweep = \"s\"\n",
			"f.toml: runs: invalid value: a published figure picks a baseline's series by benchmark and params only", plots.ErrBadValue},
		{"series values alone", head + "y = \"gbps\"\nruns.ids = [1]\nseries_values = [\"a\"]\n", "f.toml: series_values: invalid value: series_values without series: name the dimensions first", plots.ErrBadValue},
		{"bad stat and threshold", head + "kind = \"compare\"\ny = \"gbps\"\nstat = \"avg\"\nthreshold = 2\nruns.ids = [1]\nbaseline = \"b\"\n",
			"f.toml:6: stat: invalid value: \"avg\": want one of [median mean min max p99]\nf.toml:7: threshold: invalid value: want a number between 0 and 1 (0.05 is 5%), got 2", plots.ErrBadValue},
		{"bad role and size", head + "y = \"gbps\"\nruns.ids = [1]\nroles = \"writer\"\nsizes = \"4KB\"\n", "f.toml:6: roles: invalid value: role \"writer\": want initiator, target or both\nf.toml:7: sizes: invalid value: size \"4KB\": unit \"KB\" is ambiguous (1000 or 1024?): write \"4KiB\", or a number of bytes", plots.ErrBadValue},
		{"zero size", head + "y = \"gbps\"\nruns.ids = [1]\nsizes = [\"1MiB\", \"0 k\"]\n", `f.toml:6: sizes: invalid value: size "0 k": zero bytes`, plots.ErrBadValue},
		{"compare by sweep", head + "kind = \"compare\"\ny = \"gbps\"\nruns.ids = [1]\nreference.ids = [2]\nseries = \"sweep\"\n", `f.toml: series: invalid value: "sweep": a compare figure's series are parameters, benchmark or variant`, plots.ErrBadValue},
		{"log2 y", head + "y = \"gbps\"\nruns.ids = [1]\ny_scale = \"log2\"\n", `f.toml:6: y_scale: invalid value: "log2": want one of [log10 linear]`, plots.ErrBadValue},
		{"spread with series", head + "kind = \"spread\"\ny = \"gbps\"\nruns.ids = [1]\nseries = \"strategy\"\n", "f.toml: series: invalid value: a spread figure draws every sample of one run per size: no x, series or roles keys", plots.ErrBadValue},
		{"matrix without variant", head + "kind = \"matrix\"\ny = \"dir_gbs\"\nruns.ids = [1]\n", "f.toml: variant: missing required key: a matrix figure draws the pairs of one variant: name it", plots.ErrMissingKey},
		{"matrix of two sizes", head + "kind = \"matrix\"\ny = \"dir_gbs\"\nruns.ids = [1]\nvariant = \"memcpy\"\nsizes = [\"1MiB\", \"2MiB\"]\n", "f.toml: sizes: invalid value: a matrix figure draws one size (default: the largest measured)", plots.ErrBadValue},
		{"matrix by series", head + "kind = \"matrix\"\ny = \"dir_gbs\"\nruns.ids = [1]\nvariant = \"memcpy\"\nseries = \"direction\"\n", "f.toml: series: invalid value: a matrix figure takes runs, y, stat, sizes, variant, transpose and labels of its axes only", plots.ErrBadValue},
		{"shared y over two scales", head + "share_y = true\ny = \"lat_us\"\nruns.ids = [1]\n[panel.a]\ny_scale = \"log10\"\n[panel.b]\ntitle = \"b\"\n",
			`f.toml:4: share_y: invalid value: panels "a" and "b" have y scales log10 and linear: a shared y range needs one`, plots.ErrBadValue},
		{"shared y over two metrics", head + "share_y = true\ny = \"gbps\"\nruns.ids = [1]\n[panel.a]\ntitle = \"a\"\n[panel.b]\ny = \"lat_us\"\n",
			`f.toml:4: share_y: invalid value: panels "a" and "b" draw y = "gbps" and "lat_us": a shared y range needs one metric`, plots.ErrBadValue},
		{"variant outside matrix", head + "y = \"gbps\"\nruns.ids = [1]\ntranspose = true\n", `f.toml: variant: invalid value: variant and transpose belong to kind = "matrix"`, plots.ErrBadValue},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := plots.ParseSpec("f.toml", []byte(tt.text))
			if err == nil {
				t.Fatalf("ParseSpec succeeded, want %q", tt.want)
			}
			got := err.Error()
			if i := strings.Index(got, "; known:"); i >= 0 && !strings.Contains(tt.want, "; known:") {
				got = got[:i]
			}
			if !strings.HasPrefix(got, tt.want) || !errors.Is(err, tt.is) {
				t.Errorf("ParseSpec error =\n%s\nwant\n%s\n(matching %v)", got, tt.want, tt.is)
			}
			var list lineerr.Errors
			if !errors.As(err, &list) {
				t.Errorf("error is %T, want lineerr.Errors", err)
			}
		})
	}
}

// TestShippedSpecs parses every spec in plots/figures.
func TestShippedSpecs(t *testing.T) {
	specs, err := plots.LoadSpecs("figures")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range specs {
		if got, want := filepath.Base(s.Out), s.Name+".png"; got != want {
			t.Errorf("%s: out %q, want it named %s", s.File, s.Out, want)
		}
	}
}

func FuzzParseSpec(f *testing.F) {
	f.Add([]byte(queueSpec))
	f.Add([]byte("name = \"x\"\ntitle = \"t\"\nout = \"x.png\"\nkind = \"compare\"\ny = \"gbps\"\nruns.sweep = \"a\"\nreference.sweep = \"b\"\n"))
	f.Add([]byte("[panel.a]\nruns = 1\n[panel.b.runs]\nparams = []\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := plots.ParseSpec("fuzz.toml", data)
		if err != nil {
			var list lineerr.Errors
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("error %v is not a non-empty lineerr.Errors", err)
			}
			return
		}
		if len(s.Panels) == 0 || s.Name == "" || s.Out == "" {
			t.Fatalf("spec without panels, name or out: %+v", s)
		}
		for _, p := range s.Panels {
			if p.Y == "" || p.X == "" {
				t.Fatalf("panel without x or y: %+v", p)
			}
		}
	})
}
