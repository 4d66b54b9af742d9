package harness

import (
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"efaxx/benchmarks"
	"efaxx/lineerr"
	"efaxx/results/external"
	"efaxx/results/record"
	"efaxx/slurm"
	"efaxx/tomldoc"
)

// External is the [external] table of a sweep whose benchmark is
// "external": a program that is not efaxx-runner (nccl-tests, an NVSHMEM
// perftest, an OSU benchmark), its arguments, and the parser of its
// output. efaxx launches it like a runner, one process per rank, through
// efaxx-runner's external mode, which captures each rank's output.
type External struct {
	Program string            // a template: the program's path, or a name on PATH
	Args    []string          // templates, each one argument
	Env     map[string]string // variables set for the program, values templates; nil for none
	Parser  string            // results/external's parser: nccl-tests, nvshmem, osu, fabtests, jacobi
	Output  string            // a file the program writes its results into, in the run directory; "" for stdout
	Vars    []Var             // [external.vars], in file order: axes the templates may use
	refused []string          // vars whose entry was refused: their placeholders are not errors again

	program template
	args    []template
	env     map[string]template
}

// Var is one key of [external.vars]: a name the templates use, and its
// values, an axis of the sweep. A value is a string, an integer (written
// in decimal where it is used), or a list of strings that a whole
// argument "{name}" expands into, one argument each.
type Var struct {
	Name   string
	Values []any // string, int64 or []string
}

// placeholders are the built-in placeholders every external template may use besides
// the vars: the point's shape and sizes, and where the run writes.
var placeholders = []string{"ranks", "nodes", "ranks_per_node", "sizes", "min_size", "max_size", "run_dir", "output"}

// externalKeys decode the keys of [external].
var externalKeys = map[string]func(d *decoder, e tomldoc.Entry){
	"program": (*decoder).decodeProgram,
	"args":    (*decoder).decodeArgs,
	"env":     (*decoder).decodeExtEnv,
	"parser":  func(d *decoder, e tomldoc.Entry) { d.readExtString(e, &d.ext.Parser, checkParser) },
	"output":  func(d *decoder, e tomldoc.Entry) { d.readExtString(e, &d.ext.Output, checkOutputName) },
	"vars":    (*decoder).decodeVars,
}

// decodeExternal checks the [external] table, key by key.
func (d *decoder) decodeExternal(e tomldoc.Entry) {
	d.ext = &External{}
	d.extLine = e.Line
	d.decodeTable(e, slices.Sorted(maps.Keys(externalKeys)), func(c tomldoc.Entry) { externalKeys[c.Name()](d, c) })
	for _, k := range []string{"program", "parser"} {
		if _, ok := d.lines["external."+k]; !ok && !d.failedAt(e.Key.String()) {
			d.errs = append(d.errs, &lineerr.Error{File: d.file, Line: e.Line, Key: "external." + k, Err: ErrMissingKey})
		}
	}
}

// checkParser accepts the name of a parser of results/external.
func checkParser(s string) error {
	if external.Known(s) {
		return nil
	}
	return oneOf("parser", external.Names()...)(s)
}

// checkOutputName accepts a file name in the run directory.
func checkOutputName(s string) error {
	if s == "" || strings.ContainsAny(s, "/\\\x00") || s == "." || s == ".." || strings.HasPrefix(s, "rank-") ||
		s == record.ManifestName || s == record.ExternalName {
		return lineerr.Mark(ErrValue, "output %q: want a file name in the run directory, such as \"results.json\", not a path or one of efaxx's files", s)
	}
	return nil
}

// readExtString reads a string key of [external] that check accepts.
func (d *decoder) readExtString(e tomldoc.Entry, dst *string, check func(string) error) {
	s, ok := e.Value.(string)
	if !ok {
		d.fail(e, tomldoc.TypeError("string", e.Value))
		return
	}
	if err := check(s); err != nil {
		d.fail(e, err)
		return
	}
	*dst = s
}

func (d *decoder) decodeProgram(e tomldoc.Entry) {
	var s string
	d.readExtString(e, &s, func(s string) error {
		if s == "" {
			return lineerr.Mark(ErrValue, "program is empty: name the program, a path or a name on PATH")
		}
		// The program names the runs' benchmark, which the job script's
		// header lines show: no line break, nor another control character.
		if err := slurm.CheckValue("program", s); err != nil {
			return lineerr.Mark(ErrValue, "%v", err)
		}
		return nil
	})
	if s == "" {
		return
	}
	t, err := parseTemplate(s)
	if err != nil {
		d.fail(e, err)
		return
	}
	t.line = e.Line
	d.ext.Program, d.ext.program = s, t
}

func (d *decoder) decodeArgs(e tomldoc.Entry) {
	list, ok := e.Value.([]any)
	if !ok {
		d.fail(e, tomldoc.TypeError("list of strings", e.Value))
		return
	}
	lines := d.doc.ItemLines(e)
	for i, item := range list {
		at := e // an item's errors are at its own line, under the list's key
		at.Line = lines[i]
		s, ok := item.(string)
		if !ok {
			d.fail(at, fmt.Errorf("item %d: %w", i+1, tomldoc.TypeError("string", item)))
			continue
		}
		t, err := parseTemplate(s)
		if err == nil {
			err = checkNUL(s)
		}
		if err != nil {
			d.fail(at, fmt.Errorf("item %d: %w", i+1, err))
			continue
		}
		t.line = at.Line
		d.ext.Args, d.ext.args = append(d.ext.Args, s), append(d.ext.args, t)
	}
}

func (d *decoder) decodeExtEnv(e tomldoc.Entry) {
	if _, ok := e.Value.(map[string]any); !ok {
		d.fail(e, tomldoc.TypeError("table of strings", e.Value))
		return
	}
	d.ext.Env, d.ext.env = map[string]string{}, map[string]template{}
	for _, c := range d.doc.Children(e) {
		s, ok := c.Value.(string)
		var t template
		var err error
		switch {
		case !envName.MatchString(c.Name()):
			err = lineerr.Mark(ErrValue, "%q is not a variable name: want letters, digits and '_', not starting with a digit", c.Name())
		case !ok:
			err = tomldoc.TypeError("string", c.Value)
		default:
			if t, err = parseTemplate(s); err == nil {
				err = checkNUL(s)
			}
		}
		if err != nil {
			d.fail(c, err)
			continue
		}
		t.line = c.Line
		d.ext.Env[c.Name()], d.ext.env[c.Name()] = s, t
	}
}

// checkNUL refuses a NUL byte, which no argument or variable can carry.
// Every other byte is fine: values reach the program without a shell.
func checkNUL(s string) error {
	if strings.IndexByte(s, 0) >= 0 {
		return lineerr.Mark(ErrValue, "%q holds a NUL byte, which no argument can carry", s)
	}
	return nil
}

// decodeVars reads [external.vars], in file order: the vars are axes,
// and the last written varies fastest.
func (d *decoder) decodeVars(e tomldoc.Entry) {
	if _, ok := e.Value.(map[string]any); !ok {
		d.fail(e, tomldoc.TypeError("table", e.Value))
		return
	}
	for _, c := range d.doc.InFileOrder(d.doc.Children(e)) {
		values, err := readVar(c.Value)
		if nameErr := checkVarName(c.Name()); nameErr != nil {
			err = nameErr
		}
		if err != nil {
			d.fail(c, err)
			d.ext.refused = append(d.ext.refused, c.Name())
			continue
		}
		d.ext.Vars = append(d.ext.Vars, Var{Name: c.Name(), Values: values})
	}
}

// checkVarName accepts a var name that no param or builtin has.
func checkVarName(name string) error {
	switch {
	case !placeholderName.MatchString(name):
		return lineerr.Mark(ErrValue, "var %q: want lower-case letters, digits and _, as {name} takes", name)
	case slices.Contains(placeholders, name) || paramOf("", name) != nil || paramOf("slurm", name) != nil || name == "benchmark":
		return lineerr.Mark(ErrValue, "var %q: the name of a param or a built-in placeholder (%s)", name, strings.Join(placeholders, ", "))
	}
	return nil
}

// readVar reads a var's values: one value, or a list of them, each a
// string, an integer (written in decimal) or a list of strings.
func readVar(raw any) ([]any, error) {
	list, ok := raw.([]any)
	if !ok {
		v, err := readVarValue(raw, false)
		return []any{v}, err
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("%w: the sweep would expand to no points", ErrEmptyList)
	}
	var out []any
	seen := map[string]int{}
	for i, item := range list {
		v, err := readVarValue(item, true)
		if err != nil {
			return nil, fmt.Errorf("item %d: %w", i+1, err)
		}
		// 1 and "1" are one argument: a var's values are compared as the
		// text they put into the templates.
		key, shown := fmt.Sprint(v), textOf(v)
		if l, isList := v.([]string); isList {
			key, shown = fmt.Sprintf("%q", l), labelOf(l)
		}
		if j, dup := seen[key]; dup {
			return nil, fmt.Errorf("%w %s (items %d and %d)", ErrDuplicate, shown, j+1, i+1)
		}
		seen[key] = i
		out = append(out, v)
	}
	return out, nil
}

// readVarValue reads one value of a var; a list is one value only inside
// the list of the var's values.
func readVarValue(raw any, inList bool) (any, error) {
	switch v := raw.(type) {
	case string:
		return v, checkVarText(v)
	case int64:
		return v, nil
	case []any:
		if !inList {
			break
		}
		items := make([]string, len(v))
		for i, x := range v {
			s, ok := x.(string)
			if !ok {
				return nil, fmt.Errorf("item %d: %w", i+1, tomldoc.TypeError("string", x))
			}
			if err := checkVarText(s); err != nil {
				return nil, err
			}
			items[i] = s
		}
		return items, nil
	}
	return nil, tomldoc.TypeError("string, integer, or a list of them", raw)
}

// checkVarText checks a string of a var's value, which goes into the
// program's arguments or environment.
func checkVarText(s string) error {
	if err := checkArg("value", len(s)); err != nil {
		return err
	}
	return checkNUL(s)
}

// varNamed returns the var called name, or nil.
func (x *External) varNamed(name string) *Var {
	for i := range x.Vars {
		if x.Vars[i].Name == name {
			return &x.Vars[i]
		}
	}
	return nil
}

// isList reports whether some value of var v is a list.
func (v *Var) isList() bool {
	return slices.ContainsFunc(v.Values, func(x any) bool { _, ok := x.([]string); return ok })
}

// checkPlaceholders checks every placeholder of x's templates against the
// vars and the placeholders the sweep gives values: a list var only as a whole
// argument, sizes only when the sweep has sizes, {output} only with an
// output, and the program without the run's directory (it names the
// benchmark, which must not differ per run). It returns every wrong
// placeholder, each at its template's line and key in file.
func (x *External) checkPlaceholders(file string, hasSizes bool) lineerr.Errors {
	var errs lineerr.Errors
	check := func(key string, item int, t template, asArg, inProgram bool) {
		names := t.names()
		for i, name := range names {
			if slices.Contains(names[:i], name) {
				continue // said once per template
			}
			err := x.checkName(name, t, asArg, inProgram, hasSizes)
			if err != nil && item > 0 {
				err = fmt.Errorf("item %d: %w", item, err)
			}
			if err != nil {
				errs = append(errs, &lineerr.Error{File: file, Line: t.line, Key: "external." + key, Err: err})
			}
		}
	}
	check("program", 0, x.program, false, true)
	for i, t := range x.args {
		check("args", i+1, t, true, false)
	}
	for _, k := range slices.Sorted(maps.Keys(x.env)) {
		check("env."+k, 0, x.env[k], false, false)
	}
	return errs
}

// checkName checks one placeholder of template t.
func (x *External) checkName(name string, t template, asArg, inProgram, hasSizes bool) error {
	if v := x.varNamed(name); v != nil {
		if v.isList() && !(asArg && t.whole() == name) {
			return lineerr.Mark(ErrValue, "{%s} is a list var: only an argument of its own, \"{%s}\", can take it", name, name)
		}
		if inProgram {
			// The program, with the var's values, names the runs'
			// benchmark, which the job script's header lines show.
			for _, val := range v.Values {
				if s, ok := val.(string); ok {
					if err := slurm.CheckValue("value", s); err != nil {
						return lineerr.Mark(ErrValue, "{%s} in the program: %v", name, err)
					}
				}
			}
		}
		return nil
	}
	switch {
	case slices.Contains(x.refused, name):
		return nil // its var's own error says what is wrong
	case !slices.Contains(placeholders, name):
		names := append(append([]string(nil), placeholders...), x.varNames()...)
		return lineerr.Mark(ErrValue, "unknown placeholder {%s}%s: want a var of [external.vars] or one of %s", name,
			tomldoc.DidYouMean(name, names), strings.Join(placeholders, ", "))
	case inProgram && (name == "run_dir" || name == "output"):
		return lineerr.Mark(ErrValue, "{%s} in the program: the program names the runs' benchmark, which must not change per run", name)
	case (name == "sizes" || name == "min_size" || name == "max_size") && !hasSizes:
		return lineerr.Mark(ErrValue, "{%s} without sizes: set [params] sizes", name)
	case name == "output" && x.Output == "":
		return lineerr.Mark(ErrValue, "{output} without an output file: set [external] output")
	}
	return nil
}

// checkArgs refuses each template of x that makes an argument longer
// than Linux takes (checkArg), each placeholder at its longest value, at
// the template's line and key in file. A variable of env is one argument
// too, NAME=VALUE, of the program's environment. The session directory
// ({run_dir}, {output}) counts for nothing: it is not known yet.
func (x *External) checkArgs(file string, sizes []uint64) lineerr.Errors {
	most := x.longestValues(sizes)
	var errs lineerr.Errors
	// prefix is what the argument has before t's text.
	check := func(key string, item int, what, prefix string, t template) {
		if len(t.names()) > 0 {
			what += " with its placeholders' longest values"
		}
		err := checkArg(what, len(prefix)+t.longest(most))
		if err != nil && item > 0 {
			err = fmt.Errorf("item %d: %w", item, err)
		}
		if err != nil {
			errs = append(errs, &lineerr.Error{File: file, Line: t.line, Key: "external." + key, Err: err})
		}
	}
	check("program", 0, "program", "", x.program)
	for i, t := range x.args {
		check("args", i+1, "argument", "", t)
	}
	for _, k := range slices.Sorted(maps.Keys(x.env)) {
		check("env."+k, 0, "NAME=VALUE", k+"=", x.env[k])
	}
	return errs
}

// longestValues returns the longest text each placeholder of x can take
// in a point: a list var's longest item, which is an argument of its own.
func (x *External) longestValues(sizes []uint64) map[string]int {
	// ranks, nodes and ranks_per_node are at most 65536.
	most := map[string]int{"ranks": 5, "nodes": 5, "ranks_per_node": 5}
	if len(sizes) > 0 {
		most["sizes"] = len(argOf(sizes))
		most["min_size"] = len(argOf(slices.Min(sizes)))
		most["max_size"] = len(argOf(slices.Max(sizes)))
	}
	for _, v := range x.Vars {
		for _, val := range v.Values {
			items, ok := val.([]string)
			if !ok {
				items = []string{fmt.Sprint(val)}
			}
			for _, s := range items {
				most[v.Name] = max(most[v.Name], len(s))
			}
		}
	}
	return most
}

// varNames returns the names of the vars.
func (x *External) varNames() []string {
	names := make([]string, len(x.Vars))
	for i, v := range x.Vars {
		names[i] = v.Name
	}
	return names
}

// PointExternal is the external program of one point: the sweep's
// [external] table and one value of each var.
type PointExternal struct {
	spec *External
	vars map[string]any // var name → string, int64 or []string
}

// values returns the placeholder values of point p, with run_dir and
// output when runDir is not "".
func (p *Point) externalValues(runDir string) map[string]any {
	vals := map[string]any{}
	for k, v := range p.External.vars {
		if n, ok := v.(int64); ok {
			v = strconv.FormatInt(n, 10)
		}
		vals[k] = v
	}
	vals["ranks"] = strconv.Itoa(p.Ranks)
	vals["nodes"] = strconv.Itoa(p.Nodes)
	vals["ranks_per_node"] = strconv.Itoa(p.Ranks / max(p.Nodes, 1))
	if len(p.Sizes) > 0 {
		vals["sizes"] = argOf(p.Sizes)
		vals["min_size"] = strconv.FormatUint(slices.Min(p.Sizes), 10)
		vals["max_size"] = strconv.FormatUint(slices.Max(p.Sizes), 10)
	}
	if runDir != "" {
		vals["run_dir"] = runDir
		if o := p.External.spec.Output; o != "" {
			vals["output"] = filepath.Join(runDir, o)
		}
	}
	return vals
}

// Tool returns the benchmark a point's runs are stored under: the
// external program's ("nccl:alltoall"), or the point's benchmark.
func (p Point) Tool() string {
	if p.External == nil {
		return p.Benchmark
	}
	prog, err := p.External.spec.program.expand(p.externalValues(""))
	if err != nil { // the sweep's checks rule this out
		return p.Benchmark
	}
	return external.Benchmark(p.External.spec.Parser, prog)
}

// ExternalSpec returns what efaxx-runner's external mode runs for point p
// in run directory runDir: every template substituted, once.
func (p Point) ExternalSpec(runDir string) (*record.External, error) {
	x := p.External.spec
	vals := p.externalValues(runDir)
	prog, err := x.program.expand(vals)
	if err != nil {
		return nil, err
	}
	spec := &record.External{Argv: []string{prog}, Parser: x.Parser, Output: x.Output, TimeoutNs: int64(p.Timeout)}
	for _, t := range x.args {
		args, err := t.expandArgs(vals)
		if err != nil {
			return nil, err
		}
		spec.Argv = append(spec.Argv, args...)
	}
	for k, t := range x.env {
		if spec.Env == nil {
			spec.Env = map[string]string{}
		}
		if spec.Env[k], err = t.expand(vals); err != nil {
			return nil, err
		}
	}
	return spec, nil
}

// addParams adds the external program of a point to its params: the
// sweep's templates as written, and each var's value by its name.
func (pe *PointExternal) addParams(m map[string]any) {
	x := pe.spec
	m["program"], m["args"], m["parser"] = x.Program, append([]string{}, x.Args...), x.Parser
	if x.Output != "" {
		m["output"] = x.Output
	}
	if len(x.Env) > 0 {
		m["env"] = x.Env
	}
	for k, v := range pe.vars {
		m[k] = v
	}
}

// externalTimeout is the default timeout of an external sweep: a program
// sweeps all its sizes in one run, for minutes, not per size.
const externalTimeout = "1h"

// resolveExternal checks that the external benchmark comes with its
// [external] table and alone, gives an external sweep its defaults (no
// sizes unless set, an hour's timeout), and checks its placeholders.
func (d *decoder) resolveExternal(s *Sweep) {
	ext := slices.Contains(s.Benchmarks, "external")
	switch {
	case !ext && d.ext != nil:
		d.errs = append(d.errs, &lineerr.Error{File: d.file, Line: d.extLine, Key: "external",
			Err: lineerr.Mark(ErrValue, "applies to benchmark external only, and the sweep runs %s", strings.Join(s.Benchmarks, ", "))})
		return
	case !ext:
		return
	case len(s.Benchmarks) > 1:
		d.failParam(benchmarkParam, lineerr.Mark(ErrValue, "external runs alone: put %s in a sweep of its own",
			strings.Join(slices.DeleteFunc(slices.Clone(s.Benchmarks), func(b string) bool { return b == "external" }), ", ")))
		return
	case d.ext == nil:
		d.errs = append(d.errs, &lineerr.Error{File: d.file, Key: "external", Err: fmt.Errorf("%w: benchmark external needs it", ErrMissingKey)})
		return
	}
	d.externalDefaults(s)
	// A sizes or an output the file got wrong holds its default now: the
	// placeholders judged against it would be false errors. A var it got
	// wrong is left out, and so are its placeholders (refused); the rest
	// are judged, so that one pass says every error.
	if d.failedAt("external.output") || d.failed[paramNamed("sizes")] {
		return
	}
	sizes := s.valuesOf("sizes")[0].([]uint64)
	if errs := d.ext.checkPlaceholders(d.file, len(sizes) > 0); len(errs) > 0 {
		d.errs = append(d.errs, errs...)
		return
	}
	if d.failedAt("external") { // checkArgs expands every var's values
		return
	}
	if errs := d.ext.checkArgs(d.file, sizes); len(errs) > 0 {
		d.errs = append(d.errs, errs...)
		return
	}
	s.External = d.ext
}

// externalDefaults replaces the defaults of sizes and timeout that the
// file leaves unset with an external sweep's.
func (d *decoder) externalDefaults(s *Sweep) {
	for i, p := range axes() {
		if _, set := d.values[p]; set {
			continue
		}
		switch p.name {
		case "sizes":
			s.values[i] = []any{[]uint64(nil)}
		case "timeout":
			v, _ := p.read(externalTimeout)
			s.values[i] = []any{v}
		}
	}
}

// toolBenchmark is the form of an external program's benchmark, as runs
// are stored under it (external.Benchmark): a parser's prefix, ':', the
// program. Every parser's prefix must be here (TestExpectEveryToolBenchmark).
var toolBenchmark = regexp.MustCompile(`^(nccl|nvshmem|osu|fabtests|jacobi|nvbandwidth):[A-Za-z0-9_.+-]+$`)

// whereBenchmark reads the benchmark of an [[expect]] where: one of
// efaxx-runner's, or an external program's as its runs are stored
// ("nccl:alltoall").
var whereBenchmark = &param{name: "benchmark", read: readString(func(s string) error {
	if toolBenchmark.MatchString(s) {
		return nil
	}
	if err := oneOf("benchmark", benchmarks.Names(benchmarks.Benchmark.Measured)...)(s); err != nil {
		return lineerr.Mark(ErrValue, "%w, or an external program's, as nccl:alltoall", err)
	}
	return nil
})}
