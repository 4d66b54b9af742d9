package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"efaxx/results/record"
)

// runner starts efaxx-runner as 2 ranks with mpirun and reads what each
// rank wrote.
type runner struct {
	path string // efaxx-runner
	dir  string // scratch for the ranks' files
}

// run measures sizes with efaxx-runner's flags args (the benchmark,
// provider and sizes among them) and returns every sample of both ranks,
// in rank order and then as written. A rank that did not end ok fails it.
func (r runner) run(provider string, args ...string) ([]record.Sample, error) {
	out := filepath.Join(r.dir, "out")
	os.RemoveAll(out)
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	mpi := []string{"--mca", "btl", "self,vader", "--mca", "oob_tcp_if_include", "lo", "-np", "2"}
	if os.Geteuid() == 0 {
		mpi = append([]string{"--allow-run-as-root"}, mpi...)
	}
	mpi = append(mpi, r.path, "--provider", provider, "--out", out)
	if provider == "tcp" {
		mpi = append(mpi, "--nic", "lo")
	}
	var stderr bytes.Buffer
	cmd := exec.Command("mpirun", append(mpi, args...)...)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("mpirun %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	var all []record.Sample
	for rank := 0; rank < 2; rank++ {
		s, err := samples(filepath.Join(out, record.RankFile(rank)))
		if err != nil {
			return nil, err
		}
		all = append(all, s...)
	}
	return all, nil
}

// samples reads one rank's samples; a rank that failed is an error.
func samples(path string) ([]record.Sample, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []record.Sample
	ended := false
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		v, err := record.Decode(sc.Bytes())
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		switch r := v.(type) {
		case *record.Sample:
			out = append(out, *r)
		case *record.End:
			if r.Status != record.StatusOK {
				return nil, fmt.Errorf("%s: rank failed: %s", path, r.Error)
			}
			ended = true
		}
	}
	if !ended {
		return nil, fmt.Errorf("%s: no end record", path)
	}
	return out, nil
}

// find returns the sample of rank at size.
func find(ss []record.Sample, rank int, size uint64) (record.Sample, error) {
	for _, s := range ss {
		if s.Rank == rank && s.Size == size {
			return s, nil
		}
	}
	return record.Sample{}, fmt.Errorf("no sample of rank %d at size %d", rank, size)
}

// gbs is a sample's payload rate in GB/s (1e9 bytes/s): the bytes that
// arrived at a receiver per second, both directions summed (a write
// initiator's sent bytes, a target's received ones; a ping-pong's size
// each way per round trip).
func gbs(s record.Sample) float64 {
	return float64(s.BytesSent+s.BytesRecv) * float64(s.Iterations) / float64(s.ElapsedNs)
}

// oneWayUs is a ping-pong sample's one-way latency at the median, in µs.
func oneWayUs(s record.Sample) float64 { return float64(s.Lat.P50) / 2 / 1e3 }

// itoa formats a size for a command line.
func itoa(n uint64) string { return strconv.FormatUint(n, 10) }
