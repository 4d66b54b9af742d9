package harness

import (
	"errors"
	"fmt"
	"reflect"
	"time"

	"efaxx/benchmarks"
	"efaxx/lineerr"
	"efaxx/tomldoc"
)

// param is one key of [params]: its name, its default, how one value is read
// and checked, and where the resolved value goes in a Point.
type param struct {
	name string
	def  any    // the default, as TOML decodes it from a sweep file; nil when the key is required
	read reader // reads and checks one value

	// inner marks the param whose list is the inner loop of one point
	// (sizes): the list is one value, not an axis, and a "MIN..MAX xN"
	// string stands for a list. Inner params are left out of Point.Params.
	inner bool

	flag  string // efaxx-runner flag; "" when the launcher, not the runner, takes it
	field field  // the Point field that holds the value

	// off marks a param whose zero value (its default) turns a feature
	// off: at zero it is left out of a point's params, hash and runner
	// arguments, so that points that do not use it keep their hashes.
	off bool

	// table is the table of the sweep file that holds the key: "" for
	// [params], "slurm" for [slurm] (the launcher's, such as nodes).
	table string
}

// params is the table of [params] keys, in expansion order: a list-valued
// param varies faster than the params above it. A new param is a new row
// here and a new field in Point; which benchmarks take it is the
// benchmarks table's to say (a key it does not name applies to all).
var params = []*param{
	{name: "provider", def: "auto", read: readString(oneOf("provider", "auto", "shm", "tcp", "efa")),
		flag: "--provider", field: bind(func(p *Point) *string { return &p.Provider })},
	{name: "ranks", def: int64(2), read: readInt(1, 65536),
		field: bind(func(p *Point) *int { return &p.Ranks })},
	{name: "nodes", table: "slurm", def: int64(1), read: readInt(1, 65536),
		field: bind(func(p *Point) *int { return &p.Nodes })},
	{name: "sizes", def: "4KiB..4MiB", read: readSize, inner: true,
		flag: "--sizes", field: bind(func(p *Point) *[]uint64 { return &p.Sizes })},
	{name: "iterations", def: int64(100), read: readInt(1, benchmarks.MaxIterations),
		flag: "--iterations", field: bind(func(p *Point) *int { return &p.Iterations })},
	{name: "duration", def: "0s", read: readDurationOff(24 * time.Hour), off: true,
		flag: "--duration", field: bind(func(p *Point) *time.Duration { return &p.Duration })},
	{name: "warmup", def: int64(10), read: readInt(0, benchmarks.MaxIterations),
		flag: "--warmup", field: bind(func(p *Point) *int { return &p.Warmup })},
	{name: "timeout", def: "60s", read: readDuration(24 * time.Hour),
		flag: "--timeout", field: bind(func(p *Point) *time.Duration { return &p.Timeout })},
	{name: "chunk", def: "auto", read: readChunk,
		flag: "--chunk", field: bind(func(p *Point) *uint64 { return &p.Chunk })},
	{name: "window", def: int64(16), read: readInt(1, 4096),
		flag: "--window", field: bind(func(p *Point) *int { return &p.Window })},
	{name: "slots", def: int64(64), read: readSlots,
		flag: "--slots", field: bind(func(p *Point) *int { return &p.Slots })},
	{name: "rails", def: int64(1), read: readInt(1, 16),
		flag: "--rails", field: bind(func(p *Point) *int { return &p.Rails })},
	{name: "strategy", def: "single", read: readString(oneOf("strategy", benchmarks.Strategies...)),
		flag: "--strategy", field: bind(func(p *Point) *string { return &p.Strategy })},
	{name: "nics", def: "auto", read: readString(nonEmpty("nics")),
		flag: "--nic", field: bind(func(p *Point) *string { return &p.NICs })},
	{name: "pinning", def: "numa", read: readString(oneOf("pinning", "numa", "none")),
		flag: "--pin", field: bind(func(p *Point) *string { return &p.Pinning })},
	{name: "memory", def: "host", read: readString(memoryKind),
		flag: "--memory", field: bind(func(p *Point) *string { return &p.Memory })},
	{name: "link_gbps", def: int64(0), read: readGbps,
		flag: "--link-gbps", field: bind(func(p *Point) *float64 { return &p.LinkGbps })},
	{name: "launch", def: "auto", read: readString(checkLaunch),
		flag: "--launch", field: bind(func(p *Point) *string { return &p.Launch })},
	{name: "direction", def: "push", read: readString(oneOf("direction", "push", "pull", "bidir")),
		flag: "--direction", field: bind(func(p *Point) *string { return &p.Direction })},
	{name: "schedule", def: "at-once", read: readString(oneOf("schedule", "at-once", "shifted")),
		flag: "--schedule", field: bind(func(p *Point) *string { return &p.Schedule })},
	{name: "cells", def: "pinned", read: readString(oneOf("cells", "pinned", "managed", "device", "host")),
		flag: "--cells", field: bind(func(p *Point) *string { return &p.Cells })},
	{name: "mode", def: "nbi", read: readString(oneOf("mode", "nbi", "blocking")),
		flag: "--mode", field: bind(func(p *Point) *string { return &p.Mode })},
	{name: "producer", def: "gpu", read: readString(oneOf("producer", "gpu", "cpu")),
		flag: "--producer", field: bind(func(p *Point) *string { return &p.Producer })},
	{name: "producers", def: int64(1), read: readInt(1, 1<<20),
		flag: "--producers", field: bind(func(p *Point) *int { return &p.Producers })},
}

// memoryKind accepts the buffer memory kinds: host, pinned (host memory
// registered with CUDA; needs the CUDA plugin where it runs) and device
// (GPU memory; needs a provider with FI_HMEM, checked where it runs).
func memoryKind(s string) error { return oneOf("memory", benchmarks.Memories...)(s) }

// readSlots reads slots: the most buffers a target cuts for one sender's
// iterations, a power of two up to 64 (the runner's limit).
func readSlots(raw any) (any, error) {
	v, err := readInt(1, 64)(raw)
	if err != nil {
		return nil, err
	}
	if n := v.(int); n&(n-1) != 0 {
		return nil, lineerr.Mark(ErrValue, "%d is not a power of two: want 1, 2, 4, 8, 16, 32 or 64", n)
	}
	return v, nil
}

// readChunk reads chunk: a size, or "auto" (0 here), which Points
// resolves per point to its benchmark's default (benchmarks.DefaultChunk).
func readChunk(raw any) (any, error) {
	if raw == "auto" {
		return uint64(0), nil
	}
	return readSize(raw)
}

// storedChunk is the chunk a point of benchmark b under strategy, its
// buffers in memory, stores and hashes for chunk, as readChunk reads it:
// "auto" (0) as the bytes it resolves to, so that it and the same bytes
// written out are one point.
func storedChunk(b benchmarks.Benchmark, strategy, memory string, chunk uint64) uint64 {
	if chunk == 0 {
		return b.DefaultChunk(strategy, memory)
	}
	return chunk
}

// nonEmpty accepts any string but the empty one.
func nonEmpty(what string) func(string) error {
	return func(s string) error {
		if s == "" {
			return lineerr.Mark(ErrValue, "%s is empty: name NICs (\"nic0,nic1\"), a pattern (\"nic*\"), or \"auto\"", what)
		}
		return nil
	}
}

// readGbps reads a link speed in Gbps: a number >= 0, 0 meaning the
// speed the provider reports.
func readGbps(raw any) (any, error) {
	var v float64
	switch n := raw.(type) {
	case int64:
		v = float64(n)
	case float64:
		v = n
	default:
		return nil, tomldoc.TypeError("number of Gbps", raw)
	}
	if v < 0 || v > 1e6 || v != v {
		return nil, lineerr.Mark(ErrValue, "%v Gbps is out of range: want 0 (the provider's speed) up to 1e6", v)
	}
	if v == 0 {
		v = 0 // -0 too, which would hash apart from 0 and reach the runner as "-0"
	}
	return v, nil
}

// benchmarkParam is the top-level benchmark key. It reads like a param and is
// the outermost axis of the expansion.
var benchmarkParam = &param{
	name: "benchmark", read: readString(oneOf("benchmark", benchmarks.Names(nil)...)),
	flag: "--benchmark", field: bind(func(p *Point) *string { return &p.Benchmark }),
}

// appliesTo reports whether p is a param of benchmark b. Params that do not
// apply are left out of a point's params, hash and runner arguments.
func (p *param) appliesTo(b string) bool { return benchmark(b).Takes(p.name) }

// in reports whether p goes into point's params, hash and runner
// arguments: it applies to the point's benchmark and, if it is an off
// param, is not at its zero value.
func (p *param) in(point *Point) bool {
	return p.appliesTo(point.Benchmark) && !(p.off && reflect.ValueOf(p.field.get(point)).IsZero())
}

// axes returns every param that can be an axis, outermost first.
func axes() []*param { return append([]*param{benchmarkParam}, params...) }

// paramNames returns the names of the params of a table ("" for
// [params]), for lookups and suggestions.
func paramNames(table string) []string {
	var names []string
	for _, p := range params {
		if p.table == table {
			names = append(names, p.name)
		}
	}
	return names
}

// paramOf returns the param of table named name, or nil.
func paramOf(table, name string) *param {
	for _, p := range params {
		if p.table == table && p.name == name {
			return p
		}
	}
	return nil
}

// field gets and sets one field of a Point through its resolved value.
type field struct {
	get func(p *Point) any
	set func(p *Point, v any)
}

// bind makes the field whose address ptr returns. Values that are slices are
// copied on the way in, so points never share them.
func bind[T any](ptr func(p *Point) *T) field {
	return field{
		get: func(p *Point) any { return *ptr(p) },
		set: func(p *Point, v any) {
			if s, ok := v.([]uint64); ok {
				v = append([]uint64(nil), s...)
			}
			*ptr(p) = v.(T)
		},
	}
}

// defaults returns the resolved default of p. The defaults are constants of
// the table above, so one that does not read is a bug in this package.
func (p *param) defaults() []any {
	values, errs := p.values(p.def)
	if errs != nil {
		panic(fmt.Sprintf("harness: default of param %q: %v", p.name, errs))
	}
	return values
}

// values reads the TOML value of p. For an axis it returns the values of the
// axis, one for a scalar; for an inner param, one value: the whole list. It
// reports one error per bad item of a list.
func (p *param) values(raw any) ([]any, []error) {
	if s, ok := raw.(string); ok && p.inner && isRange(s) {
		sizes, err := parseRange(s)
		if err != nil {
			return nil, []error{err}
		}
		return []any{sizes}, nil
	}
	vals, errs := p.readList(raw)
	if errs != nil || !p.inner {
		return vals, errs
	}
	if len(vals) > maxSizes {
		return nil, []error{lineerr.Mark(ErrValue, "%d sizes: want at most %d a point "+
			"(they reach the program in one argument, %s)", len(vals), maxSizes, argLimit)}
	}
	sizes := make([]uint64, len(vals))
	for i, v := range vals {
		sizes[i] = v.(uint64)
	}
	return []any{sizes}, nil
}

// readList reads a scalar, or each item of a list, rejecting empty lists and
// values given twice.
func (p *param) readList(raw any) ([]any, []error) {
	list, ok := raw.([]any)
	if !ok {
		v, err := p.read(raw)
		if err != nil {
			return nil, []error{err}
		}
		return []any{v}, nil
	}
	if len(list) == 0 {
		return nil, []error{p.emptyError()}
	}
	var (
		vals []any
		errs []error
		seen = make(map[any]int) // value → index of the item that gave it
	)
	for i, item := range list {
		if s, ok := item.(string); ok && p.inner && isRange(s) {
			errs = append(errs, itemErr(i, lineerr.Mark(ErrValue, "range %q inside a list: a range is the whole value (%s = %q)", s, p.name, s)))
			continue
		}
		v, err := p.read(item)
		if err != nil {
			errs = append(errs, itemErr(i, err))
			continue
		}
		if j, dup := seen[v]; dup {
			errs = append(errs, &itemError{i, fmt.Errorf("%w %s (items %d and %d)", ErrDuplicate, textOf(v), j+1, i+1)})
			continue
		}
		seen[v] = i
		vals = append(vals, v)
	}
	return vals, errs
}

// itemError is an error of one item of a list, which is reported at the
// line that item is written on (see itemsAt).
type itemError struct {
	item int // the item's index, from 0
	err  error
}

func (e *itemError) Error() string { return e.err.Error() }
func (e *itemError) Unwrap() error { return e.err }

// itemErr is err about item i of a list.
func itemErr(i int, err error) error { return &itemError{i, fmt.Errorf("item %d: %w", i+1, err)} }

// itemsAt returns a function that gives e at the line of the item an
// error is about (an itemError), when e is a list written over several
// lines, else e. The items' lines are found once, at the first such error:
// a list of many bad items is read once, not once an item.
func (d *decoder) itemsAt(e tomldoc.Entry) func(err error) tomldoc.Entry {
	var lines []int
	return func(err error) tomldoc.Entry {
		var ie *itemError
		if !errors.As(err, &ie) {
			return e
		}
		if lines == nil {
			lines = d.doc.ItemLines(e)
		}
		at := e
		if ie.item < len(lines) {
			at.Line = lines[ie.item]
		}
		return at
	}
}

// emptyError explains why p's list may not be empty.
func (p *param) emptyError() error {
	if p.inner {
		return fmt.Errorf("%w: a point needs at least one size", ErrEmptyList)
	}
	return fmt.Errorf("%w: the sweep would expand to no points", ErrEmptyList)
}
