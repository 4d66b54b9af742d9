// Command bench measures efaxx-runner against references, side by side in
// one run on one machine, and prints the ratios the project aims for:
//
//   - shm write of 64 MiB against a single-thread memcpy of 64 MiB, and
//     against process_vm_readv (CMA), the copy the shm provider makes. The
//     ratio takes the write as memcpy, CMA, osu_bw and libfabric's fi_rma_bw
//     move it: one 64 MiB operation into one target buffer, reused (slots
//     1); the defaults (rotating target slots, 1 MiB chunks) are shown
//     beside it;
//   - tcp write of 64 MiB against a plain TCP socket stream over loopback;
//   - 64-byte ping-pong latency on shm and tcp.
//
// Each measurement runs in rounds, interleaved, and the median round is
// shown, so that a burst of load on a shared machine lands on both sides.
// Every efaxx number comes from a run that verified its data.
//
// Usage: go run ./bench [-runner bin/efaxx-runner] [-rounds 5]
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"efaxx/results/record"
)

const mib64 = 64 << 20

func main() {
	runner := flag.String("runner", "bin/efaxx-runner", "efaxx-runner to measure")
	rounds := flag.Int("rounds", 5, "rounds of every measurement; the median is shown")
	flag.Parse()
	if err := run(*runner, *rounds); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// measurement is one line of the report: a name and its value per round.
type measurement struct {
	name, unit string
	do         func() (float64, error)
	values     []float64
}

func run(runner string, rounds int) error {
	dir, err := os.MkdirTemp("", "efaxx-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	refs, err := buildRefs(dir)
	if err != nil {
		return err
	}
	ms := []*measurement{
		{name: "memcpy 64MiB (1 thread)", unit: "Gbps", do: func() (float64, error) { return ref(refs["memcpy"], mib64, 100) }},
		{name: "cma 64MiB (shm's copy)", unit: "Gbps", do: func() (float64, error) { return ref(refs["cma"], mib64, 100) }},
		{name: "efaxx write shm 64MiB", unit: "Gbps", do: func() (float64, error) {
			return efaxx(runner, dir, "write", "shm", mib64, 100, "--chunk", strconv.Itoa(mib64), "--slots", "1")
		}},
		{name: "  2 target slots (default)", unit: "Gbps", do: func() (float64, error) {
			return efaxx(runner, dir, "write", "shm", mib64, 100, "--chunk", strconv.Itoa(mib64))
		}},
		{name: "  and 1 MiB chunks (default)", unit: "Gbps", do: func() (float64, error) { return efaxx(runner, dir, "write", "shm", mib64, 100) }},
		{name: "tcp socket stream 64MiB", unit: "Gbps", do: func() (float64, error) { return ref(refs["tcpstream"], mib64, 20) }},
		{name: "efaxx write tcp 64MiB", unit: "Gbps", do: func() (float64, error) { return efaxx(runner, dir, "write", "tcp", mib64, 20) }},
		{name: "efaxx sendrecv shm 64B", unit: "us", do: func() (float64, error) { return efaxx(runner, dir, "sendrecv", "shm", 64, 10000) }},
		{name: "efaxx sendrecv tcp 64B", unit: "us", do: func() (float64, error) { return efaxx(runner, dir, "sendrecv", "tcp", 64, 10000) }},
	}
	for r := 0; r < rounds; r++ {
		for _, m := range ms {
			v, err := m.do()
			if err != nil {
				return fmt.Errorf("%s: %w", m.name, err)
			}
			m.values = append(m.values, v)
		}
	}
	report(ms, rounds)
	return nil
}

func report(ms []*measurement, rounds int) {
	host, _ := os.Hostname()
	fmt.Printf("# efaxx bench: %s, %d cores, %s; median of %d rounds, interleaved\n", host, runtime.NumCPU(), cpuModel(), rounds)
	med := map[string]float64{}
	for _, m := range ms {
		med[m.name] = median(m.values)
		fmt.Printf("%-28s %10.2f %-4s  rounds %s\n", m.name, med[m.name], m.unit, join(m.values))
	}
	memcpy := med["memcpy 64MiB (1 thread)"]
	fmt.Printf("%-28s %10.2f       goal >= 0.80\n", "ratio shm write / memcpy", med["efaxx write shm 64MiB"]/memcpy)
	fmt.Printf("%-28s %10.2f       (the defaults)\n", "  2 slots, 1 MiB / memcpy", med["  and 1 MiB chunks (default)"]/memcpy)
	fmt.Printf("%-28s %10.2f       (the provider's own copy path)\n", "ratio shm write / cma", med["efaxx write shm 64MiB"]/med["cma 64MiB (shm's copy)"])
	fmt.Printf("%-28s %10.2f       goal >= 0.80\n", "ratio tcp write / socket", med["efaxx write tcp 64MiB"]/med["tcp socket stream 64MiB"])
}

// buildRefs compiles the reference programs beside this file.
func buildRefs(dir string) (map[string]string, error) {
	src := filepath.Join("bench", "ref") // C, built here with gcc
	refs := map[string]string{}
	for _, name := range []string{"memcpy", "cma", "tcpstream"} {
		out := filepath.Join(dir, name)
		cmd := exec.Command("gcc", "-O2", "-Wall", "-o", out, filepath.Join(src, name+".c"))
		if b, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("build %s: %v\n%s", name, err, b)
		}
		refs[name] = out
	}
	return refs, nil
}

// ref runs a reference program; its last field is Gbps.
func ref(prog string, size, iters int) (float64, error) {
	out, err := exec.Command(prog, strconv.Itoa(size), strconv.Itoa(iters)).Output()
	if err != nil {
		return 0, fmt.Errorf("%s: %w", prog, err)
	}
	f := strings.Fields(string(out))
	if len(f) == 0 {
		return 0, fmt.Errorf("%s printed nothing", prog)
	}
	return strconv.ParseFloat(f[len(f)-1], 64)
}

// efaxx runs 2 ranks of the runner and returns rank 0's bandwidth in Gbps
// (write) or its one-way latency in µs (sendrecv: half the median round trip).
func efaxx(runner, dir, bench, provider string, size, iters int, extra ...string) (float64, error) {
	out := filepath.Join(dir, "out")
	os.RemoveAll(out)
	if err := os.MkdirAll(out, 0o755); err != nil {
		return 0, err
	}
	args := []string{"--mca", "btl", "self,vader", "--mca", "oob_tcp_if_include", "lo", "-np", "2"}
	if os.Geteuid() == 0 {
		args = append([]string{"--allow-run-as-root"}, args...)
	}
	args = append(args, runner, "--benchmark", bench, "--provider", provider, "--sizes", strconv.Itoa(size),
		"--iterations", strconv.Itoa(iters), "--warmup", strconv.Itoa(max(iters/10, 2)), "--out", out)
	args = append(args, extra...)
	if provider == "tcp" {
		args = append(args, "--nic", "lo")
	}
	var stderr bytes.Buffer
	cmd := exec.Command("mpirun", args...)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("mpirun: %v: %s", err, stderr.String())
	}
	s, err := firstSample(filepath.Join(out, record.RankFile(0)))
	if err != nil {
		return 0, err
	}
	if bench == "sendrecv" {
		return float64(s.Lat.P50) / 2 / 1e3, nil
	}
	return 8 * float64(s.BytesSent+s.BytesRecv) * float64(s.Iterations) / float64(s.ElapsedNs), nil
}

func firstSample(path string) (*record.Sample, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	var sample *record.Sample
	for sc.Scan() {
		v, err := record.Decode(sc.Bytes())
		if err != nil {
			return nil, err
		}
		switch r := v.(type) {
		case *record.Sample:
			if sample == nil {
				sample = r
			}
		case *record.End:
			if r.Status != record.StatusOK {
				return nil, fmt.Errorf("rank 0 failed: %s", r.Error)
			}
		}
	}
	if sample == nil {
		return nil, fmt.Errorf("%s: no sample", path)
	}
	return sample, nil
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func join(v []float64) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = strconv.FormatFloat(x, 'f', 1, 64)
	}
	return strings.Join(parts, " ")
}

func cpuModel() string {
	b, _ := os.ReadFile("/proc/cpuinfo")
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown cpu"
}
