package harness

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/BurntSushi/toml"

	"efaxx/benchmarks"
	"efaxx/bytesize"
	"efaxx/lineerr"
	"efaxx/results"
	"efaxx/tomldoc"
)

// decodeExpects checks the [[expect]] array of tables, table by table.
func (d *decoder) decodeExpects(e tomldoc.Entry) {
	tables, ok := d.doc.Tables(e)
	if !ok {
		d.fail(e, tomldoc.TypeError("list of tables ([[expect]])", e.Value))
		return
	}
	lines := d.doc.TableLines(e)
	for i, t := range tables {
		if x := d.decodeExpect(i, lines[i], t); x != nil {
			d.expects = append(d.expects, *x)
		}
	}
}

// expectFail records err against the key of c, inside [[expect]] table i.
func (d *decoder) expectFail(i int, c tomldoc.Entry, err error) {
	key := fmt.Sprintf("expect[%d]", i+1)
	if len(c.Key) > 2 {
		key += "." + c.Key[2:].String()
	}
	d.errs = append(d.errs, &lineerr.Error{File: d.file, Line: c.Line, Key: key, Err: err})
}

// decodeExpect checks table i of [[expect]], whose entries are t and
// whose header is at line. It returns nil when the table has errors.
func (d *decoder) decodeExpect(i, line int, t []tomldoc.Entry) *Expect {
	x := &Expect{File: d.file, Line: tomldoc.FirstLine(t, line), Stat: "median", Lo: math.Inf(-1), Hi: math.Inf(1)}
	x.Metric, _ = results.LookupMetric("gbps")
	before := len(d.errs)
	have := map[string]tomldoc.Entry{}
	for _, c := range t {
		if !slices.Contains(expectKeys, c.Name()) {
			d.expectFail(i, c, tomldoc.UnknownKey(c.Name(), expectKeys))
			continue
		}
		have[c.Name()] = c
	}
	d.expectStrings(i, x, have)
	if c, ok := have["where"]; ok {
		d.decodeWhere(i, c, &x.Where)
	}
	d.expectBounds(i, x, have, tomldoc.Entry{Key: toml.Key{"expect", fmt.Sprint(i)}, Line: x.Line})
	if len(d.errs) > before {
		return nil
	}
	return x
}

// expectStrings reads the name, metric and stat keys.
func (d *decoder) expectStrings(i int, x *Expect, have map[string]tomldoc.Entry) {
	if c, ok := have["name"]; ok {
		s, isString := c.Value.(string)
		switch j := strings.IndexFunc(s, unicode.IsControl); {
		case !isString:
			d.expectFail(i, c, tomldoc.TypeError("string", c.Value))
		case j >= 0:
			// The name heads a row of efaxx check's table, on one line.
			r, _ := utf8.DecodeRuneInString(s[j:])
			d.expectFail(i, c, lineerr.Mark(ErrValue, "name %q holds control character %U: it names a row of efaxx check's report", s, r))
		default:
			x.Name = s
		}
	}
	if c, ok := have["metric"]; ok {
		s, isString := c.Value.(string)
		m, err := results.LookupMetric(s)
		switch {
		case !isString:
			d.expectFail(i, c, tomldoc.TypeError("string", c.Value))
		case err != nil:
			d.expectFail(i, c, lineerr.Mark(ErrValue, "%v", err))
		default:
			x.Metric = m
		}
	}
	if c, ok := have["stat"]; ok {
		if s, err := readString(oneOf("stat", stats...))(c.Value); err != nil {
			d.expectFail(i, c, err)
		} else {
			x.Stat = s.(string)
		}
	}
}

// expectBounds reads min, max, ref and tolerance into x.Lo, x.Hi and
// x.Bound. table stands for the table itself, for a bound missing.
func (d *decoder) expectBounds(i int, x *Expect, have map[string]tomldoc.Entry, table tomldoc.Entry) {
	var bounds []string
	for _, k := range []string{"min", "max"} {
		c, ok := have[k]
		if !ok {
			continue
		}
		f, err := tomldoc.Number(c.Value)
		if err != nil {
			d.expectFail(i, c, err)
			continue
		}
		if k == "min" {
			x.Lo = f
			bounds = append(bounds, ">= "+fmtNum(f))
		} else {
			x.Hi = f
			bounds = append(bounds, "<= "+fmtNum(f))
		}
	}
	if b, ok := d.expectRef(i, x, have); ok {
		bounds = append(bounds, b)
	}
	_, hasRef := have["ref"]
	_, hasMin := have["min"]
	_, hasMax := have["max"]
	switch {
	case !hasMin && !hasMax && !hasRef:
		d.expectFail(i, table, fmt.Errorf("%w: min, max or ref (with a tolerance)", ErrMissingKey))
	case x.Lo > x.Hi:
		d.expectFail(i, have["max"], lineerr.Mark(ErrValue, "the bounds leave no value: at least %s and at most %s", fmtNum(x.Lo), fmtNum(x.Hi)))
	}
	x.Bound = strings.Join(bounds, ", ")
}

// expectRef reads ref and tolerance: the value may be worse than ref by
// the tolerance, on the metric's bad side only (below for a rate, above
// for a time). It returns the bound's text.
func (d *decoder) expectRef(i int, x *Expect, have map[string]tomldoc.Entry) (string, bool) {
	rc, hasRef := have["ref"]
	tc, hasTol := have["tolerance"]
	switch {
	case hasTol && !hasRef:
		d.expectFail(i, tc, lineerr.Mark(ErrValue, "a tolerance needs a ref"))
		return "", false
	case !hasRef:
		return "", false
	case !hasTol:
		d.expectFail(i, rc, fmt.Errorf("%w: a ref needs a tolerance, like tolerance = \"3%%\"", ErrMissingKey))
		return "", false
	}
	ref, err := tomldoc.Number(rc.Value)
	if err != nil {
		d.expectFail(i, rc, err)
		return "", false
	}
	width, text, err := readTolerance(tc.Value, ref)
	if err != nil {
		d.expectFail(i, tc, err)
		return "", false
	}
	if x.Metric.Lower {
		x.Hi = math.Min(x.Hi, ref+width)
		return fmt.Sprintf("<= %s + %s", fmtNum(ref), text), true
	}
	x.Lo = math.Max(x.Lo, ref-width)
	return fmt.Sprintf(">= %s - %s", fmtNum(ref), text), true
}

// whereKeys returns the keys a where table may hold, for suggestions.
func whereKeys() []string {
	keys := []string{"benchmark", "size"}
	for _, p := range params {
		if !p.inner {
			keys = append(keys, p.name)
		}
	}
	return keys
}

// decodeWhere reads a where table into w.
func (d *decoder) decodeWhere(i int, c tomldoc.Entry, w *Where) {
	if _, ok := c.Value.(map[string]any); !ok {
		d.expectFail(i, c, tomldoc.TypeError("table", c.Value))
		return
	}
	keys := whereKeys()
	var named []whereParam // to check against where's benchmarks
	for _, k := range d.doc.Children(c) {
		switch name := k.Name(); {
		case name == "benchmark":
			d.whereValues(i, k, whereBenchmark, func(vals []any) {
				for _, v := range vals {
					w.Benchmarks = append(w.Benchmarks, v.(string))
				}
			})
		case name == "size":
			d.whereSize(i, k, w)
		case slices.Contains(keys, name):
			p := params[slices.IndexFunc(params, func(p *param) bool { return p.name == name })]
			named = append(named, whereParam{p, k})
			d.whereValues(i, k, p, func(vals []any) {
				if w.Params == nil {
					w.Params = map[string][]any{}
				}
				for _, v := range vals {
					w.Params[name] = append(w.Params[name], jsonOf(v))
				}
			})
		default:
			d.expectFail(i, k, tomldoc.UnknownKey(name, keys))
		}
	}
	d.checkWhereTakes(i, w, named)
}

// whereParam is a param a where table names, and its entry.
type whereParam struct {
	p *param
	e tomldoc.Entry
}

// checkWhereTakes refuses a param of where that none of where's benchmarks
// takes: no run of theirs stores it, so where would match nothing. The
// runs of an external program (nccl:alltoall) store what its sweep gave.
func (d *decoder) checkWhereTakes(i int, w *Where, named []whereParam) {
	for _, b := range w.Benchmarks {
		if _, err := benchmarks.Lookup(b); err != nil {
			return
		}
	}
	for _, n := range named {
		if w.Benchmarks != nil && !slices.ContainsFunc(w.Benchmarks, n.p.appliesTo) {
			d.expectFail(i, n.e, lineerr.Mark(ErrValue, "applies to %s only, and where names %s: it would match no run",
				benchmarkList(benchmarks.Taking(n.p.name)), andList(w.Benchmarks)))
		}
	}
}

// whereValues reads the value or list of values of param p from k and
// passes them to use.
func (d *decoder) whereValues(i int, k tomldoc.Entry, p *param, use func([]any)) {
	if list, ok := k.Value.([]any); ok && len(list) == 0 {
		d.expectFail(i, k, fmt.Errorf("%w: where would match no run", ErrEmptyList))
		return
	}
	vals, errs := p.readList(k.Value)
	at := d.itemsAt(k)
	for _, err := range errs {
		d.expectFail(i, at(err), err)
	}
	if errs == nil {
		use(vals)
	}
}

// whereSize reads the size key: a size (==), a comparison like
// ">= 64MiB", or a range "MIN..MAX" (both included).
func (d *decoder) whereSize(i int, k tomldoc.Entry, w *Where) {
	switch v := k.Value.(type) {
	case int64:
		n, err := bytesize.FromInt(v)
		if err != nil {
			d.expectFail(i, k, err)
			return
		}
		w.Sizes = append(w.Sizes, SizeCond{Op: "==", Size: n})
	case string:
		if lo, hi, ok := strings.Cut(v, ".."); ok {
			a, errA := bytesize.Parse(lo)
			b, errB := bytesize.Parse(hi)
			if errA != nil || errB != nil || a > b {
				d.expectFail(i, k, lineerr.Mark(ErrValue, "size range %q: want \"MIN..MAX\" with MIN <= MAX, like \"64MiB..1GiB\"", v))
				return
			}
			w.Sizes = append(w.Sizes, SizeCond{Op: ">=", Size: a}, SizeCond{Op: "<=", Size: b})
			return
		}
		c, err := parseSizeCond(v)
		if err != nil {
			d.expectFail(i, k, err)
			return
		}
		w.Sizes = append(w.Sizes, c)
	default:
		d.expectFail(i, k, tomldoc.TypeError(`size, comparison like ">= 64MiB" or range like "64MiB..1GiB"`, k.Value))
	}
}

// fmtNum writes a bound for people: 95, 97.5.
func fmtNum(f float64) string { return fmt.Sprint(f) }
