package harness

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// benchmarks are the benchmarks efaxx-runner knows, by the name its
// --benchmark flag takes. A sweep's benchmark key names one or more of them;
// a new benchmark is a new entry here and in rankRange.
var benchmarks = []string{
	"sendrecv", // libfabric SEND/RECV ping-pong between rank pairs
	"write",    // libfabric RDMA WRITE with remote CQ data, rank 0 to its peers
	"all2all",  // every rank RDMA-writes its buffer to every other rank at once
	"proxy",    // GPU-initiated RDMA writes through a CPU proxy, beside the CPU's own (the CUDA plugin)
	"ipc",      // GPU to GPU in a node through CUDA IPC (the CUDA plugin)
	"queue",    // GPU (or CPU) producers to a CPU consumer through a command ring
	"external", // a program of the sweep's [external] table (nccl-tests, NVSHMEM perftests, OSU, ...)
}

// runnerBenchmarks are the benchmarks efaxx-runner measures itself: every one but
// external.
var runnerBenchmarks = slices.Clone(benchmarks[:len(benchmarks)-1])

// rankRange is how many ranks each benchmark runs on.
var rankRange = map[string][2]int{
	"sendrecv": {2, 65536},
	"write":    {2, 65536},
	"all2all":  {2, 65536},
	"proxy":    {2, 65536},
	"ipc":      {2, 64}, // one rank per GPU of one node
	"queue":    {1, 1},
	"external": {1, 65536},
}

var launchForm = regexp.MustCompile(`^([1-9][0-9]{0,6})x([1-9][0-9]{0,3})$`)

// checkLaunch accepts "auto" (every SM full) or "GRIDxBLOCK" with at most
// 1024 threads a block, the CUDA limit.
func checkLaunch(s string) error {
	if s == "auto" {
		return nil
	}
	m := launchForm.FindStringSubmatch(s)
	if m == nil {
		return mark(ErrValue, "launch %q: want \"auto\" or GRIDxBLOCK, such as \"128x256\"", s)
	}
	if block, _ := strconv.Atoi(m[2]); block > 1024 {
		return mark(ErrValue, "launch %q: %d threads a block, CUDA allows at most 1024", s, block)
	}
	return nil
}

// checkBenchmarks checks what each benchmark of the sweep needs of its
// params: how many ranks, which params apply, and the queue's producer and
// cells agreeing. Errors point at the param's key when the file sets it.
func (d *decoder) checkBenchmarks(s *Sweep) {
	for i, p := range axes() {
		for _, b := range s.Benchmarks {
			if p.only != nil && !slices.Contains(p.only, b) {
				if e, set := d.entries[p]; set {
					d.fail(e, mark(ErrValue, "applies to %s only, and the sweep runs %s", benchmarkList(p.only), b))
				}
			}
		}
		if p.name == "ranks" {
			d.checkRanks(s, p, s.values[i])
		}
	}
	d.checkQueue(s)
}

func (d *decoder) checkRanks(s *Sweep, p *param, values []any) {
	for _, b := range s.Benchmarks {
		r := rankRange[b]
		for _, v := range values {
			if n := v.(int); n < r[0] || n > r[1] {
				d.failParam(p, mark(ErrValue, "benchmark %s runs on %s ranks, got %d", b, rangeText(r), n))
				return
			}
		}
	}
}

func (d *decoder) checkQueue(s *Sweep) {
	if slices.Contains(s.Benchmarks, "proxy") && slices.Contains(s.valuesOf("cells"), any("host")) {
		d.failParam(paramNamed("cells"), mark(ErrValue,
			"cells \"host\" with benchmark proxy: its producer is the GPU; use pinned, managed or device"))
	}
	if !slices.Contains(s.Benchmarks, "queue") {
		return
	}
	producer, cells := s.valuesOf("producer"), s.valuesOf("cells")
	for _, pr := range producer {
		for _, c := range cells {
			if (pr == "cpu") != (c == "host") {
				d.failParam(paramNamed("cells"), mark(ErrValue,
					"cells %q with producer %q: cpu producers use host cells, gpu producers pinned, managed or device", c, pr))
				return
			}
		}
	}
}

// failParam records err against p's key, or against [params] when the file
// leaves p to its default.
func (d *decoder) failParam(p *param, err error) {
	if e, set := d.entries[p]; set {
		d.fail(e, err)
		return
	}
	table := "params"
	if p.table != "" {
		table = p.table
	}
	d.errs = append(d.errs, &SweepError{File: d.file, Key: table + "." + p.name, Err: fmt.Errorf("%w (the default)", err)})
}

func rangeText(r [2]int) string {
	if r[0] == r[1] {
		return strconv.Itoa(r[0])
	}
	return fmt.Sprintf("%d..%d", r[0], r[1])
}

// paramNamed returns the param called name.
func paramNamed(name string) *param {
	for _, p := range axes() {
		if p.name == name {
			return p
		}
	}
	panic("harness: no param " + name)
}

// valuesOf returns the resolved values of the named param.
func (s *Sweep) valuesOf(name string) []any {
	for i, p := range axes() {
		if p.name == name {
			return s.values[i]
		}
	}
	return nil
}

// benchmarkList names benchmarks in a message: "benchmark ipc", "benchmarks queue and proxy".
func benchmarkList(b []string) string {
	if len(b) == 1 {
		return "benchmark " + b[0]
	}
	return "benchmarks " + strings.Join(b[:len(b)-1], ", ") + " and " + b[len(b)-1]
}
