package plots_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"efaxx/plots"
	"efaxx/results"
)

func TestSizeLabel(t *testing.T) {
	tests := []struct {
		in   uint64
		want string
	}{{1, "1"}, {512, "512"}, {4096, "4K"}, {1 << 20, "1M"}, {3 << 30, "3G"}, {1000, "1000"}, {1536, "1536"}}
	for _, tt := range tests {
		if got := plots.SizeLabel(tt.in); got != tt.want {
			t.Errorf("SizeLabel(%d) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSizeTicks(t *testing.T) {
	ticks := plots.SizeTicks{}.Ticks(4096, 16<<20)
	var labels []string
	for _, tk := range ticks {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if got, want := len(ticks), 13; got != want {
		t.Errorf("ticks = %d, want %d (every power of two from 4K to 16M)", got, want)
	}
	want := []string{"4K", "16K", "64K", "256K", "1M", "4M", "16M"}
	if len(labels) != len(want) {
		t.Fatalf("labels = %v, want %v", labels, want)
	}
	for i := range want {
		if labels[i] != want[i] {
			t.Errorf("labels = %v, want %v", labels, want)
			break
		}
	}
}

func TestBandwidthRefusesEmpty(t *testing.T) {
	_, err := plots.Bandwidth([]results.Curve{{RunID: 1, Label: "write"}}, "t", "")
	if !errors.Is(err, plots.ErrNoData) {
		t.Errorf("Bandwidth(no points) = %v, want ErrNoData", err)
	}
}

// TestBandwidthSizeZero: a run that measured 0 bytes (OSU's latency, a
// small all_gather of nccl-tests) is drawn without that point, which a
// log axis cannot place, and the figure says so, rather than panicking.
func TestBandwidthSizeZero(t *testing.T) {
	curves := []results.Curve{{RunID: 1, Label: "nccl:all_gather", Metric: "busbw",
		Points: []results.CurvePoint{{Size: 0, Value: 0}, {Size: 4096, Value: 1.5}, {Size: 1 << 20, Value: 90}}}}
	p, err := plots.Bandwidth(curves, "t", "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.X.Label.Text, "not drawn: 1 point at size 0") {
		t.Errorf("x label %q does not say the size-0 point is not drawn", p.X.Label.Text)
	}
	path := filepath.Join(t.TempDir(), "z.svg")
	if err := plots.Save(p, path); err != nil {
		t.Fatal(err)
	}
	only0 := []results.Curve{{RunID: 1, Label: "osu", Points: []results.CurvePoint{{Size: 0, Value: 1}}}}
	if _, err := plots.Bandwidth(only0, "t", ""); !errors.Is(err, plots.ErrNoData) {
		t.Errorf("Bandwidth(size 0 only) = %v, want ErrNoData", err)
	}
}

// TestBandwidthDeterministic draws the same data twice: same bytes.
func TestBandwidthDeterministic(t *testing.T) {
	curves := []results.Curve{
		{RunID: 1, Label: "write provider=shm", Points: []results.CurvePoint{{Size: 4096, Value: 5}, {Size: 1 << 20, Value: 80}}},
		{RunID: 2, Label: "write provider=tcp", Points: []results.CurvePoint{{Size: 4096, Value: 2}, {Size: 1 << 20, Value: 9}}},
	}
	dir := t.TempDir()
	var files [2][]byte
	for i := range files {
		p, err := plots.Bandwidth(curves, "demo", "host vm, 2026-11-22, runs 1,2")
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "out", "f.svg")
		if err := plots.Save(p, path); err != nil {
			t.Fatal(err)
		}
		if files[i], err = os.ReadFile(path); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(files[0], files[1]) || !bytes.Contains(files[0], []byte("write provider=tcp")) {
		t.Error("two renderings of the same data differ, or the legend is missing")
	}
	if err := plots.Save(nil, filepath.Join(dir, "f.jpg")); err == nil {
		t.Error("Save(.jpg) succeeded, want an error naming the extension")
	}
}

// TestBandwidthUnits labels the y axis in the curves' own metric, never
// Gbps for a queue's Mops or an NVLink copy's GB/s, and refuses curves of
// different metrics on one axis.
func TestBandwidthUnits(t *testing.T) {
	pts := []results.CurvePoint{{Size: 8, Value: 2}, {Size: 16, Value: 3}}
	for metric, want := range map[string]string{"gbps": "Gbps", "busbw": "busbw, GB/s", "dir_gbs": "GB/s", "mops": "Mops"} {
		p, err := plots.Bandwidth([]results.Curve{{RunID: 1, Label: "a", Metric: metric, Points: pts}}, "t", "")
		if err != nil {
			t.Errorf("Bandwidth(%s) = %v", metric, err)
			continue
		}
		if l := p.Y.Label.Text; !strings.Contains(l, want) || (metric != "gbps" && strings.Contains(l, "Gbps")) {
			t.Errorf("Bandwidth(%s): y label %q, want it in %s", metric, l, want)
		}
	}
	mixed := []results.Curve{{RunID: 1, Label: "queue", Metric: "mops", Points: pts}, {RunID: 2, Label: "ipc", Metric: "dir_gbs", Points: pts}}
	if _, err := plots.Bandwidth(mixed, "t", ""); err == nil {
		t.Error("Bandwidth(mops with dir_gbs) succeeded, want an error: one axis has one unit")
	}
}
