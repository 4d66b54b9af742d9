// Package nccltests reads the output of NVIDIA's nccl-tests (all_reduce_perf
// and its siblings): the text table they print and the JSON file -J writes,
// as laid out by nccl-tests' src/util.cu. efaxx import nccl-tests stores what
// it reads as runs, so that these results join efaxx's queries and figures.
package nccltests

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"efaxx/lineerr"
)

// ErrFormat matches every error about a file that is not nccl-tests output.
var ErrFormat = errors.New("not nccl-tests output")

// Result is one nccl-tests output file.
type Result struct {
	Program     string   // the test binary, as "all_reduce_perf"; "" when the file does not say
	Version     string   // nccl-tests version; "" when the file does not say
	NCCLVersion int      // NCCL's version code; 0 when the file does not say
	Args        []string // the command line (JSON only)
	Start       string   // start time as written, local time (JSON only)
	Iterations  int      // timed iterations per size; 0 when the file does not say
	Devices     []Device
	Rows        []Row
	Wrong       int     // the "Out of bounds values" count
	WrongLine   int     // its line (text); 0 in JSON
	AvgBusBw    float64 // the "Avg bus bandwidth", GB/s

	// Complete reports that the output ran to its end: the text's
	// "# Out of bounds values" footer was read, or the file is JSON, which
	// does not decode when cut short.
	Complete bool

	// Unread are the text's lines before the table that are neither '#'
	// lines nor NCCL's log, in line order: what the parser skipped
	// without understanding.
	Unread []Line
}

// Line is one line of a file.
type Line struct {
	N    int // 1-based
	Text string
}

// Collective returns the collective the file measured: the program name
// without its "_perf" suffix, such as "all_reduce".
func (r *Result) Collective() string { return strings.TrimSuffix(r.Program, "_perf") }

// Device is one "#  Rank N Group G Pid P on HOST device D [BUS] NAME" line.
type Device struct {
	Rank, Group, Pid, Device int
	Host, Bus, Name          string
}

// Row is one message size: the preamble columns and the measurements out
// of place and in place, either nil when the test did not run it.
type Row struct {
	Line        int // 1-based line (text) or the line of the entry (JSON)
	Size, Count uint64
	Type, Redop string
	Root        int
	Iterations  int // actual iterations (JSON); 0 when the file does not say
	OutOfPlace  *Measure
	InPlace     *Measure
}

// Measure is one placement of one size.
type Measure struct {
	TimeUs float64  // mean time of one operation, us
	AlgBw  float64  // algorithm bandwidth, GB/s: bytes / time
	BusBw  float64  // bus bandwidth, GB/s: AlgBw times the collective's factor
	Wrong  *float64 // elements that failed the data check; nil when not checked

	// Per-iteration times in us, printed with -R (per-iteration timing);
	// nil otherwise. P50 is in the JSON only.
	Min, Max, P99, P50 *float64
}

// OutOfBounds returns why the file says nccl-tests' data check failed,
// as file:line and the footer, or "" when it did not. nccl-tests counts
// every failed check there, those of rows that a run leaves out (a
// repeated size, Group) included.
func (r *Result) OutOfBounds(file string) string {
	if r.Wrong == 0 {
		return ""
	}
	where := file
	if r.WrongLine > 0 {
		where += ":" + strconv.Itoa(r.WrongLine)
	}
	return fmt.Sprintf("%s: nccl-tests data check: %q", where, fmt.Sprintf("# Out of bounds values : %d FAILED", r.Wrong))
}

// formatError is an error at line n of file (0: the file as a whole)
// that matches ErrFormat.
func formatError(file string, n int, format string, args ...any) *lineerr.Error {
	return &lineerr.Error{File: file, Line: n, Err: lineerr.Mark(ErrFormat, format, args...)}
}

// Parse reads a file of either form: JSON when its first non-blank byte
// is '{', the text table otherwise. An invalid file gives Errors.
func Parse(file string, data []byte) (*Result, error) {
	if t := strings.TrimSpace(string(data)); strings.HasPrefix(t, "{") {
		return ParseJSON(file, data)
	}
	return ParseText(file, data)
}
