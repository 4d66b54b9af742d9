package external

import (
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"efaxx/results/record"
)

// NVSHMEM's perftests (perftest/common/utils.cu, print_table_v1 and
// print_table_v2 as of 2025, and the newer stats columns) print, from PE
// 0, a "#job" line, a header of columns and one row per size:
//
//	#alltoall_on_stream
//	size(B)     count     type      latency(us)       min_lat(us)       max_lat(us)       algbw(GB/s)   busbw(GB/s)
//	2097152     32768     int       63.245461         61.312            71.680            33.159        31.087
//
// size(B) is the bytes one PE sends (for all-to-all: count x type size x
// PEs, its own block included); latency is the mean time of one
// operation in microseconds; algbw = size / latency in GB/s (1e9 B/s);
// busbw = algbw x (PEs-1)/PEs for all-to-all.
//
// testdata/nvshmem holds this output as NVSHMEM 3.4.5's perftests printed it
// (recorded on 2 H200s; README.md there): the header and row widths, the
// trailing spaces, the empty thread and warp tables of alltoall_latency.

// nvshmemColumns are the columns a perftest table may have, and the tool
// value each keeps ("" for none).
var nvshmemColumns = map[string]struct{ value, unit string }{
	"size(B)": {}, "count": {}, "type": {}, "redop": {}, "scope": {},
	"latency(us)": {"latency", "us"}, "min_lat(us)": {"min_latency", "us"}, "max_lat(us)": {"max_latency", "us"},
	"stddev(us)": {"stddev", "us"}, "repetitions": {"repetitions", "count"},
	"algbw(GB/s)": {"algbw", "GB/s (1e9 B/s)"}, "busbw(GB/s)": {"busbw", "GB/s (1e9 B/s)"},
}

var (
	nvshmemJob     = regexp.MustCompile(`^#\s*([A-Za-z0-9_]+)\s*$`)
	nvshmemOptions = regexp.MustCompile(`^min_size: \d+, max_size: \d+, .*\biterations: (\d+), warmup iterations: (\d+)`)
	nvshmemDevice  = regexp.MustCompile(`^mype: (\d+) mype_node: (\d+) device name: (.*?) bus id: (\d+)\s*$`)
	nvshmemPerf    = regexp.MustCompile(`^&&&& PERF ([A-Za-z0-9_]+)___(\S+)___size__(\d+)___([A-Za-z0-9_]+) (\S+) (.)(\S+)$`)
	nvshmemNoise   = []*regexp.Regexp{
		regexp.MustCompile(`^(\[PE \d+\] )?Runtime options after parsing command line arguments\s*$`),
		regexp.MustCompile(`^Note: Above is full list of options, any given test will use only a subset of these variables\.$`),
		regexp.MustCompile(`^repetitions: \d+$`),
		regexp.MustCompile(`^PE \d+: GPU \d+, UUID: \S+, peer: -?\d+$`),
		regexp.MustCompile(`^CUBIN Selected: `),
		regexp.MustCompile(`^(LLVM-IR Bitcode|LTOIR) Library Testing Method Chosen\.$`),
		regexp.MustCompile(`^[A-Za-z0-9_]+$`), // the job's name above machine-readable lines
	}
)

// nvshmemParser holds the state of one parse.
type nvshmemParser struct {
	sink
	res     *Result
	iters   int      // from the options line; 0 until read
	job     string   // the table's job, from its "#job" line
	columns []string // the table's columns; nil outside a table
	devices []string
	jobs    []string
}

// parseNVSHMEM reads the output of NVSHMEM perftests (see above), and the
// machine-readable "&&&& PERF" lines of NVSHMEM_MACHINE_READABLE_OUTPUT=1,
// which hold the latency only.
func parseNVSHMEM(in Input) (*Result, error) {
	p := &nvshmemParser{res: &Result{}}
	for _, f := range in.Files {
		p.file(f)
	}
	p.res.Problems = p.problems
	p.res.Fingerprint = map[string]any{"tool": "nvshmem perftest", "jobs": p.jobs, "devices": p.devices,
		"iterations": p.iters, "units": map[string]string{"latency": "us, mean time of one operation",
			"algbw": "GB/s (1e9 B/s): size(B) / latency", "busbw": "GB/s (1e9 B/s): algbw x the collective's factor ((PEs-1)/PEs for all-to-all)"}}
	if p.iters == 0 {
		p.res.Fingerprint["iterations_unknown"] = true
	}
	return p.res, p.err()
}

// file reads one rank's output.
func (p *nvshmemParser) file(f File) {
	ls, cut := lines(f.Data)
	if cut {
		p.fail(f.Name, len(ls), "the last line has no end: the output was cut short")
	}
	p.columns = nil
	for i, l := range ls {
		p.line(f, i+1, l)
	}
}

// line reads line n of f.
func (p *nvshmemParser) line(f File, n int, l string) {
	t := strings.TrimSpace(l)
	if p.columns != nil && t != "" && t[0] >= '0' && t[0] <= '9' {
		p.row(f, n, strings.Fields(t))
		return
	}
	p.columns = nil
	switch m := nvshmemJob.FindStringSubmatch(t); {
	case m != nil:
		p.job = m[1]
		p.jobs = append(p.jobs, m[1])
	case strings.HasPrefix(t, "size(B)"):
		p.header(f, n, strings.Fields(t))
	case t == "" || logLine.MatchString(t):
	default:
		p.other(f, n, t)
	}
}

// other reads a line outside a table: the options, a device, a
// machine-readable result, known noise, or a line not understood.
func (p *nvshmemParser) other(f File, n int, t string) {
	if m := nvshmemOptions.FindStringSubmatch(t); m != nil {
		p.iters, _ = strconv.Atoi(m[1])
		return
	}
	if m := nvshmemDevice.FindStringSubmatch(t); m != nil {
		p.devices = append(p.devices, "PE "+m[1]+": "+m[3]+" bus "+m[4])
		return
	}
	if m := nvshmemPerf.FindStringSubmatch(t); m != nil {
		p.perfLine(f, n, m)
		return
	}
	for _, re := range nvshmemNoise {
		if re.MatchString(t) {
			return
		}
	}
	p.unknown(f.Name, n, t)
}

// header reads a table's column header.
func (p *nvshmemParser) header(f File, n int, cols []string) {
	for _, c := range cols {
		if _, ok := nvshmemColumns[c]; !ok {
			p.fail(f.Name, n, "unknown column %q: want size(B), count, type, redop, scope, latency(us), min_lat(us), "+
				"max_lat(us), stddev(us), repetitions, algbw(GB/s), busbw(GB/s)", c)
			return
		}
	}
	if !strings.Contains(strings.Join(cols, " "), "latency(us)") {
		p.fail(f.Name, n, "no latency(us) column")
		return
	}
	if p.job == "" {
		p.fail(f.Name, n, "a table without its \"#job\" line above")
		return
	}
	p.columns = cols
}

// row reads one row of the table.
func (p *nvshmemParser) row(f File, n int, fields []string) {
	if len(fields) != len(p.columns) {
		p.fail(f.Name, n, "row of %d fields: want %d (%s)", len(fields), len(p.columns), strings.Join(p.columns, " "))
		p.columns = nil
		return
	}
	var size uint64
	var variant []string
	vals := map[string]float64{}
	for i, c := range p.columns {
		switch c {
		case "size(B)":
			var err error
			if size, err = strconv.ParseUint(fields[i], 10, 64); err != nil || size == 0 || size > math.MaxInt64 {
				p.fail(f.Name, n, "size %q: not a number of bytes", fields[i])
				return
			}
		case "type", "redop", "scope":
			variant = append(variant, fields[i])
		case "count":
		default:
			v, ok := number(fields[i])
			if !ok && !(c == "stddev(us)" && fields[i] == "NA") {
				p.fail(f.Name, n, "%s %q: not a number of at least 0", c, fields[i])
				return
			} else if ok {
				vals[c] = v
			}
		}
	}
	p.add(f, n, size, strings.Join(variant, "/"), vals)
}

// add stores the sample and tool values of one row.
func (p *nvshmemParser) add(f File, n int, size uint64, variant string, vals map[string]float64) {
	lat := vals["latency(us)"]
	iters := max(p.iters, 1)
	if lat <= 0 || !timeOK(lat*1e3*float64(iters)) {
		p.fail(f.Name, n, "latency %g us: want more than 0", lat)
		return
	}
	if alg, ok := vals["algbw(GB/s)"]; ok {
		if want := float64(size) / 1e3 / lat; math.Abs(alg-want) > 0.01+0.05*want {
			p.fail(f.Name, n, "size %d: algbw %g GB/s, but size over latency is %.4g GB/s: a column is misread", size, alg, want)
			return
		}
	}
	rank := max(f.Rank, 0)
	mean := nsOf(lat)
	l := record.Lat{Min: mean, P50: mean, P99: mean, Max: mean}
	if v, ok := vals["min_lat(us)"]; ok {
		l.Min = nsOf(v)
	}
	if v, ok := vals["max_lat(us)"]; ok {
		l.Max = nsOf(v)
	}
	p.res.Samples = append(p.res.Samples, record.Sample{Type: record.TypeSample, Rank: rank, Peer: -1, Role: "all",
		Size: size, Variant: variant, BytesSent: size, Iterations: uint64(iters),
		ElapsedNs: uint64(math.Round(lat * 1e3 * float64(iters))), Lat: l})
	for _, c := range slices.Sorted(maps.Keys(vals)) {
		if col := nvshmemColumns[c]; col.value != "" {
			p.res.Values = append(p.res.Values, record.ToolValue{Size: size, Rank: rank, Peer: -1, Variant: variant,
				Name: col.value, Value: vals[c], Unit: col.unit})
		}
	}
}

// perfLine reads a machine-readable "&&&& PERF job___subjob___size__N___var V -us" line.
func (p *nvshmemParser) perfLine(f File, n int, m []string) {
	size, err := strconv.ParseUint(m[3], 10, 64)
	v, ok := number(m[5])
	switch {
	case err != nil || size == 0 || size > math.MaxInt64:
		p.fail(f.Name, n, "size %q: not a number of bytes", m[3])
	case !ok:
		p.fail(f.Name, n, "%s %q: not a number of at least 0", m[4], m[5])
	case m[4] != "latency" || m[7] != "us":
		p.fail(f.Name, n, "unknown measure %q in %q: want latency in us", m[4], m[7])
	default:
		if len(p.jobs) == 0 || p.jobs[len(p.jobs)-1] != m[1] {
			p.jobs = append(p.jobs, m[1])
		}
		p.add(f, n, size, m[2], map[string]float64{"latency(us)": v})
	}
}
