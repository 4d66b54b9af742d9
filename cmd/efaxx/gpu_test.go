package main

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"efaxx/results/record"
	"efaxx/results/synth"
)

// TestQueueHostBuild runs the command ring with CPU producers (its host
// build: the protocol of the GPU queue with no GPU) in both modes, and
// proves a damaged command fails the point.
func TestQueueHostBuild(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "q.db")
	sweep := writeFile(t, filepath.Join(dir, "q.toml"), `name = "q"
benchmark = "queue"
[params]
cells = "host"
producer = "cpu"
mode = ["blocking", "nbi"]
producers = [1, 3]
sizes = [8, 1024]
iterations = 3000
warmup = 100
timeout = "3s"
`)
	code, stdout, stderr := efaxx(t, "--db", db, "--workdir", filepath.Join(dir, "runs"), "run", "--runner", runner(t), sweep)
	if code != 0 {
		t.Fatalf("efaxx run = %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if n := count(t, db, `SELECT COUNT(*) FROM samples WHERE iterations = 3000`); n != 4*2 {
		t.Errorf("samples = %d, want 8 (4 points x 2 payloads)", n)
	}

	t.Setenv("EFAXX_TEST_CORRUPT_SIZE", "1024")
	code, _, stderr = efaxx(t, "--db", db, "--workdir", filepath.Join(dir, "runs"), "run", "--runner", runner(t), sweep)
	if code != 3 || !strings.Contains(stderr, "lost or corrupt") {
		t.Errorf("damaged command: exit %d, want 3 naming the lost or corrupt cell\n%s", code, stderr)
	}
}

// TestIPCWithoutPlugin: where the CUDA plugin is absent, a GPU benchmark
// fails with a message that says what is missing and how to get it, and CPU
// benchmarks are unaffected (the rest of the suite runs them).
func TestIPCWithoutPlugin(t *testing.T) {
	for _, bench := range []string{"ipc", "ipc-all2all"} {
		t.Run(bench, func(t *testing.T) {
			dir := t.TempDir()
			db := filepath.Join(dir, "ipc.db")
			sweep := writeFile(t, filepath.Join(dir, "ipc.toml"), `name = "ipc"
benchmark = "`+bench+`"
[params]
sizes = ["1MiB"]
iterations = 2
`)
			t.Setenv("EFAXX_CUDA_PLUGIN", filepath.Join(dir, "libefaxx_cuda.so"))
			code, _, stderr := efaxx(t, "--db", db, "--workdir", filepath.Join(dir, "runs"), "run", "--runner", runner(t), sweep)
			if code != 3 {
				t.Fatalf("efaxx run = %d, want 3\n%s", code, stderr)
			}
			var reason string
			sqlRow(t, db, `SELECT reason FROM runs`, &reason)
			for _, want := range []string{"needs the CUDA plugin", "libefaxx_cuda.so", "make kernels"} {
				if !strings.Contains(reason, want) {
					t.Errorf("reason %q lacks %q", reason, want)
				}
			}
		})
	}
}

// TestDeviceMemoryWithoutHMEM: network buffers in GPU memory need a
// provider that registers GPU memory; where it cannot, the point fails
// saying which provider and which libfabric lack it, before any GPU is
// touched. Debian's libfabric (this machine's) has FI_HMEM in shm's caps
// but was built without CUDA; tcp offers no FI_HMEM at all.
func TestDeviceMemoryWithoutHMEM(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "dev.db")
	sweep := writeFile(t, filepath.Join(dir, "dev.toml"), `name = "dev"
benchmark = "write"
[params]
provider = ["shm", "tcp"]
ranks = 2
memory = "device"
sizes = ["64KiB"]
iterations = 2
`)
	t.Setenv("EFAXX_CUDA_PLUGIN", filepath.Join(dir, "libefaxx_cuda.so")) // absent: the check must come first
	code, _, stderr := efaxx(t, "--db", db, "--workdir", filepath.Join(dir, "runs"), "run", "--runner", runner(t), sweep)
	if code != 3 {
		t.Fatalf("efaxx run = %d, want 3 (runs that did not end ok)\n%s", code, stderr)
	}
	want := map[string][]string{
		"shm": {"memory device: shm of libfabric", "cannot register GPU memory", "FI_HMEM_CUDA", "built without CUDA", "libfabric.so"},
		"tcp": {"memory device needs a provider that registers GPU memory (FI_HMEM); tcp", "does not here"},
	}
	var reasons []string
	for id := 1; id <= 2; id++ {
		var r string
		sqlRow(t, db, `SELECT reason FROM runs WHERE id = `+strconv.Itoa(id), &r)
		reasons = append(reasons, r)
	}
	for prov, parts := range want {
		found := false
		for _, r := range reasons {
			if strings.Contains(r, parts[0]) {
				found = true
				for _, p := range parts[1:] {
					if !strings.Contains(r, p) {
						t.Errorf("%s: reason %q lacks %q", prov, r, p)
					}
				}
			}
		}
		if !found {
			t.Errorf("%s: no run failed with %q: %q", prov, parts[0], reasons)
		}
	}
}

// TestShowPairs: show of a run whose ranks each moved data to another
// (ipc over every pair) prints the matrix in GB/s and names the weakest
// pair; rank 2 is slowed to half its speed.
func TestShowPairs(t *testing.T) {
	db := writeSynth(t, &synth.Run{UID: "p", Benchmark: "ipc", Ranks: 4, Sizes: []uint64{1 << 20},
		Params: map[string]any{"launch": "auto"}, Slow: map[int]float64{2: 2}})
	code, stdout, stderr := efaxx(t, "--db", db, "show", "1")
	if code != 0 {
		t.Fatalf("show = %d\n%s", code, stderr)
	}
	for _, want := range []string{"pairs at 1MiB", "GB/s: row moved the data", "weakest pair: 2 -> 3 at", "0.50 of the median pair"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("show lacks %q:\n%s", want, stdout)
		}
	}
}

// TestShowAllToAll: show of an ipc-all2all run of three ranks prints, per
// method, the node's aggregate against the sum of its pairs alone, under a
// header that names the run's schedule, and the matrices of the pairs
// alone and during the all-to-all; --format json carries the ratio.
func TestShowAllToAll(t *testing.T) {
	for _, tt := range []struct {
		params map[string]any
		how    string
	}{
		{map[string]any{"launch": "auto"}, "at once"}, // a run from before schedule
		{map[string]any{"launch": "auto", "schedule": "at-once"}, "at once"},
		{map[string]any{"launch": "auto", "schedule": "shifted"}, "one peer at a time (shifted: rank+1 first)"},
	} {
		showAllToAll(t, tt.params, "all-to-all: every GPU writing into every other "+tt.how+", against")
	}
}

func showAllToAll(t *testing.T, params map[string]any, header string) {
	t.Helper()
	const iters = 10
	db := writeSynth(t, &synth.Run{UID: "a2a", Benchmark: "ipc-all2all", Ranks: 3, Sizes: []uint64{1 << 20},
		Params: params,
		Samples: func(rank int, size uint64) []record.Sample {
			at := func(peer int, variant string, bytes uint64, gbs float64) record.Sample {
				return record.Sample{Peer: peer, Role: "initiator", Variant: variant, BytesSent: bytes, Iterations: iters,
					ElapsedNs: uint64(float64(bytes*iters) / gbs), Lat: record.Lat{Min: 1, P50: 1, P99: 1, Max: 1}}
			}
			var out []record.Sample
			for _, m := range []string{"528x512", "memcpy"} {
				for p := range 3 {
					if p != rank {
						out = append(out, at(p, m, size, 100), at(p, m+" all2all", size, 40))
					}
				}
				out = append(out, at(-1, m+" all2all total", 2*size, 80))
			}
			return out
		}})
	code, stdout, stderr := efaxx(t, "--db", db, "show", "1")
	if code != 0 {
		t.Fatalf("show = %d\n%s", code, stderr)
	}
	for _, want := range []string{"pairs at 1MiB, 528x512 all2all, GB/s", "pairs at 1MiB, memcpy, GB/s",
		header,
		"    1MiB  528x512        3     6      240.00        600.00  0.400",
		"    1MiB  memcpy         3     6      240.00        600.00  0.400"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("show lacks %q:\n%s", want, stdout)
		}
	}
	_, stdout, _ = efaxx(t, "--db", db, "show", "--format", "json", "1")
	if !strings.Contains(stdout, `"ratio": 0.399997`) {
		t.Errorf("show --format json lacks the ratio:\n%s", stdout)
	}
}
