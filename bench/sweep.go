package main

import (
	"strings"

	"efaxx/results/record"
)

// The sweep comparison: a number must not depend on which other sizes
// share its sweep. Each round runs one sweep of 4 KiB to 64 MiB, then
// each of its sizes alone, with the same flags: the runner's defaults
// (what a user gets) but a duration of half a second per size instead of
// a count, which would be a few milliseconds at 4 KiB or seconds at
// 64 MiB over tcp. Each size's median in the sweep is compared with its
// median alone.

var sweepSizes = []uint64{4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20, 64 << 20}

func sweeps(r runner, cs cores) []*table {
	t := &table{title: "each size in a sweep of 4 KiB to 64 MiB, and alone", unit: "GB/s of payload delivered, median of rounds",
		cols:   []string{"in the sweep", "alone"},
		ratios: []ratio{{"sweep / alone", 0, 1, goal{lo: 0.9, hi: 1.1}}}}
	for _, p := range providers {
		for _, bench := range []string{"write", "send", "sendrecv"} {
			sw := &sharedRun{r: r, cs: cs, p: p, args: []string{"--benchmark", bench, "--duration", "500ms"}}
			for _, size := range sweepSizes {
				alone := &sharedRun{r: r, cs: cs, p: p, args: sw.args, sizes: []uint64{size}}
				t.rows = append(t.rows, &row{label: p + " " + bench + " " + sizeName(size),
					cells: []*cell{sw.cell(size), alone.cell(size)}})
			}
		}
	}
	return []*table{t}
}

// sharedRun is one run of the runner over sizes (sweepSizes when nil),
// whose samples several cells read (a sweep's sizes, a ping-pong's median
// and mean), each with the readings of the ranks' cores around the run.
type sharedRun struct {
	r       runner
	cs      cores
	p       string
	args    []string
	sizes   []uint64
	samples []record.Sample
	around  [2]float64
	read    map[string]bool // the cells that have read this run
}

// cell reads size's rate from the run.
func (s *sharedRun) cell(size uint64) *cell { return s.reader(itoa(size), size, gbs) }

// reader is the cell named key that reads metric of size's sample from
// the run, with the run's readings of the cores. It runs the runner
// first when this cell has read the last run already (a new round, or
// the measurement taken again), or when there is none.
func (s *sharedRun) reader(key string, size uint64, metric func(record.Sample) float64) *cell {
	return &cell{around: func() [2]float64 { return s.around }, do: func() (float64, float64, error) {
		if s.samples == nil || s.read[key] {
			sizes := s.sizes
			if sizes == nil {
				sizes = sweepSizes
			}
			names := make([]string, len(sizes))
			for i, n := range sizes {
				names[i] = itoa(n)
			}
			var err error
			if s.around[0], err = s.cs.read(); err != nil {
				return 0, 0, err
			}
			if s.samples, err = s.r.run(s.p, append(s.args, "--sizes", strings.Join(names, ","))...); err != nil {
				return 0, 0, err
			}
			if s.around[1], err = s.cs.read(); err != nil {
				return 0, 0, err
			}
			s.read = map[string]bool{}
		}
		s.read[key] = true
		got, err := find(s.samples, 0, size)
		return metric(got), 0, err
	}}
}
