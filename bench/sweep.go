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

func sweeps(r runner) []*table {
	t := &table{title: "each size in a sweep of 4 KiB to 64 MiB, and alone", unit: "GB/s of payload delivered, median of rounds",
		cols:   []string{"in the sweep", "alone"},
		ratios: []ratio{{"sweep / alone", 0, 1, " (0.9 to 1.1)"}}}
	for _, p := range providers {
		for _, bench := range []string{"write", "sendrecv"} {
			sw := &sweepRun{r: r, p: p, args: []string{"--benchmark", bench, "--duration", "500ms"}}
			for k, size := range sweepSizes {
				alone := &sweepRun{r: r, p: p, args: sw.args, sizes: []uint64{size}}
				t.rows = append(t.rows, &row{label: p + " " + bench + " " + sizeName(size),
					cells: []*cell{sw.cell(size, k == 0), alone.cell(size, true)}})
			}
		}
	}
	return []*table{t}
}

// sweepRun is one run of the runner over sizes (sweepSizes when nil),
// whose samples the cells of its sizes read.
type sweepRun struct {
	r       runner
	p       string
	args    []string
	sizes   []uint64
	samples []record.Sample
}

// cell reads size's rate from the run, running it first when fresh: the
// first size's cell of a round runs the whole sweep for the others.
func (s *sweepRun) cell(size uint64, fresh bool) *cell {
	return &cell{do: func() (float64, float64, error) {
		if fresh {
			sizes := s.sizes
			if sizes == nil {
				sizes = sweepSizes
			}
			names := make([]string, len(sizes))
			for i, n := range sizes {
				names[i] = itoa(n)
			}
			ss, err := s.r.run(s.p, append(s.args, "--sizes", strings.Join(names, ","))...)
			if err != nil {
				return 0, 0, err
			}
			s.samples = ss
		}
		got, err := find(s.samples, 0, size)
		return gbs(got), 0, err
	}}
}
