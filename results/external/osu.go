package external

import (
	"math"
	"regexp"
	"strconv"
	"strings"

	"efaxx/results/record"
)

// The OSU micro-benchmarks (OMB 7.x, c/util/osu_util_mpi.c print_header,
// print_only_header, print_stats) print from rank 0 a title, a
// "# Datatype:" line per datatype, a "# Size" column header and a row per
// size, "%-10d" then each column in FIELD_WIDTH characters ("%*.2f": 20 by
// the headers' default, 18 as configure defines it); OMB 5.x the same
// without "# Datatype:" (testdata/osu holds both, recorded):
//
//	# OSU MPI Latency Test v7.4
//	# Size          Latency (us)
//	# Datatype: MPI_CHAR.
//	1                       1.52
//
// osu_latency's Latency is one way, half the mean round trip, in us;
// Bandwidth (MB/s) is size x window x iterations / time in 1e6 B/s (both
// directions for osu_bibw); a collective's Avg Latency(us) is the mean
// over ranks of one operation's time, and -f adds Min, Max and Iterations.

// osuColumn is a column an OSU header may hold.
type osuColumn struct {
	re    *regexp.Regexp // matches the column's title at the start of the rest of the header
	value string         // the tool value it keeps; "" for none
	unit  string
}

var osuColumns = []osuColumn{
	{regexp.MustCompile(`^Avg Latency\(us\)`), "avg_latency", "us"},
	{regexp.MustCompile(`^Min Latency\(us\)`), "min_latency", "us"},
	{regexp.MustCompile(`^Max Latency\(us\)`), "max_latency", "us"},
	{regexp.MustCompile(`^Latency \(us\)`), "latency", "us, one way: half the mean round trip"},
	{regexp.MustCompile(`^Bandwidth \(MB/s\)`), "bandwidth", "MB/s (1e6 B/s)"},
	{regexp.MustCompile(`^MB/s`), "bandwidth", "MB/s (1e6 B/s)"},
	{regexp.MustCompile(`^Messages/s`), "message_rate", "messages/s"},
	{regexp.MustCompile(`^Iterations`), "iterations", "count"},
	{regexp.MustCompile(`^Validation`), "", ""},
	{regexp.MustCompile(`^P(\d+) Tail Lat\(us\)`), "p%s_latency", "us"},
	{regexp.MustCompile(`^P(\d+) Tail BW\(MB/s\)`), "p%s_bandwidth", "MB/s (1e6 B/s)"},
	{regexp.MustCompile(`^Transmit Size`), "transmit_size", "bytes"},
}

var (
	osuTitle    = regexp.MustCompile(`^# OSU (MPI|OpenSHMEM|UPC|UPC\+\+|NCCL)(-\S+)? (.*?) Test( v(\S+))?( \(.*\))?\s*$`)
	osuDatatype = regexp.MustCompile(`^# Datatype: (\S+?)\.?\s*$`)
	osuNoise    = []*regexp.Regexp{
		regexp.MustCompile(`^# (Send Buffer on|Rank 0 Memory on|Window creation:|Synchronization:|Set Derived DataTypes|Overall = |\[ pairs: )`),
		regexp.MustCompile(`^Warning! Limiting max message size to`),
	}
	osuValidationError = regexp.MustCompile(`^DATA VALIDATION ERROR: `)
)

// osuTable is the header of the table being read.
type osuTable struct {
	names  []string // each column's value name ("" for Validation)
	units  []string
	kind   string // latency, bandwidth or collective: the first column's
	bidir  bool   // osu_bibw: bandwidth counts both directions
	header string
}

// osuParser holds the state of one parse.
type osuParser struct {
	sink
	res       *Result
	ranks     int
	title     string
	version   string
	datatype  string
	datatypes map[string]bool
	table     *osuTable
}

// parseOSU reads the output of an OSU micro-benchmark (see above).
func parseOSU(in Input) (*Result, error) {
	p := &osuParser{res: &Result{}, ranks: in.Ranks, datatypes: map[string]bool{}}
	for _, f := range in.Files {
		p.file(f)
	}
	if len(p.datatypes) <= 1 {
		clearVariants(p.res)
	}
	p.res.Problems = p.problems
	p.res.Fingerprint = map[string]any{"tool": "osu-micro-benchmarks", "test": p.title, "version": p.version,
		"units": map[string]string{"latency": "us, one way (half the round trip)", "avg_latency": "us, mean over ranks",
			"bandwidth": "MB/s (1e6 B/s)"}}
	return p.res, p.err()
}

// clearVariants drops the datatype from the samples and values of a run
// that measured one datatype only.
func clearVariants(res *Result) {
	for i := range res.Samples {
		res.Samples[i].Variant = ""
	}
	for i := range res.Values {
		res.Values[i].Variant = ""
	}
}

// file reads one rank's output.
func (p *osuParser) file(f File) {
	ls, cut := lines(f.Data)
	if cut {
		p.fail(f.Name, len(ls), "the last line has no end: the output was cut short")
	}
	p.table = nil
	for i, l := range ls {
		p.line(f, i+1, l)
	}
}

// line reads line n of f.
func (p *osuParser) line(f File, n int, l string) {
	t := strings.TrimSpace(l)
	switch {
	case t == "" || logLine.MatchString(t):
	case strings.HasPrefix(t, "# Size"):
		p.header(f, n, strings.TrimSpace(strings.TrimPrefix(t, "# Size")))
	case strings.HasPrefix(t, "#"):
		p.comment(f, n, t)
	case t[0] >= '0' && t[0] <= '9' && p.table != nil:
		p.row(f, n, strings.Fields(t))
	case osuValidationError.MatchString(t):
		if p.res.Failed == "" {
			p.res.Failed = f.Name + ":" + strconv.Itoa(n) + ": " + t
		}
	default:
		p.noise(f, n, t)
	}
}

// comment reads a '#' line that is not the column header.
func (p *osuParser) comment(f File, n int, t string) {
	if m := osuTitle.FindStringSubmatch(t); m != nil {
		p.title, p.version = m[3], m[5]
		return
	}
	if m := osuDatatype.FindStringSubmatch(t); m != nil {
		p.datatype = m[1]
		p.datatypes[m[1]] = true
		return
	}
	p.noise(f, n, t)
}

// noise accepts the known lines that hold no result and reports the rest.
func (p *osuParser) noise(f File, n int, t string) {
	for _, re := range osuNoise {
		if re.MatchString(t) {
			return
		}
	}
	p.unknown(f.Name, n, t)
}

// header reads the columns after "# Size".
func (p *osuParser) header(f File, n int, rest string) {
	p.table = nil
	tb := &osuTable{header: rest, bidir: strings.Contains(p.title, "Bi-Directional")}
	for rest != "" {
		c, name, next, ok := matchOSUColumn(rest)
		if !ok {
			p.fail(f.Name, n, "unknown column at %s: want Latency (us), Avg/Min/Max Latency(us), Bandwidth (MB/s), "+
				"MB/s, Messages/s, Iterations, Validation, Pn Tail Lat(us), Transmit Size", quote(rest))
			return
		}
		tb.names, tb.units = append(tb.names, name), append(tb.units, c.unit)
		rest = next
	}
	switch {
	case len(tb.names) == 0:
		p.fail(f.Name, n, "a header without columns")
		return
	case tb.names[0] == "latency":
		tb.kind = "latency"
	case tb.names[0] == "bandwidth":
		tb.kind = "bandwidth"
	case tb.names[0] == "avg_latency":
		tb.kind = "collective"
	default:
		p.fail(f.Name, n, "first column %s: want a latency or a bandwidth", quote(tb.names[0]))
		return
	}
	p.table = tb
}

// matchOSUColumn matches the column at the start of rest and returns it,
// the value name, and what follows it.
func matchOSUColumn(rest string) (osuColumn, string, string, bool) {
	for _, c := range osuColumns {
		if m := c.re.FindStringSubmatch(rest); m != nil {
			name := c.value
			if len(m) > 1 {
				name = strings.Replace(name, "%s", m[1], 1)
			}
			return c, name, strings.TrimSpace(rest[len(m[0]):]), true
		}
	}
	return osuColumn{}, "", "", false
}

// row reads one row of the table.
func (p *osuParser) row(f File, n int, fields []string) {
	tb := p.table
	if len(fields) != 1+len(tb.names) {
		p.fail(f.Name, n, "row of %d fields: want %d (Size %s)", len(fields), 1+len(tb.names), tb.header)
		p.table = nil
		return
	}
	size, err := strconv.ParseUint(fields[0], 10, 64)
	if err != nil || size > math.MaxInt64 {
		p.fail(f.Name, n, "size %q: not a number of bytes", fields[0])
		return
	}
	vals := map[string]float64{}
	for i, name := range tb.names {
		if !p.cell(f, n, name, fields[1+i], vals) {
			return
		}
	}
	p.add(f, n, size, vals)
}

// cell reads one cell of a row into vals; Validation "Fail" fails the run.
func (p *osuParser) cell(f File, n int, name, s string, vals map[string]float64) bool {
	if name == "" {
		switch s {
		case "Pass":
		case "Fail":
			if p.res.Failed == "" {
				p.res.Failed = f.Name + ":" + strconv.Itoa(n) + ": OSU validation failed"
			}
		default:
			p.fail(f.Name, n, "validation %q: want Pass or Fail", s)
			return false
		}
		return true
	}
	v, ok := number(s)
	if !ok {
		p.fail(f.Name, n, "%s %q: not a number of at least 0", name, s)
		return false
	}
	vals[name] = v
	return true
}

// add stores the sample and tool values of one row.
func (p *osuParser) add(f File, n int, size uint64, vals map[string]float64) {
	s, ok := p.sample(size, vals)
	if !ok || !timeOK(float64(s.ElapsedNs)) {
		p.fail(f.Name, n, "size %d: %s of %v gives no time: want more than 0", size, p.table.names[0], vals[p.table.names[0]])
		return
	}
	s.Variant = p.datatype
	p.res.Samples = append(p.res.Samples, s)
	for i, name := range p.table.names {
		if v, ok := vals[name]; ok {
			p.res.Values = append(p.res.Values, record.ToolValue{Size: size, Rank: s.Rank, Peer: s.Peer,
				Variant: p.datatype, Name: name, Value: v, Unit: p.table.units[i]})
		}
	}
}

// sample converts a row into a sample. OSU prints means, not counts: a
// sample holds one mean iteration (iterations 1) unless -f printed them.
func (p *osuParser) sample(size uint64, vals map[string]float64) (record.Sample, bool) {
	s := record.Sample{Type: record.TypeSample, Size: size, Iterations: 1}
	switch p.table.kind {
	case "latency": // OSU's latency is one way, half the mean round trip: one trip of size bytes
		ns := vals["latency"] * 1e3
		s.Rank, s.Peer, s.Role, s.BytesSent = 0, 1, "initiator", size
		s.ElapsedNs, s.Lat = roundNs(ns), latOf(ns, ns, ns)
	case "bandwidth": // the time size bytes took at the bandwidth
		bw := vals["bandwidth"]
		if bw <= 0 {
			return s, false
		}
		s.Rank, s.Peer, s.Role, s.BytesSent = 0, 1, "initiator", size
		moved := float64(size)
		if p.table.bidir {
			s.BytesRecv, moved = size, 2*float64(size)
		}
		ns := moved * 1e3 / bw
		s.ElapsedNs, s.Lat = roundNs(ns), latOf(ns, ns, ns)
	default:
		p.collective(&s, size, vals)
	}
	return s, s.ElapsedNs > 0
}

// collective fills a collective's sample: every rank's mean, so rank -1.
// An all-to-all moves size bytes to and from each other rank.
func (p *osuParser) collective(s *record.Sample, size uint64, vals map[string]float64) {
	s.Rank, s.Peer, s.Role, s.BytesSent = -1, -1, "all", size
	if strings.Contains(p.title, "All-to-All") && p.ranks > 1 {
		s.BytesSent, s.BytesRecv = size*uint64(p.ranks-1), size*uint64(p.ranks-1)
	}
	if it, ok := vals["iterations"]; ok && it >= 1 && it < 1e12 {
		s.Iterations = uint64(it)
	}
	avg := vals["avg_latency"] * 1e3
	lo, hi := avg, avg
	if v, ok := vals["min_latency"]; ok {
		lo = v * 1e3
	}
	if v, ok := vals["max_latency"]; ok {
		hi = v * 1e3
	}
	s.ElapsedNs, s.Lat = roundNs(avg*float64(s.Iterations)), latOf(lo, avg, hi)
}

// roundNs rounds a positive time in ns; 0 for none.
func roundNs(ns float64) uint64 {
	if !timeOK(ns) {
		return 0
	}
	return uint64(math.Round(ns))
}

// latOf makes per-iteration times from the minimum, mean and maximum: the
// mean stands for the median and the 99th percentile, which the tools do
// not print.
func latOf(lo, mean, hi float64) record.Lat {
	n := func(x float64) uint64 { return uint64(math.Max(1, math.Round(math.Min(x, maxNs)))) }
	return record.Lat{Min: n(lo), P50: n(mean), P99: n(mean), Max: n(hi)}
}
