package baselines_test

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"efaxx/results"
	"efaxx/results/baselines"
)

// study parses the shipped aws-gpu-comm-p5 baseline.
func study(t *testing.T) *results.Baseline {
	t.Helper()
	text, ok := baselines.Lookup("aws-gpu-comm-p5")
	if !ok {
		t.Fatal("no shipped baseline aws-gpu-comm-p5")
	}
	b, err := baselines.Parse("aws-gpu-comm-p5.toml", text)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// table reads a published CSV as read, its cells trimmed of the stray
// spaces a few carry.
func table(t *testing.T, name string) [][]string {
	t.Helper()
	f, err := os.Open("testdata/aws-gpu-communication-benchmark/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		for i := range r {
			r[i] = strings.TrimSpace(r[i])
		}
	}
	return rows[1:]
}

// value returns the value of the series at size, or fails.
func value(t *testing.T, b *results.Baseline, benchmark, variant, metric string, size uint64) float64 {
	t.Helper()
	for _, s := range b.Series {
		if s.Benchmark == benchmark && s.Variant == variant && s.Metric == metric {
			if v, ok := s.Values[size]; ok {
				return v
			}
			t.Fatalf("%s %s %s has no value at %d", benchmark, variant, metric, size)
		}
	}
	t.Fatalf("no series %s %s %s", benchmark, variant, metric)
	return 0
}

// cell reads a number of a published table.
func cell(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("cell %q: %v", s, err)
	}
	return v
}

// TestStudyTranscription checks every cell of the published tables
// against the baseline, and that the baseline holds nothing else.
func TestStudyTranscription(t *testing.T) {
	b := study(t)
	cells := 0
	for _, coll := range []string{"alltoall", "all_gather", "all_reduce"} {
		for _, r := range table(t, "nccl_"+coll+".csv") {
			mb, _ := strconv.ParseUint(r[2], 10, 64)
			for i, col := range []struct{ placement, metric string }{
				{"out-of-place", "algbw"}, {"out-of-place", "busbw"}, {"in-place", "algbw"}, {"in-place", "busbw"}} {
				variant := fmt.Sprintf("%s, %s GPUs", col.placement, r[1])
				if got := value(t, b, "nccl:"+coll, variant, col.metric, mb<<20); got != cell(t, r[5+i]) {
					t.Errorf("nccl %s %s %s at %d MB = %v, published %s", coll, variant, col.metric, mb, got, r[5+i])
				}
				cells++
			}
		}
	}
	for _, x := range []struct{ file, prog, kind string }{
		{"nvshmem_alltoall_host.csv", "alltoall_on_stream", "host"}, {"nvshmem_alltoall_device.csv", "alltoall_latency", "device"}} {
		for _, r := range table(t, x.file) {
			n, _ := strconv.ParseUint(r[2], 10, 64)
			size := n << 20
			if x.kind == "device" {
				size = n << 10
			}
			if got := value(t, b, "nvshmem:"+x.prog, x.kind+", "+r[1]+" GPUs", "algbw", size); got != cell(t, r[4]) {
				t.Errorf("nvshmem %s %s GPUs at %d = %v, published %s", x.kind, r[1], size, got, r[4])
			}
			cells++
		}
	}
	for _, r := range table(t, "jacobi.csv") {
		bench := jacobiBenchmark(r[0])
		for col, metric := range map[int]string{5: "tool:serial_time", 6: "tool:time", 7: "tool:speedup", 8: "tool:efficiency"} {
			if got := value(t, b, bench, r[0]+", "+r[3]+" GPUs", metric, 16384*16384); got != cell(t, r[col]) {
				t.Errorf("jacobi %s %s GPUs %s = %v, published %s", r[0], r[3], metric, got, r[col])
			}
			cells++
		}
	}
	stored := 0
	for _, s := range b.Series {
		stored += len(s.Values)
	}
	if stored != cells {
		t.Errorf("the baseline holds %d values, the published tables %d cells", stored, cells)
	}
}

// jacobiBenchmark is the benchmark an experiment of jacobi.csv runs as.
func jacobiBenchmark(experiment string) string {
	switch {
	case strings.HasPrefix(experiment, "NVSHMEM"):
		return "jacobi:nvshmem"
	case strings.Contains(experiment, "CUDA Graph"):
		return "jacobi:nccl-graphs"
	case strings.Contains(experiment, "Overlap"):
		return "jacobi:nccl-overlap"
	}
	return "jacobi:nccl-simple"
}

// TestStudyHeadlines checks the baseline against the headline numbers of
// the reference (shared/reference/libefaxx-benchmarks.md 8.4), which
// round the published tables.
func TestStudyHeadlines(t *testing.T) {
	b := study(t)
	near := func(what string, got, want, tol float64) {
		if math.Abs(got-want) > tol {
			t.Errorf("%s = %v, the reference says %v", what, got, want)
		}
	}
	for gpus, want := range map[int]float64{16: 84.5, 32: 55.8, 64: 50.4, 128: 44.6, 256: 40.9} {
		near(fmt.Sprintf("alltoall out-of-place algbw at 2048 MB on %d GPUs", gpus),
			value(t, b, "nccl:alltoall", fmt.Sprintf("out-of-place, %d GPUs", gpus), "algbw", 2<<30), want, 0.05)
	}
	near("all-gather algbw at 16 GPUs", value(t, b, "nccl:all_gather", "out-of-place, 16 GPUs", "algbw", 2<<30), 350.5, 0.05)
	near("all-reduce busbw at 16 GPUs", value(t, b, "nccl:all_reduce", "out-of-place, 16 GPUs", "busbw", 8<<30), 477.7, 0.05)
	for _, gpus := range []int{16, 32, 64, 128, 256} {
		v := fmt.Sprintf("host, %d GPUs", gpus)
		near("NVSHMEM host peak at 64 MB, "+v, value(t, b, "nvshmem:alltoall_on_stream", v, "algbw", 64<<20), 37.6, 0.3)
		if c := value(t, b, "nvshmem:alltoall_on_stream", v, "algbw", 128<<20); c < 8 || c > 9.5 {
			t.Errorf("NVSHMEM host at 128 MB, %s = %v, the reference says it collapses to 8..9.5", v, c)
		}
		dv := fmt.Sprintf("device, %d GPUs", gpus)
		for _, kb := range []uint64{128, 256, 512, 1024, 2048, 4096, 8192, 16384} {
			if d := value(t, b, "nvshmem:alltoall_latency", dv, "algbw", kb<<10); d < 1.2 || d > 2.45 {
				t.Errorf("NVSHMEM device at %d KB, %s = %v, the reference says 1.2..2.4", kb, dv, d)
			}
		}
	}
	for _, x := range []struct {
		experiment          string
		speedup, efficiency float64
	}{{"NCCL", 105.9, 82.7}, {"NVSHMEM", 19.35, 15.1}, {"NVSHMEM w/ Block Comm + Overlap + Neighborhood Sync", 125.95, 98.4}} {
		v := x.experiment + ", 128 GPUs"
		near("Jacobi speedup, "+v, value(t, b, jacobiBenchmark(x.experiment), v, "tool:speedup", 16384*16384), x.speedup, 0.05)
		near("Jacobi efficiency, "+v, value(t, b, jacobiBenchmark(x.experiment), v, "tool:efficiency", 16384*16384), x.efficiency, 0.05)
	}
}
