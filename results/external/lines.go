package external

import (
	"math"
	"regexp"
	"strconv"
	"strings"

	"efaxx/lineerr"
)

// maxShown bounds how much of a line a message quotes.
const maxShown = 120

// logLine matches the log lines NCCL and NVSHMEM interleave with a tool's
// output ("host:pid:tid [0] NCCL INFO ..."): known, never results.
var logLine = regexp.MustCompile(`\b(NCCL|NVSHMEM) (INFO|WARN|TRACE|ERROR|VERSION)\b`)

// lines splits data into its lines, without line ends. A last line that
// does not end in a newline is reported as cut: every tool here ends each
// line it prints, so a missing end means the output was cut short.
func lines(data []byte) (out []string, cut bool) {
	s := string(data)
	if s == "" {
		return nil, false
	}
	cut = !strings.HasSuffix(s, "\n")
	out = strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i, l := range out {
		out[i] = strings.TrimSuffix(l, "\r")
	}
	return out, cut
}

// sink collects the errors and problems of one parse.
type sink struct {
	errs     lineerr.Errors
	problems []*lineerr.Error
}

// fail records an error that fails the parse.
func (s *sink) fail(file string, line int, format string, args ...any) {
	s.errs = append(s.errs, formatError(file, line, format, args...))
}

// unknown records a line the parser does not understand, outside the
// results: a problem to report, not an error.
func (s *sink) unknown(file string, line int, text string) {
	s.problems = append(s.problems, formatError(file, line, "line not understood: %s", quote(text)))
}

// err returns the errors, or nil without any.
func (s *sink) err() error {
	if len(s.errs) == 0 {
		return nil
	}
	return s.errs
}

// quote quotes text for a message, shortened past maxShown bytes.
func quote(text string) string {
	if len(text) > maxShown {
		text = text[:maxShown] + "..."
	}
	return strconv.Quote(text)
}

// number reads a finite number of at least 0.
func number(s string) (float64, bool) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, false
	}
	return v, true
}

// nsOf converts microseconds to nanoseconds, rounded, at least 1.
func nsOf(us float64) uint64 { return uint64(math.Max(1, math.Round(us*1e3))) }

// maxNs bounds a time in nanoseconds that the store takes: elapsed_ns is
// a signed 64-bit integer, and no benchmark runs for 100 years.
const maxNs = 1 << 62

// timeOK reports whether ns fits the store.
func timeOK(ns float64) bool { return ns >= 1 && ns < maxNs }
