package harness

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"efaxx/bytesize"
	"efaxx/lineerr"
	"efaxx/results"
	"efaxx/tomldoc"
)

// Expect is one [[expect]] table of a sweep file: a reference for a metric
// where the runs match, with a tolerance band. efaxx check judges stored
// runs against it.
//
//	[[expect]]
//	name   = "one EFA at line rate"        # optional, for the report
//	where  = { benchmark = "write", provider = "efa", size = ">= 64MiB" }
//	metric = "gbps"                        # default gbps
//	stat   = "median"                      # median (default), min, max, mean or p99, across ranks
//	min    = 95                            # and/or max = ..., or ref = 97 with tolerance = "3%"
type Expect struct {
	Name   string // the name key; "" when absent
	File   string // the sweep file and
	Line   int    // the line of the table's first key
	Where  Where
	Metric results.Metric
	Stat   string // median, min, max, mean or p99

	// Lo and Hi bound the value, inclusive; -Inf and +Inf when unbounded.
	// A ref with a tolerance bounds one side, the bad side of the metric.
	Lo, Hi float64
	Bound  string // the bound as the file gave it, for the report: ">= 95", "97 - 3%"
}

// Where says which runs and sizes an Expect is about. Every key set must
// match.
type Where struct {
	Benchmarks []string         // one of these; nil for any
	Params     map[string][]any // each param one of its values, as Point.Params stores them
	Sizes      []SizeCond       // each condition must hold; nil for any size
}

// SizeCond is one condition on the message size: Op is "==", "<", "<=",
// ">" or ">=".
type SizeCond struct {
	Op   string
	Size uint64
}

// stats are the aggregates across ranks an expectation may judge.
var stats = []string{"median", "min", "max", "mean", "p99"}

// expectKeys are the keys of an [[expect]] table.
var expectKeys = []string{"name", "where", "metric", "stat", "min", "max", "ref", "tolerance"}

// Matches reports whether the run of benchmark with params (as stored,
// JSON-decoded) at size is one e is about.
func (w Where) Matches(benchmark string, params map[string]any, size uint64) bool {
	if w.Benchmarks != nil && !slices.Contains(w.Benchmarks, benchmark) {
		return false
	}
	for name, values := range w.Params {
		v, ok := params[name]
		if p := paramOf("", name); !ok && p != nil && p.off && p.appliesTo(benchmark) {
			// A run stores an off param only when it is on: without it,
			// the param was at its zero ("0s"), which where may name.
			v, ok = jsonOf(p.field.get(&Point{})), true
		}
		if !ok || !slices.ContainsFunc(values, func(want any) bool { return sameJSON(stored(name, want, benchmark, params), v) }) {
			return false
		}
	}
	for _, c := range w.Sizes {
		if !c.holds(size) {
			return false
		}
	}
	return true
}

// stored is want, a where value of param name, as a run of benchmark with
// params stores it: chunk "auto" (0) as the bytes it gives the run's
// benchmark, strategy and memory (storedChunk).
func stored(name string, want any, bench string, params map[string]any) any {
	if name != "chunk" || want != any(uint64(0)) {
		return want
	}
	strategy, _ := params["strategy"].(string)
	memory, _ := params["memory"].(string)
	return storedChunk(benchmark(bench), strategy, memory, 0)
}

// MatchesRun reports whether any size of the run could match: everything
// but the sizes.
func (w Where) MatchesRun(benchmark string, params map[string]any) bool {
	return Where{Benchmarks: w.Benchmarks, Params: w.Params}.Matches(benchmark, params, 0)
}

// holds reports whether size satisfies c.
func (c SizeCond) holds(size uint64) bool {
	switch c.Op {
	case "<":
		return size < c.Size
	case "<=":
		return size <= c.Size
	case ">":
		return size > c.Size
	case ">=":
		return size >= c.Size
	}
	return size == c.Size
}

// sameJSON reports whether a and b encode to the same JSON: the int 2 and
// the float64 2 a stored run decodes to are the same value.
func sameJSON(a, b any) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && string(ja) == string(jb)
}

// Pass reports whether value is within e's bounds.
func (e *Expect) Pass(value float64) bool { return value >= e.Lo && value <= e.Hi }

// String names e for reports: its name, or file:line.
func (e *Expect) String() string {
	if e.Name != "" {
		return e.Name
	}
	return fmt.Sprintf("%s:%d", e.File, e.Line)
}

// parseSizeCond reads a size condition: ">= 64MiB", "<4KiB", "== 1MiB",
// or a size alone, meaning ==.
func parseSizeCond(s string) (SizeCond, error) {
	t := strings.TrimSpace(s)
	op := "=="
	for _, o := range []string{"<=", ">=", "==", "<", ">"} {
		if rest, ok := strings.CutPrefix(t, o); ok {
			op, t = o, strings.TrimSpace(rest)
			break
		}
	}
	n, err := bytesize.Parse(t)
	if err != nil {
		return SizeCond{}, err
	}
	return SizeCond{Op: op, Size: n}, nil
}

// readTolerance reads a tolerance: "3%" of the reference, or a number in
// the metric's unit. It returns the band's width given the reference.
func readTolerance(raw any, ref float64) (float64, string, error) {
	if s, ok := raw.(string); ok {
		num, isPct := strings.CutSuffix(strings.TrimSpace(s), "%")
		p, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
		if !isPct || err != nil || p < 0 || p >= 100 || math.IsNaN(p) {
			return 0, "", lineerr.Mark(ErrValue, "tolerance %q: want a percentage like \"3%%\" (0 to 100) or a number", s)
		}
		return math.Abs(ref) * p / 100, s, nil
	}
	f, err := tomldoc.Number(raw)
	if err != nil {
		return 0, "", err
	}
	if f < 0 {
		return 0, "", lineerr.Mark(ErrValue, "tolerance %v: want at least 0", f)
	}
	return f, strconv.FormatFloat(f, 'g', -1, 64), nil
}
