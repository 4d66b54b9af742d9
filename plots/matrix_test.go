package plots_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"efaxx/plots"
	"efaxx/results"
	"efaxx/results/record"
	"efaxx/results/synth"
)

// nodeRate is the made-up rate of the synthetic node of matrixStore, in
// GB/s: a base per method, a little per GPU, and the pair from GPU 2 to
// GPU 1 at 0.8 of it. Not a measurement.
func nodeRate(base float64, src, dst int) float64 {
	r := base + 0.5*float64(src) + 0.25*float64(dst)
	if src == 2 && dst == 1 {
		r *= 0.8
	}
	return r
}

// matrixStore stores synthetic runs of a node of 4 GPUs as
// kernels/run-node.sh leaves them: ipc over every pair (push, pull, bidir;
// the kernel 528x512 and the engines memcpy) tagged copies=peer, the same
// push from ranks sharing one GPU tagged copies=in-gpu (which the figure
// must leave out), and nvbandwidth's matching matrices, each row a rank.
func matrixStore(t *testing.T) *results.DB {
	t.Helper()
	dir := t.TempDir()
	sizes := []uint64{1 << 20, 512 << 20}
	const gpus, iters = 4, 20
	sample := func(peer int, variant string, size uint64, gbs float64, recv bool) record.Sample {
		s := record.Sample{Peer: peer, Role: "initiator", Variant: variant, Iterations: iters,
			ElapsedNs: uint64(float64(size*iters) / gbs), Lat: record.Lat{Min: 1, P50: 1, P99: 1, Max: 1}}
		if recv {
			s.BytesRecv = size
		} else {
			s.BytesSent = size
		}
		return s
	}
	var runs []*synth.Run
	for i, dir := range []string{"push", "pull", "bidir"} {
		for _, copies := range []string{"peer", "in-gpu"} {
			if copies == "in-gpu" && dir != "push" {
				continue
			}
			runs = append(runs, &synth.Run{UID: "ipc-" + dir + "-" + copies, Sweep: "gpu-node-ipc", Benchmark: "ipc",
				Ranks: gpus, Sizes: sizes, Seed: uint64(i + 1), Tags: map[string]string{"copies": copies},
				Params: map[string]any{"direction": dir, "launch": "auto", "ranks": gpus},
				Samples: func(rank int, size uint64) []record.Sample {
					var out []record.Sample
					for peer := range gpus {
						if peer == rank {
							continue
						}
						src, dst := rank, peer
						if dir == "pull" { // the target's GPU moved the data
							src, dst = peer, rank
						}
						k, e := nodeRate(370, src, dst), nodeRate(394, src, dst)
						if copies == "in-gpu" {
							k, e = 1900, 2080
						}
						out = append(out, sample(peer, "528x512", size, k, dir == "pull"),
							sample(peer, "memcpy", size, e, dir == "pull"))
					}
					return out
				}})
		}
	}
	testcases := map[string]float64{"device_to_device_memcpy_write_sm": 368, "device_to_device_memcpy_write_ce": 392,
		"device_to_device_memcpy_read_sm": 367, "device_to_device_memcpy_read_ce": 391,
		"device_to_device_bidirectional_memcpy_write_sm_write2": 360,
		"device_to_device_bidirectional_memcpy_write_ce_write2": 385}
	runs = append(runs, &synth.Run{UID: "nvb", Sweep: "gpu-node-nvbandwidth", Benchmark: "nvbandwidth:nvbandwidth",
		Ranks: gpus, Sizes: []uint64{512 << 20}, Params: map[string]any{"ranks": 1},
		Samples: func(row int, size uint64) []record.Sample {
			var out []record.Sample
			for _, tc := range []string{"device_to_device_memcpy_write_sm", "device_to_device_memcpy_write_ce",
				"device_to_device_memcpy_read_sm", "device_to_device_memcpy_read_ce",
				"device_to_device_bidirectional_memcpy_write_sm_write2", "device_to_device_bidirectional_memcpy_write_ce_write2"} {
				for col := range gpus {
					if col == row {
						continue
					}
					src, dst := row, col
					if strings.Contains(tc, "_read_") { // the row reads: data from the column
						src, dst = col, row
					}
					out = append(out, sample(col, tc, size, nodeRate(testcases[tc], src, dst), false))
				}
			}
			return out
		}})
	for i, r := range runs {
		if err := r.Write(filepath.Join(dir, "data", r.Sweep, "session", fmt.Sprintf("%03d", i))); err != nil {
			t.Fatal(err)
		}
	}
	db, err := plots.OpenData(t.Context(), filepath.Join(dir, "data"), filepath.Join(dir, "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestMatrixFigure builds the shipped nvlink_pairs spec from matrixStore:
// every panel a 4x4 heat map of source by destination, the pair from GPU 2
// to GPU 1 boxed as the weakest in each (pull and read transposed), the
// in-GPU runs left out, one colour scale. What it draws is golden
// (testdata/matrix.golden.json and .svg), and a second draw writes the
// same bytes.
func TestMatrixFigure(t *testing.T) {
	db := matrixStore(t)
	spec, err := plots.LoadSpec("figures/nvlink_pairs.toml")
	if err != nil {
		t.Fatal(err)
	}
	fig, err := plots.Build(t.Context(), db, spec)
	if err != nil {
		t.Fatal(err)
	}
	if len(fig.Panels) != 12 {
		t.Fatalf("%d panels, want 12", len(fig.Panels))
	}
	for _, p := range fig.Panels {
		h := p.Heat
		if h == nil || len(h.Values) != 4 || h.Weakest != [2]int{2, 1} || h.Size != 512<<20 {
			t.Fatalf("panel %q: heat %+v, want 4x4 at 512 MiB, weakest 2 -> 1", p.Title, h)
		}
		if h.Values[0][0] != nil || h.Max > 400 || h.Min < 280 {
			t.Errorf("panel %q: diagonal %v, scale %.1f..%.1f: want no diagonal, the in-GPU runs left out, one scale",
				p.Title, h.Values[0][0], h.Min, h.Max)
		}
		if !strings.HasPrefix(p.Footnote, "weakest (boxed) 2 -> 1: ") || !strings.Contains(p.Footnote, "0.80 of the median") {
			t.Errorf("panel %q: footnote %q", p.Title, p.Footnote)
		}
	}
	got, err := json.MarshalIndent(fig, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	compareGolden(t, filepath.Join("testdata", "matrix.golden.json"), append(got, '\n'))
	var svgs [2][]byte
	for i := range svgs {
		w, h := fig.Size()
		c := vgsvg.New(w, h)
		if err := fig.Draw(draw.New(c)); err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if _, err := c.WriteTo(&b); err != nil {
			t.Fatal(err)
		}
		svgs[i] = b.Bytes()
	}
	if !bytes.Equal(svgs[0], svgs[1]) {
		t.Error("two draws of the same figure differ")
	}
	compareGolden(t, filepath.Join("testdata", "matrix.golden.svg"), svgs[0])
	png := filepath.Join(t.TempDir(), "m.png")
	for range 2 {
		if err := fig.Save(png); err != nil {
			t.Fatal(err)
		}
	}
	if b, err := os.ReadFile(png); err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Errorf("Save wrote no PNG: %v", err)
	}
}

// TestMatrixMissing: a matrix of a variant the runs lack names the
// variants they have.
func TestMatrixMissing(t *testing.T) {
	db := matrixStore(t)
	_, err := build(t, db, "kind = \"matrix\"\ny = \"dir_gbs\"\nruns.sweep = \"gpu-node-ipc\"\nruns.tags.copies = \"peer\"\nvariant = \"1x256\"\n")
	want := `figure t (t.toml): missing data: runs 1,3-4 (sweep gpu-node-ipc (latest session), tag copies=peer, status ok) have no samples of variant "1x256" between two ranks; their variants: "528x512", "memcpy"`
	if err == nil || err.Error() != want {
		t.Errorf("Build error =\n%v\nwant\n%s", err, want)
	}
}
