// Command bench measures efaxx-runner against references, side by side in
// one run on one machine, and prints the ratios the project aims for.
//
// refs: the ceilings of the copy paths on this machine:
//
//   - shm write of 64 MiB against a single-thread memcpy of 64 MiB, and
//     against process_vm_readv (CMA), the copy the shm provider makes. The
//     ratio takes the write as memcpy, CMA, osu_bw and libfabric's fi_rma_bw
//     move it: one 64 MiB operation into one target buffer, reused (slots
//     1); the defaults (rotating target slots, 8 MiB ops) are shown
//     beside it;
//   - tcp write of 64 MiB against a plain TCP socket stream over loopback
//     (which the fabtests tables' tcp rows measure at their sizes too);
//   - 64-byte ping-pong latency on shm and tcp.
//
// fabtests: libfabric's own benchmarks (fi_rma_bw, fi_rdm_tagged_bw,
// fi_rdm_pingpong; fabtests 1.17.0 built by bench/fabtests/build) beside
// efaxx, on tcp and shm, 64 B to 64 MiB (versus.go).
//
// sweep: each size of a sweep of many sizes beside the same size measured
// alone (sweep.go).
//
// Each measurement runs in rounds, interleaved, and the median round is
// shown, so that a burst of load on a shared machine lands on every side.
// In the fabtests and sweep tables each measurement is bracketed by two
// readings of how far apart the ranks' two cores are (cores.go), and
// medians and ratios keep the rounds measured with them near. Every efaxx
// number comes from a run that verified its data.
//
// Usage: go run ./bench [-runner bin/efaxx-runner] [-rounds 5] [-best 1]
// [-fabtests DIR] [-only refs,fabtests,sweep] [-rows REGEXP] [-v]
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
)

const mib64 = 64 << 20

// verbose prints every measurement as it is taken.
var verbose bool

// best is how many measurements of each cell a round takes, keeping the best.
var best int

// rowFilter picks the rows of the tables to measure: "title: label".
var rowFilter *regexp.Regexp

func main() {
	path := flag.String("runner", "bin/efaxx-runner", "efaxx-runner to measure")
	// 6 is the fewest rounds whose median has a 95% interval (table.go,
	// medianCI), and so a verdict; rounds left out for the cores lower it.
	rounds := flag.Int("rounds", 6, "rounds of every measurement; the median is shown, and a ratio's 95% interval from 6 rounds kept")
	ftDir := flag.String("fabtests", defaultFabtests(), "where fabtests is built (bench/fabtests/build), outside the repository")
	only := flag.String("only", "refs,fabtests,sweep", "sections to run, comma-separated: refs, fabtests, sweep")
	flag.BoolVar(&verbose, "v", false, "print every measurement as it is taken, on stderr")
	flag.IntVar(&best, "best", 1, "measurements of each cell per round, the best kept (loopback tcp has a slow state that lasts one run)")
	rows := flag.String("rows", "", "measure only the rows whose table title and label (\"ping-pong, one-way latency: shm 64B\") match this regexp")
	flag.Parse()
	var err error
	if rowFilter, err = regexp.Compile(*rows); err != nil {
		fmt.Fprintln(os.Stderr, "bench: -rows:", err)
		os.Exit(2)
	}
	if err := run(*path, *rounds, *ftDir, strings.Split(*only, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// defaultFabtests is $EFAXX_EXT/fabtests-1.17.0, by default under the
// user's cache directory.
func defaultFabtests() string {
	ext := os.Getenv("EFAXX_EXT")
	if ext == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			cache = os.TempDir()
		}
		ext = filepath.Join(cache, "efaxx")
	}
	return filepath.Join(ext, "fabtests-1.17.0")
}

func run(path string, rounds int, ftDir string, only []string) error {
	dir, err := os.MkdirTemp("", "efaxx-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	r := runner{path: path, dir: dir}
	host, _ := os.Hostname()
	fmt.Printf("# efaxx bench: %s, %d cores, %s; median of %d rounds, interleaved; load at start: %s\n",
		host, runtime.NumCPU(), cpuModel(), rounds, loadavg())
	progs, err := buildRefs(dir)
	if err != nil {
		return err
	}
	cs := cores{prog: progs["cores"]}
	if err := rowsPicked(only, r, cs); err != nil {
		return err
	}
	for _, name := range only {
		switch name {
		case "refs":
			err = refs(r, progs, rounds)
		case "fabtests":
			var ft *fabtests
			if ft, err = buildFabtests(ftDir); err == nil {
				err = measure(rounds, cs, pick(versus(ft, r, progs["tcpstream"], cs)))
			}
		case "sweep":
			err = measure(rounds, cs, pick(sweeps(r, cs)))
		default:
			err = fmt.Errorf("-only %q: want refs, fabtests or sweep", name)
		}
		if err != nil {
			return err
		}
	}
	fmt.Printf("\n# load at end: %s\n", loadavg())
	return nil
}

// measure runs rounds of every table, one after the other within a
// round, and prints them.
func measure(rounds int, cs cores, tables []*table) error {
	var rd readings
	again := 0
	for i := 0; i < rounds; i++ {
		for _, t := range tables {
			n, err := t.measure(cs, &rd, i, best)
			if err != nil {
				return err
			}
			again += n
		}
		fmt.Fprintf(os.Stderr, "bench: round %d of %d done, load %s\n", i+1, rounds, loadavg())
	}
	for _, t := range tables {
		t.print(rd.floor())
	}
	fmt.Printf("\n%d measurements were taken again because the ranks' cores read apart\n", again)
	return nil
}

// rowsPicked fails when rowFilter matches no row of the sections asked
// for, naming some that there are: a -rows that measures nothing is a slip.
func rowsPicked(only []string, r runner, cs cores) error {
	var tables []*table
	for _, name := range only {
		switch name {
		case "fabtests":
			tables = append(tables, versus(&fabtests{}, r, "", cs)...)
		case "sweep":
			tables = append(tables, sweeps(r, cs)...)
		}
	}
	var names []string
	for _, t := range tables {
		for _, row := range t.rows {
			if name := t.title + ": " + row.label; rowFilter.MatchString(name) {
				return nil
			} else if len(names) < 3 {
				names = append(names, strconv.Quote(name))
			}
		}
	}
	if len(names) == 0 {
		return nil // no section with rows asked for
	}
	return fmt.Errorf("-rows %q matches no row of -only %s; rows are named like %s", rowFilter, strings.Join(only, ","),
		strings.Join(names, ", "))
}

// pick keeps the rows that rowFilter matches, and the tables that keep any.
func pick(tables []*table) []*table {
	var out []*table
	for _, t := range tables {
		var rows []*row
		for _, r := range t.rows {
			if rowFilter.MatchString(t.title + ": " + r.label) {
				rows = append(rows, r)
			}
		}
		if t.rows = rows; rows != nil {
			out = append(out, t)
		}
	}
	return out
}

// loadavg is /proc/loadavg's first three fields.
func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// measurement is one line of the refs report: a name and its value per round.
type measurement struct {
	name, unit string
	do         func() (float64, error)
	values     []float64
}

// refs measures efaxx's big writes and small ping-pongs beside memcpy, CMA
// and a TCP socket stream.
func refs(r runner, progs map[string]string, rounds int) error {
	write := func(p string, iters int, extra ...string) func() (float64, error) {
		return func() (float64, error) {
			args := append([]string{"--benchmark", "write", "--sizes", strconv.Itoa(mib64), "--iterations",
				strconv.Itoa(iters), "--warmup", strconv.Itoa(max(iters/10, 2))}, extra...)
			ss, err := r.run(p, args...)
			if err != nil {
				return 0, err
			}
			s, err := find(ss, 0, mib64)
			return 8 * gbs(s), err
		}
	}
	ping := func(p string) func() (float64, error) {
		return func() (float64, error) {
			ss, err := r.run(p, "--benchmark", "sendrecv", "--sizes", "64", "--iterations", "10000", "--warmup", "1000")
			if err != nil {
				return 0, err
			}
			s, err := find(ss, 0, 64)
			return oneWayUs(s), err
		}
	}
	ms := []*measurement{
		{name: "memcpy 64MiB (1 thread)", unit: "Gbps", do: func() (float64, error) { return ref(progs["memcpy"], mib64, 100) }},
		{name: "cma 64MiB (shm's copy)", unit: "Gbps", do: func() (float64, error) { return ref(progs["cma"], mib64, 100) }},
		{name: "efaxx write shm 64MiB", unit: "Gbps", do: write("shm", 100, "--chunk", strconv.Itoa(mib64), "--slots", "1")},
		{name: "  2 target slots (default)", unit: "Gbps", do: write("shm", 100, "--chunk", strconv.Itoa(mib64))},
		{name: "  and 8 MiB ops (default)", unit: "Gbps", do: write("shm", 100)},
		{name: "tcp socket stream 64MiB", unit: "Gbps", do: func() (float64, error) { return ref(progs["tcpstream"], mib64, 20) }},
		{name: "efaxx write tcp 64MiB", unit: "Gbps", do: write("tcp", 20)},
		{name: "efaxx sendrecv shm 64B", unit: "us", do: ping("shm")},
		{name: "efaxx sendrecv tcp 64B", unit: "us", do: ping("tcp")},
	}
	for i := 0; i < rounds; i++ {
		for _, m := range ms {
			v, err := m.do()
			if err != nil {
				return fmt.Errorf("%s: %w", m.name, err)
			}
			m.values = append(m.values, v)
		}
	}
	report(ms)
	return nil
}

func report(ms []*measurement) {
	fmt.Printf("\n### references\n\n")
	by := map[string][]float64{}
	for _, m := range ms {
		by[m.name] = m.values
		fmt.Printf("%-28s %10.2f %-4s  rounds %s\n", m.name, median(m.values), m.unit, join(m.values))
	}
	// Each round measured every line once, so a ratio pairs them round by
	// round, as the other tables do (its median, 95% interval and verdict).
	ratio := func(label, num, den string, g goal, note string) {
		var q []float64
		for i, d := range by[den] {
			if d > 0 && i < len(by[num]) {
				q = append(q, by[num][i]/d)
			}
		}
		fmt.Printf("%-28s %s%s\n", label, ratioCell(q, len(by[den]), g), note)
	}
	ratio("ratio shm write / memcpy", "efaxx write shm 64MiB", "memcpy 64MiB (1 thread)", goal{lo: 0.8}, "")
	ratio("  2 slots, 8 MiB / memcpy", "  and 8 MiB ops (default)", "memcpy 64MiB (1 thread)", goal{}, " (the defaults)")
	ratio("ratio shm write / cma", "efaxx write shm 64MiB", "cma 64MiB (shm's copy)", goal{}, " (the provider's own copy path)")
	ratio("ratio tcp write / socket", "efaxx write tcp 64MiB", "tcp socket stream 64MiB", goal{lo: 0.8}, "")
}

// buildRefs compiles the reference programs beside this file.
func buildRefs(dir string) (map[string]string, error) {
	src := filepath.Join("bench", "ref") // C, built here with gcc
	refs := map[string]string{}
	for _, name := range []string{"memcpy", "cma", "tcpstream", "cores"} {
		out := filepath.Join(dir, name)
		cmd := exec.Command("gcc", "-O2", "-Wall", "-pthread", "-o", out, filepath.Join(src, name+".c"))
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

func cpuModel() string {
	b, _ := os.ReadFile("/proc/cpuinfo")
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown cpu"
}
