package harness

import (
	"fmt"
	"slices"
	"strconv"

	"efaxx/benchmarks"
	"efaxx/results"
)

// ParamValue reads text, a parameter's value as a user types it on the
// command line (efaxx runs --param chunk=1MiB), into the form runs store
// it in (Point.Params): sizes in bytes, durations as "60s", integers as
// numbers. A benchmark param is read and checked as a sweep file's value
// is. A name that is not a param of the table, such as a parameter of an
// imported run, is read as an integer or a number when it is one, and is
// kept as text otherwise.
func ParamValue(name, text string) (any, error) {
	var raw any = text
	if n, err := strconv.ParseInt(text, 10, 64); err == nil {
		raw = n
	} else if f, err := strconv.ParseFloat(text, 64); err == nil && !isParam(name) {
		raw = f
	}
	return ParamOf(name, raw)
}

// ParamOf reads v, a parameter's value as a TOML table holds it (a
// string, an integer, a float or a boolean; a figure spec's runs.params),
// into the form runs store it in, as ParamValue reads text: a benchmark
// param as a sweep file's value is, anything else as it is.
func ParamOf(name string, v any) (any, error) {
	for _, p := range params {
		if p.name != name || p.inner {
			continue
		}
		read, err := p.read(v)
		if err != nil {
			return nil, fmt.Errorf("param %s=%v: %w", name, v, err)
		}
		return jsonOf(read), nil
	}
	return v, nil
}

// isParam reports whether name is a benchmark param of the sweep's table.
func isParam(name string) bool {
	return slices.ContainsFunc(params, func(p *param) bool { return p.name == name && !p.inner })
}

// ParamFilter reads a run filter of one parameter, name=text as a user
// types it (efaxx runs --param chunk=1MiB), its value as ParamValue reads
// it. A point stores chunk "auto" as the bytes it resolves to
// (storedChunk), so chunk=auto selects the runs whose chunk is the one
// "auto" gives their benchmark and strategy.
func ParamFilter(name, text string) (results.ParamFilter, error) {
	v, err := ParamValue(name, text)
	if err != nil {
		return results.ParamFilter{}, err
	}
	return FilterOf(name, v), nil
}

// FilterOf is the run filter of parameter name at v, a value in the form
// runs store it in (ParamValue, ParamOf).
func FilterOf(name string, v any) results.ParamFilter {
	if name == "chunk" && v == any(uint64(0)) {
		return results.ParamFilter{Key: name, Cases: autoChunks()}
	}
	return results.ParamFilter{Key: name, Value: v}
}

// autoChunks are the chunks "auto" resolves to, one case for each
// benchmark that takes a chunk (each takes a strategy too), each strategy
// it can use and, where it takes one, each memory.
func autoChunks() []results.ParamCase {
	var cases []results.ParamCase
	takes := func(b benchmarks.Benchmark) bool { return b.Takes("chunk") }
	for _, name := range benchmarks.Names(takes) {
		b := benchmark(name)
		memories := []string{""}
		if b.Takes("memory") {
			memories = benchmarks.Memories
		}
		for _, st := range benchmarks.Strategies {
			for _, m := range memories {
				if b.CheckStrategy(st) != nil {
					continue
				}
				params := []results.ParamFilter{{Key: "strategy", Value: st}}
				if m != "" {
					params = append(params, results.ParamFilter{Key: "memory", Value: m})
				}
				cases = append(cases, results.ParamCase{Benchmark: name, Params: append(params,
					results.ParamFilter{Key: "chunk", Value: storedChunk(b, st, m, 0)})})
			}
		}
	}
	return cases
}
