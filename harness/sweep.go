package harness

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"

	"efaxx/benchmarks"
	"efaxx/lineerr"
	"efaxx/tomldoc"
)

// MaxPoints is the most points a sweep may expand to unless its file's
// max_points says more. Each point is a job step of its own, so a sweep
// larger than that is almost always a list given where a range or a
// scalar was meant, and would take days to run.
const MaxPoints = 10_000

// maxMaxPoints bounds max_points: the points are held in memory.
const maxMaxPoints = 1_000_000

// maxNameLen bounds Sweep.Name, which names directories.
const maxNameLen = 128

// validName is the form of Sweep.Name: it is used in paths.
var validName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// Sweep is a parsed and validated sweep file.
type Sweep struct {
	Name        string   // the name key: letters, digits, '.', '_' and '-'
	Description string   // the description key; "" when absent
	File        string   // the file name given to Load or Parse
	Benchmarks  []string // the benchmark key, as a list
	Text        []byte   // the file's bytes, as read
	Hash        string   // hex SHA-256 of Text, as sha256sum prints it
	Expects     []Expect // the [[expect]] tables, in file order; nil when there are none
	Resources   Resources
	External    *External // the [external] table; nil unless the benchmark is external

	// ranksPerNode, when not 0, makes each point's ranks nodes × it: the
	// file gives [slurm] ntasks_per_node and no ranks.
	ranksPerNode int

	// slurmTables is set when the file has a [slurm] or [container] table.
	slurmTables bool

	// mpiDefault is set when the file sets no [slurm] mpi: Resources.MPI
	// is efaxx's default, which the file did not ask for.
	mpiDefault bool

	// values holds the resolved values of each param of axes(), in the
	// same order; a param that is not a list has one value.
	values [][]any
}

// Load reads and parses the sweep file at path. A file that is not a valid
// sweep gives an lineerr.Errors; one that cannot be read gives the os error.
func Load(path string) (*Sweep, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read sweep %q: %w", path, err)
	}
	return Parse(path, data)
}

// Parse parses and validates a sweep file. The file name is used only in
// messages and in Sweep.File.
//
// When data is not a valid sweep, Parse returns a lineerr.Errors holding
// every problem in the file, in line order, except after a TOML syntax
// error: the syntax error stops the parse and is the only one reported.
func Parse(file string, data []byte) (*Sweep, error) {
	sum := sha256.Sum256(data)
	s := &Sweep{File: file, Text: data, Hash: hex.EncodeToString(sum[:])}
	d, top, err := newDecoder(file, data)
	if err != nil {
		return nil, err
	}
	d.top(top)
	d.resolve(s)
	d.errs.Sort()
	if err := d.errs.Err(); err != nil {
		return nil, err
	}
	return s, nil
}

// newDecoder parses data and returns a decoder of its entries, or the
// syntax error.
func newDecoder(file string, data []byte) (*decoder, []tomldoc.Entry, error) {
	doc, top, err := tomldoc.Parse(file, data)
	if err != nil {
		return nil, nil, err
	}
	return &decoder{file: file, doc: doc, values: make(map[*param][]any), entries: make(map[*param]tomldoc.Entry),
		failed: make(map[*param]bool), lines: make(map[string]int)}, top, nil
}

// decoder validates the keys of one sweep file and collects every error.
type decoder struct {
	file        string
	doc         *tomldoc.Document
	name        string
	desc        string
	values      map[*param][]any         // values of the params the file sets
	entries     map[*param]tomldoc.Entry // where the file sets them
	failed      map[*param]bool          // params the file sets wrong: see resolve
	expects     []Expect
	maxPoints   int            // max_points; 0 for MaxPoints
	res         Resources      // the [slurm] and [container] tables
	slurmTables bool           // the file has either
	lines       map[string]int // line of each other key of [slurm] and [external], by dotted path
	ext         *External      // the [external] table; nil without one
	extLine     int            // its line
	errs        lineerr.Errors
}

// fail records err against the key of e.
func (d *decoder) fail(e tomldoc.Entry, err error) {
	d.errs = append(d.errs, &lineerr.Error{File: d.file, Line: e.Line, Key: e.Key.String(), Err: err})
}

// topKeys are the keys of a sweep file's top-level table.
var topKeys = []struct {
	name     string
	required bool
	decode   func(d *decoder, e tomldoc.Entry)
}{
	{"name", true, (*decoder).decodeName},
	{"description", false, (*decoder).decodeDescription},
	{"max_points", false, (*decoder).decodeMaxPoints},
	{"benchmark", true, func(d *decoder, e tomldoc.Entry) { d.decodeParam(benchmarkParam, e) }},
	{"params", false, (*decoder).decodeParams},
	{"expect", false, (*decoder).decodeExpects},
	{"slurm", false, (*decoder).decodeSlurm},
	{"container", false, (*decoder).decodeContainer},
	{"external", false, (*decoder).decodeExternal},
}

// top decodes the top-level table and reports missing required keys.
func (d *decoder) top(entries []tomldoc.Entry) {
	names := make([]string, len(topKeys))
	seen := make(map[string]bool)
	for i, k := range topKeys {
		names[i] = k.name
	}
	for _, e := range entries {
		i := slices.Index(names, e.Name())
		if i < 0 {
			d.fail(e, tomldoc.UnknownKey(e.Name(), names))
			continue
		}
		seen[e.Name()] = true
		topKeys[i].decode(d, e)
	}
	for _, k := range topKeys {
		if k.required && !seen[k.name] {
			d.errs = append(d.errs, &lineerr.Error{File: d.file, Key: k.name, Err: ErrMissingKey})
		}
	}
}

// decodeName checks the name key.
func (d *decoder) decodeName(e tomldoc.Entry) {
	s, ok := e.Value.(string)
	switch {
	case !ok:
		d.fail(e, tomldoc.TypeError("string", e.Value))
	case len(s) > maxNameLen:
		d.fail(e, lineerr.Mark(ErrValue, "name is %d bytes long: want at most %d", len(s), maxNameLen))
	case !validName.MatchString(s):
		d.fail(e, lineerr.Mark(ErrValue, "%q is not a valid name: want letters, digits, '.', '_' and '-', starting with a letter or digit", s))
	default:
		d.name = s
	}
}

// decodeDescription checks the description key.
func (d *decoder) decodeDescription(e tomldoc.Entry) {
	s, ok := e.Value.(string)
	if !ok {
		d.fail(e, tomldoc.TypeError("string", e.Value))
		return
	}
	d.desc = s
}

// decodeMaxPoints reads max_points, the file's own limit on its points.
func (d *decoder) decodeMaxPoints(e tomldoc.Entry) {
	v, err := readInt(1, maxMaxPoints)(e.Value)
	if err != nil {
		d.fail(e, err)
		return
	}
	d.maxPoints = v.(int)
}

// decodeParams checks the [params] table, key by key.
func (d *decoder) decodeParams(e tomldoc.Entry) {
	if _, ok := e.Value.(map[string]any); !ok {
		d.fail(e, tomldoc.TypeError("table", e.Value))
		return
	}
	names := paramNames("")
	for _, c := range d.doc.Children(e) {
		p := paramOf("", c.Name())
		if p == nil {
			d.fail(c, tomldoc.UnknownKey(c.Name(), names))
			continue
		}
		d.decodeParam(p, c)
	}
}

// decodeParam reads the value of p from e.
func (d *decoder) decodeParam(p *param, e tomldoc.Entry) {
	vals, errs := p.values(e.Value)
	at := d.itemsAt(e)
	for _, err := range errs {
		d.fail(at(err), err)
	}
	if errs != nil {
		d.failed[p] = true
		// The benchmarks the file names right are kept to check the params
		// against, each check being of one benchmark: a misspelt one must
		// not hide what is wrong with the others.
		if p != benchmarkParam || len(vals) == 0 {
			return
		}
	}
	d.values[p] = vals
	d.entries[p] = e
}

// resolve fills s from what the file set and the defaults, checks what the
// benchmarks need of the params and the size of the expansion. A param the
// file got wrong takes its default here, so the checks still run and every
// error is reported at once; s is used only when there are none. The
// checks of a failed param against others are left out: its default is not
// what the file meant, and would give errors that are not there.
func (d *decoder) resolve(s *Sweep) {
	if _, ok := d.values[benchmarkParam]; !ok {
		return // missing, or no benchmark known: nothing to check the params against
	}
	s.Name, s.Description, s.Expects = d.name, d.desc, d.expects
	for _, p := range axes() {
		vals, ok := d.values[p]
		if !ok {
			vals = p.defaults()
		}
		s.values = append(s.values, vals)
	}
	for _, b := range s.values[0] {
		s.Benchmarks = append(s.Benchmarks, b.(string))
	}
	d.defaultRanks(s)
	// A misspelt benchmark may be the external one an [external] table is for.
	if !d.failed[benchmarkParam] {
		d.resolveExternal(s)
	}
	d.checkBenchmarks(s)
	d.checkCombinations(s)
	d.resolveResources(s)
	// The shape is checked pair by pair of ranks and nodes values: only in
	// a sweep small enough to run, or a list written by mistake would
	// report millions of pairs before the one error that matters.
	if d.checkCount(s) {
		d.checkShape(s)
	}
}

// checkCount reports a sweep that expands to more points than its
// max_points, and whether it is within them.
func (d *decoder) checkCount(s *Sweep) bool {
	limit := cmp.Or(d.maxPoints, MaxPoints)
	n := s.count()
	if n <= limit {
		return true
	}
	d.errs = append(d.errs, &lineerr.Error{File: d.file, Err: lineerr.Mark(ErrTooLarge,
		"sweep expands to %s points (%s), more than max_points = %d: a list where a range or one value was meant? "+
			"A larger max_points at the top of the file allows it", countText(n), strings.Join(s.axisSizes(), " × "), limit)})
	return false
}

// checkCombinations rejects params that are valid alone but not
// together: a strategy a benchmark of the sweep cannot use
// (benchmarks.CheckStrategy), once for each such benchmark and strategy,
// and a chunk list whose "auto" is another of its chunks.
func (d *decoder) checkCombinations(s *Sweep) {
	if d.failed[paramNamed("strategy")] {
		return
	}
	d.checkChunkAuto(s)
	for _, name := range s.Benchmarks {
		b, err := benchmarks.Lookup(name)
		if err != nil {
			continue
		}
		for _, v := range s.valuesOf("strategy") {
			if err := b.CheckStrategy(v.(string)); err != nil {
				d.failParam(paramNamed("strategy"), lineerr.Mark(ErrValue, "%v", err))
			}
		}
	}
}

// checkChunkAuto refuses a chunk list holding "auto" and the chunk that
// "auto" is for a benchmark, strategy and memory of the sweep (write's
// 8 MiB): each point of the one would be a point of the other, the same
// run twice under one hash. It reports each benchmark once.
func (d *decoder) checkChunkAuto(s *Sweep) {
	p := paramNamed("chunk")
	chunks := s.valuesOf("chunk")
	if d.failed[p] || !slices.Contains(chunks, any(uint64(0))) {
		return
	}
	for _, name := range s.Benchmarks {
		b := benchmark(name)
		if !b.Takes(p.name) {
			continue
		}
	each:
		for _, st := range s.valuesOf("strategy") {
			for _, m := range s.valuesOf("memory") {
				if auto := b.DefaultChunk(st.(string), m.(string)); slices.Contains(chunks, any(auto)) {
					d.failParam(p, fmt.Errorf("%w: \"auto\" is %s for benchmark %s under strategy %s on %s memory, which the list also gives: the points would be the same",
						ErrDuplicate, textOf(auto), name, st, m))
					break each
				}
			}
		}
	}
}

// defaultRanks gives a sweep that leaves ranks unset the ranks its
// benchmarks run on when they all run on one count (the queue: 1).
func (d *decoder) defaultRanks(s *Sweep) {
	if _, set := d.entries[paramNamed("ranks")]; set {
		return
	}
	for _, b := range s.Benchmarks {
		if benchmark(b).MaxRanks != 1 {
			return
		}
	}
	for i, p := range axes() {
		if p.name == "ranks" {
			s.values[i] = []any{1}
		}
	}
}

// resolveResources fills s.Resources.
func (d *decoder) resolveResources(s *Sweep) {
	s.Resources, s.slurmTables = d.res, d.slurmTables
	if s.Resources.MPI == "" {
		s.Resources.MPI, s.mpiDefault = defaultMPI, true
	}
	if _, ranksSet := d.values[paramNamed("ranks")]; d.res.NTasksPerNode > 0 && !ranksSet {
		s.ranksPerNode = d.res.NTasksPerNode
	}
}

// HasSlurmTables reports whether the sweep file has a [slurm] or a
// [container] table: it is meant for Slurm.
func (s *Sweep) HasSlurmTables() bool { return s.slurmTables }
