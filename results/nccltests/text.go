package nccltests

import (
	"regexp"
	"strconv"
	"strings"

	"efaxx/lineerr"
)

// Header lines the text parser reads; every other '#' line is a comment.
var (
	versionLine = regexp.MustCompile(`^#\s*nccl-tests version (\S+)(?:.*nccl-library=(\d+))?`)
	programLine = regexp.MustCompile(`^#\s*Collective test starting:\s*(\S+)`)
	configLine  = regexp.MustCompile(`^#\s*nThread .*\biters:\s*(\d+)\s+agg iters:\s*(\d+)`)
	deviceLine  = regexp.MustCompile(`^#\s+Rank\s+(\d+)\s+Group\s+(\d+)\s+Pid\s+(\d+)\s+on\s+(\S+)\s+device\s+(\d+)\s+\[([^\]]*)\]\s*(.*)$`)
	wrongLine   = regexp.MustCompile(`^#\s*Out of bounds values\s*:\s*(\d+)`)
	avgLine     = regexp.MustCompile(`^#\s*Avg bus bandwidth\s*:\s*(\S+)`)
	logLine     = regexp.MustCompile(`\bNCCL (INFO|WARN|TRACE)\b`)
)

// preamble is the number of columns before the measurements: size, count,
// type, redop, root.
const preamble = 5

// textParser holds the state of ParseText.
type textParser struct {
	file    string
	res     *Result
	columns []string // a measurement's columns: time algbw busbw #wrong [i_min i_max i_p99 i_cv%]
	errs    lineerr.Errors
}

// ParseText reads the text nccl-tests prints. Lines before the column
// header that are not '#' lines are taken for NCCL's own log and skipped;
// after it, every line must be a row of the table or a '#' line.
func ParseText(file string, data []byte) (*Result, error) {
	p := &textParser{file: file, res: &Result{}}
	for i, line := range strings.Split(string(data), "\n") {
		p.line(i+1, strings.TrimRight(line, "\r"))
	}
	switch {
	case p.columns == nil && len(p.errs) == 0:
		p.fail(0, `no result table: no header line "# size count type redop root time algbw busbw #wrong ..."`)
	case len(p.res.Rows) == 0 && len(p.errs) == 0:
		p.fail(0, "the result table has no rows")
	}
	if len(p.errs) > 0 {
		return nil, p.errs
	}
	return p.res, nil
}

// fail records a problem at line n.
func (p *textParser) fail(n int, format string, args ...any) {
	p.errs = append(p.errs, formatError(p.file, n, format, args...))
}

// line takes line n.
func (p *textParser) line(n int, line string) {
	t := strings.TrimSpace(line)
	switch {
	case t == "":
	case strings.HasPrefix(t, "#"):
		p.comment(n, line)
	case logLine.MatchString(t):
		// NCCL's log, printed before the table or among its rows.
	case p.columns == nil:
		p.res.Unread = append(p.res.Unread, Line{N: n, Text: line})
	default:
		p.row(n, strings.Fields(t))
	}
}

// comment reads the '#' lines that carry facts.
func (p *textParser) comment(n int, line string) {
	r := p.res
	if m := versionLine.FindStringSubmatch(line); m != nil {
		r.Version = m[1]
		r.NCCLVersion, _ = strconv.Atoi(m[2])
	} else if m := programLine.FindStringSubmatch(line); m != nil {
		r.Program = m[1]
	} else if m := configLine.FindStringSubmatch(line); m != nil {
		iters, _ := strconv.Atoi(m[1])
		agg, _ := strconv.Atoi(m[2])
		r.Iterations = iters * max(agg, 1)
	} else if m := deviceLine.FindStringSubmatch(line); m != nil {
		r.Devices = append(r.Devices, device(m))
	} else if m := wrongLine.FindStringSubmatch(line); m != nil {
		r.Wrong, _ = strconv.Atoi(m[1])
		r.WrongLine, r.Complete = n, true
	} else if m := avgLine.FindStringSubmatch(line); m != nil {
		r.AvgBusBw, _ = strconv.ParseFloat(m[1], 64)
	} else if f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "#")); len(f) > preamble && f[0] == "size" && f[1] == "count" {
		p.header(n, f)
	}
}

// device reads the submatches of a deviceLine.
func device(m []string) Device {
	d := Device{Host: m[4], Bus: m[6], Name: strings.TrimSpace(m[7])}
	d.Rank, _ = strconv.Atoi(m[1])
	d.Group, _ = strconv.Atoi(m[2])
	d.Pid, _ = strconv.Atoi(m[3])
	d.Device, _ = strconv.Atoi(m[5])
	return d
}

// header reads the column header: the preamble, then the same columns for
// out of place and for in place, and perhaps a timestamp column.
func (p *textParser) header(n int, f []string) {
	f = f[preamble:]
	if f[len(f)-1] == "timestamp" {
		f = f[:len(f)-1]
	}
	half := len(f) / 2
	if len(f)%2 != 0 || half < 4 || strings.Join(f[:half], " ") != strings.Join(f[half:], " ") ||
		!strings.HasSuffix(f[0], "time") || f[1] != "algbw" || f[2] != "busbw" || f[3] != "#wrong" {
		p.fail(n, "unknown column header %q: want time algbw busbw #wrong, out of place and in place", strings.Join(f, " "))
		return
	}
	p.columns = f[:half]
}

// row reads one row of the table.
func (p *textParser) row(n int, f []string) {
	side := len(p.columns)
	want := preamble + 2*side
	switch len(f) {
	case want, want + 2: // + 2: a timestamp, "2006-01-02 15:04:05"
	case preamble + side, preamble + side + 2: // out of place not run: only in place
	default:
		p.fail(n, "row of %d fields: want %d (size count type redop root, then %s out of place and in place)",
			len(f), want, strings.Join(p.columns, " "))
		return
	}
	r := Row{Line: n, Type: f[2], Redop: f[3]}
	var err error
	if r.Size, err = strconv.ParseUint(f[0], 10, 64); err != nil {
		p.fail(n, "size %q: not a number of bytes", f[0])
		return
	}
	if r.Count, err = strconv.ParseUint(f[1], 10, 64); err != nil {
		p.fail(n, "count %q: not a number", f[1])
		return
	}
	if r.Root, err = strconv.Atoi(f[4]); err != nil {
		p.fail(n, "root %q: not a number", f[4])
		return
	}
	rest := f[preamble:]
	if len(rest) >= 2*side {
		if r.OutOfPlace = p.measure(n, rest[:side]); r.OutOfPlace == nil {
			return
		}
		rest = rest[side:]
	}
	if r.InPlace = p.measure(n, rest[:side]); r.InPlace != nil {
		p.res.Rows = append(p.res.Rows, r)
	}
}

// measure reads the columns of one placement, or fails and returns nil.
func (p *textParser) measure(n int, f []string) *Measure {
	var m Measure
	for i, name := range p.columns {
		if name == "#wrong" && f[i] == "N/A" {
			continue
		}
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil || v < 0 {
			p.fail(n, "%s %q: not a number of at least 0", name, f[i])
			return nil
		}
		switch name {
		case "algbw":
			m.AlgBw = v
		case "busbw":
			m.BusBw = v
		case "#wrong":
			m.Wrong = &v
		case "i_min":
			m.Min = &v
		case "i_max":
			m.Max = &v
		case "i_p99":
			m.P99 = &v
		default: // time or cputime; i_cv% is not kept
			if strings.HasSuffix(name, "time") {
				m.TimeUs = v
			}
		}
	}
	if m.TimeUs <= 0 {
		p.fail(n, "time %g us: want more than 0", m.TimeUs)
		return nil
	}
	return &m
}
