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

// fabtests' -m prints machine-readable results (fabtests/common/shared.c,
// show_perf_mr): a "---" line, the command line ending in " :", then one
// line per size:
//
//	---
//	fi_rdm_pingpong -p tcp -m -S all 10.0.0.2 :
//	- { xfer_size: 64, iterations: 10000, total: 1280000, time: 0.321450, MB/sec: 3.981957, usec/xfer: 16.072500, Mxfers/sec: 0.062218 }
//
// total is iterations x size x transfers per iteration (2 for a ping-pong),
// time is in seconds, MB/sec is total bytes per microsecond (1e6 B/s),
// usec/xfer is time over the transfers. Older fabtests wrote "--- # ARGV"
// and Gb/sec (1e9 bit/s) instead of MB/sec.
//
// Which way a bandwidth test's bytes went is in its command line: the
// client names the server's address as its one positional argument and
// sends; the server receives (fi_rdm_tagged_bw, fi_rma_bw -o writedata),
// except in fi_rma_bw -o write and -o read (write is its default), where
// both sides write to (or read from) the other at once, each counting its
// own operations.

// fabtestsKeys are the keys of a result line, and the unit of each.
var fabtestsKeys = map[string]string{
	"xfer_size": "bytes", "iterations": "count", "total": "bytes", "time": "s",
	"MB/sec": "MB/s (1e6 B/s)", "Gb/sec": "Gb/s (1e9 bit/s)", "usec/xfer": "us", "Mxfers/sec": "1e6 transfers/s",
}

// fabtestsValues name the tool values kept of a result line.
var fabtestsValues = map[string]string{"MB/sec": "bandwidth", "Gb/sec": "gbps", "usec/xfer": "usec_per_xfer",
	"Mxfers/sec": "mxfers_per_sec", "time": "time"}

var fabtestsLine = regexp.MustCompile(`^- \{ (.*) \}$`)

// fabtestsParser holds the state of one parse.
type fabtestsParser struct {
	sink
	res   *Result
	ranks int
	docs  int      // "---" documents seen in the file being read
	argv  []string // the command lines of the documents
	cmd   string   // the command line of the document being read, "" before one
}

// parseFabtests reads fabtests' -m output from every rank: each rank that
// prints results (the client and the server of a ping-pong) gives its
// own samples, keyed by its rank, its peer the other rank of a pair.
func parseFabtests(in Input) (*Result, error) {
	p := &fabtestsParser{res: &Result{}, ranks: in.Ranks}
	for _, f := range in.Files {
		p.file(f)
	}
	p.res.Problems = p.problems
	p.res.Fingerprint = map[string]any{"tool": "fabtests", "commands": p.argv,
		"units": map[string]string{"bandwidth": "MB/s (1e6 B/s): total bytes / time in us", "usec_per_xfer": "us per transfer",
			"time": "s, the whole timed loop"}}
	return p.res, p.err()
}

// file reads one rank's output.
func (p *fabtestsParser) file(f File) {
	ls, cut := lines(f.Data)
	if cut {
		p.fail(f.Name, len(ls), "the last line has no end: the output was cut short")
	}
	p.docs, p.cmd = 0, ""
	header := false
	for i, l := range ls {
		t := strings.TrimSpace(l)
		switch {
		case t == "---" || strings.HasPrefix(t, "--- # "):
			p.docs++
			header = t == "---"
			p.cmd = ""
			if !header {
				p.cmd = strings.TrimPrefix(t, "--- # ")
				p.argv = append(p.argv, p.cmd)
			}
		case header:
			p.cmd = strings.TrimSuffix(strings.TrimSuffix(t, ":"), " ")
			p.argv = append(p.argv, p.cmd)
			header = false
		case strings.HasPrefix(t, "- {") || strings.HasPrefix(t, "-{"):
			p.result(f, i+1, t)
		case t == "" || logLine.MatchString(t):
		default:
			p.unknown(f.Name, i+1, t)
		}
	}
}

// result reads one "- { key: value, ... }" line.
func (p *fabtestsParser) result(f File, n int, t string) {
	m := fabtestsLine.FindStringSubmatch(t)
	if m == nil {
		p.fail(f.Name, n, "result line %s: want \"- { key: value, ... }\"", quote(t))
		return
	}
	vals := map[string]float64{}
	for _, kv := range strings.Split(m[1], ", ") {
		k, v, ok := strings.Cut(kv, ": ")
		if _, known := fabtestsKeys[k]; !ok || !known {
			p.fail(f.Name, n, "unknown key in %s: want xfer_size, iterations, total, time, MB/sec, usec/xfer, Mxfers/sec", quote(kv))
			return
		}
		x, ok := number(v)
		if !ok {
			p.fail(f.Name, n, "%s %q: not a number of at least 0", k, v)
			return
		}
		vals[k] = x
	}
	p.add(f, n, vals)
}

// add stores the sample and tool values of one result line.
func (p *fabtestsParser) add(f File, n int, vals map[string]float64) {
	for _, k := range []string{"xfer_size", "iterations", "total", "time"} {
		if _, ok := vals[k]; !ok {
			p.fail(f.Name, n, "no %s", k)
			return
		}
	}
	size, iters, total, secs := vals["xfer_size"], vals["iterations"], vals["total"], vals["time"]
	if size < 1 || size > math.MaxInt64 || iters < 1 || iters > 1e15 || !timeOK(secs*1e9) ||
		size != math.Trunc(size) || iters != math.Trunc(iters) {
		p.fail(f.Name, n, "xfer_size %v, iterations %v, time %v s: want whole sizes and counts and a time above 0", size, iters, secs)
		return
	}
	perIter := total / iters // bytes one iteration moved: size x transfers per iteration
	s := record.Sample{Type: record.TypeSample, Rank: max(f.Rank, 0), Peer: p.peer(f.Rank), Role: "both",
		Size: uint64(size), Iterations: uint64(iters), ElapsedNs: uint64(math.Round(secs * 1e9))}
	if math.Abs(perIter-2*size) < 0.5 { // a ping-pong: a transfer each way per iteration
		s.BytesSent, s.BytesRecv = uint64(size), uint64(size)
	} else {
		p.direct(&s, uint64(math.Round(perIter)))
	}
	it := float64(s.ElapsedNs) / iters
	s.Lat = latOf(it, it, it)
	if p.docs > 1 {
		s.Variant = strconv.Itoa(p.docs)
	}
	p.res.Samples = append(p.res.Samples, s)
	for _, k := range slices.Sorted(maps.Keys(fabtestsValues)) {
		if v, ok := vals[k]; ok {
			name := fabtestsValues[k]
			p.res.Values = append(p.res.Values, record.ToolValue{Size: s.Size, Rank: s.Rank, Peer: s.Peer,
				Variant: s.Variant, Name: name, Value: v, Unit: fabtestsKeys[k]})
		}
	}
}

// peer returns the other rank of a pair, or -1.
func (p *fabtestsParser) peer(rank int) int {
	if p.ranks == 2 && rank >= 0 {
		return 1 - rank
	}
	return -1
}

// direct sets which way the bytes of a bandwidth test's sample went, from
// the command line of its document: perIter bytes sent by a client, or
// received by a server; sent by both sides of fi_rma_bw's default write,
// read by both sides of its -o read. Without a command line, sent.
func (p *fabtestsParser) direct(s *record.Sample, perIter uint64) {
	args := strings.Fields(p.cmd)
	op, client := fabtestsArgs(args)
	both := len(args) > 0 && strings.HasSuffix(args[0], "rma_bw") && (op == "write" || op == "read")
	switch {
	case both && op == "read":
		s.BytesRecv, s.Role = perIter, "initiator"
	case both || client || len(args) == 0:
		s.BytesSent, s.Role = perIter, "initiator"
	default:
		s.BytesRecv, s.Role = perIter, "target"
	}
}

// fabtestsValued are fabtests' options that take a value in the next
// argument (include/shared.h: ADDR_OPTS, FAB_OPTS, HMEM_OPTS, INFO_OPTS,
// CS_OPTS, API_OPTS; benchmarks/benchmark_shared.h: BENCHMARK_OPTS), and
// its long options with a value. -b and -E take theirs attached, if any.
var fabtestsValued = map[string]bool{
	"-B": true, "-P": true, "-s": true, "-a": true, "-C": true, "-F": true, "-f": true, "-d": true, "-p": true,
	"-D": true, "-i": true, "-e": true, "-M": true, "-I": true, "-S": true, "-c": true, "-t": true, "-w": true,
	"-o": true, "-j": true, "-W": true, "-T": true, "--pin-core": true, "--timeout": true,
}

// fabtestsArgs reads a fabtests command line: the value of -o ("write"
// when it has none), and whether it names a server's address (a client).
func fabtestsArgs(args []string) (op string, client bool) {
	op = "write"
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case fabtestsValued[a] && i+1 < len(args):
			if a == "-o" {
				op = args[i+1]
			}
			i++
		case strings.HasPrefix(a, "-o") && len(a) > 2:
			op = a[2:]
		case !strings.HasPrefix(a, "-"):
			client = true
		}
	}
	return op, client
}
