package main

import (
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"strings"
)

// apart is how much slower than the run's floor (below) a round trip
// between the ranks' cores may be and still count as the same placement:
// cores that share a cache bounce a line in 50-120 ns on the development
// VM (a busy host's near reads spread to 2.4x the least), cores that do
// not in 330-430 ns.
const apart = 3.0

// floorQuantile is the quantile of a run's readings that is its floor.
// Not the least: on a 16-core host whose cores read 170-340 ns, a single
// reading of 70 ns made 3x of it the limit, and most measurements of that
// run were taken again three times and then left out.
const floorQuantile = 0.1

// cores reads how far apart cores 0 and 1 are, where the runner pins its
// two ranks and the bench pins fabtests' server and client: the ns of a
// cache line's round trip between them (bench/ref/cores.c). A VM's vCPUs
// can move between cores that share a cache and cores that do not for
// tens of seconds at a time, and every transfer between the two ranks
// moves with them (shm and loopback tcp at a third of their rate), so a
// measurement is bracketed by two readings and compared only with one
// taken in the same placement.
type cores struct{ prog string }

func (c cores) read() (float64, error) {
	out, err := exec.Command(c.prog, "0", "1", "100000").Output()
	if err != nil {
		return 0, fmt.Errorf("%s: %w", c.prog, err)
	}
	f := strings.Fields(string(out))
	if len(f) != 5 {
		return 0, fmt.Errorf("%s printed %q", c.prog, out)
	}
	return strconv.ParseFloat(f[4], 64)
}

// readings are a run's readings of the cores, in nanoseconds.
type readings struct{ ns []float64 }

func (r *readings) add(ns float64) { r.ns = append(r.ns, ns) }

// floor is the run's reference round trip: the floorQuantile of its
// readings so far, 0 with none.
func (r *readings) floor() float64 {
	if len(r.ns) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(r.ns))
	return s[int(floorQuantile*float64(len(s)-1))]
}

// near reports whether both readings around a measurement are within
// apart of the run's floor.
func near(around [2]float64, floor float64) bool {
	return around[0] <= apart*floor && around[1] <= apart*floor
}
