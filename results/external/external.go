// Package external reads what external benchmark programs print, so that
// their runs are stored like efaxx's own: nccl-tests (its text table or
// the JSON of -J), NVSHMEM's perftests (host and device collectives),
// the OSU micro-benchmarks (latency, bandwidth, collectives), fabtests'
// machine-readable lines (-m), the Jacobi solvers of NVIDIA's
// multi-gpu-programming-models, and NVIDIA's nvbandwidth (its text
// matrices).
//
// Each parser turns a run's captured output into samples with the raw
// fields of results/record (bytes, iterations, nanoseconds) and keeps the
// numbers the tool printed, in the tool's own units, as tool values.
// A line a parser does not understand is never dropped in silence: inside
// a result table it fails the run, elsewhere it is reported as a Problem
// with its file and line.
package external

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"efaxx/lineerr"
	"efaxx/results/record"
)

// ErrFormat matches every error about output a parser cannot read.
var ErrFormat = errors.New("not the output the parser reads")

// Input is the output of one run.
type Input struct {
	// Files are what the program wrote: every rank's standard output in
	// rank order, or the one results file the program wrote (Rank -1).
	Files []File

	// Ranks is how many ranks the run launched: 0 when unknown.
	Ranks int

	// Sizes are the message sizes the sweep expects, in bytes: each must
	// have a sample, or the output was cut short (or the program was given
	// other sizes). Nil to check none.
	Sizes []uint64
}

// File is one file of a run's output.
type File struct {
	Name string // for messages: the path as the caller reached it
	Rank int    // the rank whose standard output this is; -1 for a file the program wrote
	Data []byte
}

// Result is what a run's output says.
type Result struct {
	Samples []record.Sample
	Values  []record.ToolValue

	// Failed is not "" when the tool reported that its own check failed
	// (a #wrong count above 0, an OSU validation failure): the run fails
	// with this reason, its samples kept for inspection.
	Failed string

	// Problems are lines outside the results that the parser did not
	// understand: reported, not fatal.
	Problems []*lineerr.Error

	// Fingerprint is what the output says of the tool and the run: its
	// version, devices, iterations, and the unit of every tool value.
	Fingerprint map[string]any
}

// formatError is an error at line n of file (0: the file as a whole)
// that matches ErrFormat.
func formatError(file string, n int, format string, args ...any) *lineerr.Error {
	return &lineerr.Error{File: file, Line: n, Err: lineerr.Mark(ErrFormat, format, args...)}
}

// parser reads the output of one tool.
type parser struct {
	parse  func(in Input) (*Result, error)
	prefix string // of the benchmark names: "nccl"
	trim   func(base string) string
}

// parsers are the parsers by the name a sweep's [external] parser takes.
var parsers = map[string]parser{
	"nccl-tests":  {parse: parseNCCL, prefix: "nccl", trim: func(b string) string { return strings.TrimSuffix(b, "_perf") }},
	"nvshmem":     {parse: parseNVSHMEM, prefix: "nvshmem", trim: func(b string) string { return b }},
	"osu":         {parse: parseOSU, prefix: "osu", trim: func(b string) string { return strings.TrimPrefix(b, "osu_") }},
	"fabtests":    {parse: parseFabtests, prefix: "fabtests", trim: func(b string) string { return strings.TrimPrefix(b, "fi_") }},
	"jacobi":      {parse: parseJacobi, prefix: "jacobi", trim: func(b string) string { return b }},
	"nvbandwidth": {parse: parseNVBandwidth, prefix: "nvbandwidth", trim: func(b string) string { return b }},
}

// Names returns the parsers' names, sorted.
func Names() []string {
	names := make([]string, 0, len(parsers))
	for n := range parsers {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Known reports whether name is a parser.
func Known(name string) bool { _, ok := parsers[name]; return ok }

// Benchmark returns the benchmark name efaxx stores the runs of program
// under, as parser reads it: "nccl:" and the collective for nccl-tests
// ("all_reduce_perf" → "nccl:all_reduce", as efaxx import nccl-tests
// names them), "osu:latency" for osu_latency, "fabtests:rdm_pingpong" for
// fi_rdm_pingpong, "nvshmem:alltoall_on_stream", "jacobi:nccl".
func Benchmark(parserName, program string) string {
	p, ok := parsers[parserName]
	if !ok {
		return "external"
	}
	return p.prefix + ":" + p.trim(filepath.Base(program))
}

// Parse reads in with the parser called name. A result table that does
// not read (a truncated table, an unknown column, a row of the wrong
// shape) gives Errors; a run with no result at all too.
func Parse(name string, in Input) (*Result, error) {
	p, ok := parsers[name]
	if !ok {
		return nil, fmt.Errorf("parser %q: unknown; known: %s", name, strings.Join(Names(), ", "))
	}
	res, err := p.parse(in)
	if err != nil {
		return nil, err
	}
	if len(res.Samples) == 0 {
		return nil, lineerr.Errors{formatError(fileNames(in.Files), 0, "no results: no rank's output holds a result table")}
	}
	if err := checkSizes(in, res); err != nil {
		return nil, err
	}
	return res, nil
}

// checkSizes reports the sizes of in.Sizes that no sample has.
func checkSizes(in Input, res *Result) error {
	have := map[uint64]bool{}
	for _, s := range res.Samples {
		have[s.Size] = true
	}
	var missing []string
	for _, size := range in.Sizes {
		if !have[size] {
			missing = append(missing, strconv.FormatUint(size, 10))
		}
	}
	if missing == nil {
		return nil
	}
	return lineerr.Errors{formatError(fileNames(in.Files), 0, "no result for size %s of the sweep's sizes: "+
		"the output was cut short, or the program measured other sizes", strings.Join(missing, ", "))}
}

// fileNames names the files of a run for a message about all of them.
func fileNames(files []File) string {
	switch len(files) {
	case 0:
		return "(no output files)"
	case 1:
		return files[0].Name
	}
	return files[0].Name + " ... " + filepath.Base(files[len(files)-1].Name)
}
