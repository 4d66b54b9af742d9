package harness

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"efaxx/benchmarks"
	"efaxx/lineerr"
)

var launchForm = regexp.MustCompile(`^([1-9][0-9]{0,6})x([1-9][0-9]{0,3})$`)

// checkLaunch accepts "auto" (every SM full) or "GRIDxBLOCK" with at most
// 1024 threads a block, the CUDA limit.
func checkLaunch(s string) error {
	if s == "auto" {
		return nil
	}
	m := launchForm.FindStringSubmatch(s)
	if m == nil {
		return lineerr.Mark(ErrValue, "launch %q: want \"auto\" or GRIDxBLOCK, such as \"128x256\"", s)
	}
	if block, _ := strconv.Atoi(m[2]); block > 1024 {
		return lineerr.Mark(ErrValue, "launch %q: %d threads a block, CUDA allows at most 1024", s, block)
	}
	return nil
}

// checkBenchmarks checks what each benchmark of the sweep needs of its
// params: how many ranks and nodes, which params apply, and the queue's producer and
// cells agreeing. Errors point at the param's key when the file sets it.
func (d *decoder) checkBenchmarks(s *Sweep) {
	for i, p := range axes() {
		// One error a key, naming every benchmark of the sweep that does not take it.
		var others []string
		for _, b := range s.Benchmarks {
			if !p.appliesTo(b) {
				others = append(others, b)
			}
		}
		if e, set := d.entries[p]; set && others != nil {
			d.fail(e, lineerr.Mark(ErrValue, "applies to %s only, and the sweep runs %s", benchmarkList(benchmarks.Taking(p.name)), andList(others)))
		}
		if p.name == "ranks" && !d.failed[p] {
			d.checkRanks(s, p, s.values[i])
		}
		if p.name == "nodes" && !d.failed[p] {
			d.checkNodes(s, p, s.values[i])
		}
	}
	d.checkQueue(s)
	d.checkSizes(s)
}

// checkSizes refuses a size that a benchmark of the sweep cannot measure
// (whole words, a largest size: the benchmarks table), as efaxx-runner
// would refuse it at launch, after the points before it had run.
func (d *decoder) checkSizes(s *Sweep) {
	p := paramNamed("sizes")
	if d.failed[p] {
		return
	}
	sizes, _ := s.valuesOf("sizes")[0].([]uint64)
	for _, name := range s.Benchmarks {
		for _, n := range sizes {
			if err := benchmark(name).CheckSize(n); err != nil {
				d.failParam(p, lineerr.Mark(ErrValue, "%v", err))
				return
			}
		}
	}
}

func (d *decoder) checkRanks(s *Sweep, p *param, values []any) {
	for _, name := range s.Benchmarks {
		b := benchmark(name)
		for _, v := range values {
			if n := v.(int); n < b.MinRanks || n > b.MaxRanks {
				d.failParam(p, lineerr.Mark(ErrValue, "benchmark %s runs on %s ranks, got %d", name, rangeText(b), n))
				return
			}
		}
	}
}

// checkNodes refuses more than one node to a benchmark that runs on one.
func (d *decoder) checkNodes(s *Sweep, p *param, values []any) {
	for _, name := range s.Benchmarks {
		if !benchmark(name).OneNode {
			continue
		}
		for _, v := range values {
			if n := v.(int); n > 1 {
				d.failParam(p, lineerr.Mark(ErrValue, "benchmark %s runs on the GPUs of one node, got nodes = %d", name, n))
				return
			}
		}
	}
}

func (d *decoder) checkQueue(s *Sweep) {
	if d.failed[paramNamed("cells")] {
		return
	}
	if slices.Contains(s.Benchmarks, "proxy") && slices.Contains(s.valuesOf("cells"), any("host")) {
		d.failParam(paramNamed("cells"), lineerr.Mark(ErrValue,
			"cells \"host\" with benchmark proxy: its producer is the GPU; use pinned, managed or device"))
	}
	if !slices.Contains(s.Benchmarks, "queue") || d.failed[paramNamed("producer")] {
		return
	}
	producer, cells := s.valuesOf("producer"), s.valuesOf("cells")
	for _, pr := range producer {
		for _, c := range cells {
			if (pr == "cpu") != (c == "host") {
				d.failParam(paramNamed("cells"), lineerr.Mark(ErrValue,
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
	d.errs = append(d.errs, &lineerr.Error{File: d.file, Key: table + "." + p.name, Err: fmt.Errorf("%w (the default)", err)})
}

func rangeText(b benchmarks.Benchmark) string {
	if b.MinRanks == b.MaxRanks {
		return strconv.Itoa(b.MinRanks)
	}
	return fmt.Sprintf("%d..%d", b.MinRanks, b.MaxRanks)
}

// benchmark returns the row of the benchmark called name. The benchmark
// key accepts only names of the table; for any other name (a Point made by
// hand) it returns the zero row, which takes only the keys every
// benchmark takes.
func benchmark(name string) benchmarks.Benchmark {
	b, _ := benchmarks.Lookup(name)
	return b
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
	return "benchmarks " + andList(b)
}

// andList joins words in a message: "ipc", "queue and proxy", "send, write and proxy".
func andList(words []string) string {
	if len(words) == 1 {
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}
