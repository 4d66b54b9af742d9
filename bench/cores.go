package main

import (
	"fmt"
	"os/exec"
	"strconv"
	"strings"
)

// apart is how much slower than the run's fastest a round trip between
// the ranks' cores may be and still count as the same placement: cores
// that share a cache bounce a line in 50-120 ns on the development VM
// (a busy host's near reads spread to 2.4x the least), cores that do not
// in 330-430 ns.
const apart = 3.0

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

// near reports whether both readings around a measurement are within
// apart of the run's fastest, least.
func near(around [2]float64, least float64) bool {
	return around[0] <= apart*least && around[1] <= apart*least
}
