package harness

import (
	"fmt"
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
	}
	for _, p := range params {
		if p.name != name || p.inner {
			continue
		}
		v, err := p.read(raw)
		if err != nil {
			return nil, fmt.Errorf("param %s=%s: %w", name, text, err)
		}
		return jsonOf(v), nil
	}
	if f, err := strconv.ParseFloat(text, 64); err == nil && raw == any(text) {
		return f, nil
	}
	return raw, nil
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
	if name == "chunk" && v == any(uint64(0)) {
		return results.ParamFilter{Key: name, Cases: autoChunks()}, nil
	}
	return results.ParamFilter{Key: name, Value: v}, nil
}

// autoChunks are the chunks "auto" resolves to, one case for each
// benchmark that takes a chunk (each takes a strategy too) and each
// strategy it can use.
func autoChunks() []results.ParamCase {
	var cases []results.ParamCase
	takes := func(b benchmarks.Benchmark) bool { return b.Takes("chunk") }
	for _, name := range benchmarks.Names(takes) {
		b := benchmark(name)
		for _, st := range benchmarks.Strategies {
			if b.CheckStrategy(st) == nil {
				cases = append(cases, results.ParamCase{Benchmark: name, Params: []results.ParamFilter{
					{Key: "strategy", Value: st}, {Key: "chunk", Value: storedChunk(b, st, 0)}}})
			}
		}
	}
	return cases
}
