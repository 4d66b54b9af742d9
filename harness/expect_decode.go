package harness

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"efaxx/results"
)

// decodeExpects checks the [[expect]] array of tables, table by table.
func (d *decoder) decodeExpects(e entry) {
	tables, ok := d.doc.tables(e)
	if !ok {
		d.fail(e, mark(ErrType, "want an array of tables ([[expect]]), got %s", typeName(e.value)))
		return
	}
	for i, t := range tables {
		if x := d.decodeExpect(i, e, t); x != nil {
			d.expects = append(d.expects, *x)
		}
	}
}

// expectFail records err against the key of c, inside [[expect]] table i.
func (d *decoder) expectFail(i int, c entry, err error) {
	key := fmt.Sprintf("expect[%d]", i+1)
	if len(c.key) > 2 {
		key += "." + c.key[2:].String()
	}
	d.errs = append(d.errs, &SweepError{File: d.file, Line: c.line, Key: key, Err: err})
}

// decodeExpect checks table i of [[expect]], whose entries are t. It
// returns nil when the table has errors.
func (d *decoder) decodeExpect(i int, e entry, t []entry) *Expect {
	x := &Expect{File: d.file, Line: firstLineOf(e, t), Stat: "median", Lo: math.Inf(-1), Hi: math.Inf(1)}
	x.Metric, _ = results.LookupMetric("gbps")
	before := len(d.errs)
	have := map[string]entry{}
	for _, c := range t {
		if !slices.Contains(expectKeys, c.name()) {
			d.expectFail(i, c, fmt.Errorf("%w%s", ErrUnknownKey, didYouMean(c.name(), expectKeys)))
			continue
		}
		have[c.name()] = c
	}
	d.expectStrings(i, x, have)
	if c, ok := have["where"]; ok {
		d.decodeWhere(i, c, &x.Where)
	}
	d.expectBounds(i, x, have, entry{key: toml.Key{"expect", fmt.Sprint(i)}, line: x.Line})
	if len(d.errs) > before {
		return nil
	}
	return x
}

// firstLineOf returns the first line of the entries of a table of e, or
// e's line for a table without keys.
func firstLineOf(e entry, t []entry) int {
	first := 0
	for _, c := range t {
		if c.line > 0 && (first == 0 || c.line < first) {
			first = c.line
		}
	}
	if first == 0 {
		return e.line
	}
	return first
}

// expectStrings reads the name, metric and stat keys.
func (d *decoder) expectStrings(i int, x *Expect, have map[string]entry) {
	if c, ok := have["name"]; ok {
		if s, isString := c.value.(string); isString {
			x.Name = s
		} else {
			d.expectFail(i, c, typeError("string", c.value))
		}
	}
	if c, ok := have["metric"]; ok {
		s, isString := c.value.(string)
		m, err := results.LookupMetric(s)
		switch {
		case !isString:
			d.expectFail(i, c, typeError("string", c.value))
		case err != nil:
			d.expectFail(i, c, mark(ErrValue, "%v", err))
		default:
			x.Metric = m
		}
	}
	if c, ok := have["stat"]; ok {
		if s, err := readString(oneOf("stat", stats...))(c.value); err != nil {
			d.expectFail(i, c, err)
		} else {
			x.Stat = s.(string)
		}
	}
}

// expectBounds reads min, max, ref and tolerance into x.Lo, x.Hi and
// x.Bound. table stands for the table itself, for a bound missing.
func (d *decoder) expectBounds(i int, x *Expect, have map[string]entry, table entry) {
	var bounds []string
	for _, k := range []string{"min", "max"} {
		c, ok := have[k]
		if !ok {
			continue
		}
		f, err := readNumber(c.value)
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
		d.expectFail(i, have["max"], mark(ErrValue, "the bounds leave no value: at least %s and at most %s", fmtNum(x.Lo), fmtNum(x.Hi)))
	}
	x.Bound = strings.Join(bounds, ", ")
}

// expectRef reads ref and tolerance: the value may be worse than ref by
// the tolerance, on the metric's bad side only (below for a rate, above
// for a time). It returns the bound's text.
func (d *decoder) expectRef(i int, x *Expect, have map[string]entry) (string, bool) {
	rc, hasRef := have["ref"]
	tc, hasTol := have["tolerance"]
	switch {
	case hasTol && !hasRef:
		d.expectFail(i, tc, mark(ErrValue, "a tolerance needs a ref"))
		return "", false
	case !hasRef:
		return "", false
	case !hasTol:
		d.expectFail(i, rc, fmt.Errorf("%w: a ref needs a tolerance, like tolerance = \"3%%\"", ErrMissingKey))
		return "", false
	}
	ref, err := readNumber(rc.value)
	if err != nil {
		d.expectFail(i, rc, err)
		return "", false
	}
	width, text, err := readTolerance(tc.value, ref)
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
func (d *decoder) decodeWhere(i int, c entry, w *Where) {
	if _, ok := c.value.(map[string]any); !ok {
		d.expectFail(i, c, typeError("table", c.value))
		return
	}
	keys := whereKeys()
	for _, k := range d.doc.children(c) {
		switch name := k.name(); {
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
			d.whereValues(i, k, p, func(vals []any) {
				if w.Params == nil {
					w.Params = map[string][]any{}
				}
				for _, v := range vals {
					w.Params[name] = append(w.Params[name], jsonOf(v))
				}
			})
		default:
			d.expectFail(i, k, fmt.Errorf("%w%s", ErrUnknownKey, didYouMean(name, keys)))
		}
	}
}

// whereValues reads the value or list of values of param p from k and
// passes them to use.
func (d *decoder) whereValues(i int, k entry, p *param, use func([]any)) {
	vals, errs := p.readList(k.value)
	for _, err := range errs {
		d.expectFail(i, k, err)
	}
	if errs == nil {
		use(vals)
	}
}

// whereSize reads the size key: a size (==), a comparison like
// ">= 64MiB", or a range "MIN..MAX" (both included).
func (d *decoder) whereSize(i int, k entry, w *Where) {
	switch v := k.value.(type) {
	case int64:
		n, err := sizeFromInt(v)
		if err != nil {
			d.expectFail(i, k, err)
			return
		}
		w.Sizes = append(w.Sizes, SizeCond{Op: "==", Size: n})
	case string:
		if lo, hi, ok := strings.Cut(v, ".."); ok {
			a, errA := ParseSize(lo)
			b, errB := ParseSize(hi)
			if errA != nil || errB != nil || a > b {
				d.expectFail(i, k, mark(ErrValue, "size range %q: want \"MIN..MAX\" with MIN <= MAX, like \"64MiB..1GiB\"", v))
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
		d.expectFail(i, k, typeError(`size, comparison like ">= 64MiB" or range like "64MiB..1GiB"`, k.value))
	}
}

// fmtNum writes a bound for people: 95, 97.5.
func fmtNum(f float64) string { return fmt.Sprint(f) }
