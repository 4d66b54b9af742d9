package harness

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"efaxx/results"
)

// baselineKeys are the top-level keys of a baseline file; the first two
// and series are required.
var baselineKeys = []string{"name", "repository", "description", "transcribed", "series"}

// seriesKeys are the keys of a [[series]] table; all but setup, note,
// params and sample_variant are required.
var seriesKeys = []string{"benchmark", "variant", "metric", "file", "commit", "denominator", "values", "setup", "note",
	"params", "sample_variant"}

// ParseBaseline parses a baseline file (results/baselines/*.toml): a name,
// where the numbers come from, and [[series]] tables of a value per size.
// Decoding is as strict as for sweeps: an invalid file gives an ErrorList
// of "file:line: key: message".
func ParseBaseline(file string, data []byte) (*results.Baseline, error) {
	doc, top, err := parseDocument(data)
	if err != nil {
		return nil, ErrorList{syntaxError(file, err)}
	}
	d := &decoder{file: file, doc: doc}
	b := &results.Baseline{Text: data}
	strs := map[string]*string{"name": &b.Name, "repository": &b.Repository, "description": &b.Description,
		"transcribed": &b.Transcribed}
	seen := map[string]bool{}
	for _, e := range top {
		seen[e.name()] = true
		switch {
		case !slices.Contains(baselineKeys, e.name()):
			d.fail(e, fmt.Errorf("%w%s", ErrUnknownKey, didYouMean(e.name(), baselineKeys)))
		case e.name() == "series":
			b.Series = d.decodeSeries(e)
		default:
			d.readStringKey(e, strs[e.name()])
		}
	}
	d.requireKeys(seen, "", "name", "repository", "series")
	if len(d.errs) > 0 {
		slices.SortStableFunc(d.errs, func(a, b *SweepError) int { return cmp.Compare(sortLine(a), sortLine(b)) })
		return nil, d.errs
	}
	return b, nil
}

// readStringKey reads a string key into dst.
func (d *decoder) readStringKey(e entry, dst *string) {
	if s, ok := e.value.(string); ok {
		*dst = s
	} else {
		d.fail(e, typeError("string", e.value))
	}
}

// requireKeys reports each of keys missing from seen; at names the table.
func (d *decoder) requireKeys(seen map[string]bool, at string, keys ...string) {
	for _, k := range keys {
		if !seen[k] {
			d.errs = append(d.errs, &SweepError{File: d.file, Key: at + k, Err: ErrMissingKey})
		}
	}
}

// decodeSeries reads the [[series]] tables.
func (d *decoder) decodeSeries(e entry) []results.BaselineSeries {
	tables, ok := d.doc.tables(e)
	if !ok {
		d.fail(e, mark(ErrType, "want an array of tables ([[series]]), got %s", typeName(e.value)))
		return nil
	}
	var out []results.BaselineSeries
	names := map[string]int{} // benchmark, variant and metric → table number
	for i, t := range tables {
		s := d.decodeOneSeries(i, t)
		key := s.Benchmark + " " + s.Variant + " " + s.Metric
		if j, dup := names[key]; dup && len(t) > 0 {
			d.errs = append(d.errs, &SweepError{File: d.file, Line: firstLineOf(e, t), Key: fmt.Sprintf("series[%d]", i+1),
				Err: mark(ErrDuplicate, "%s is series %d already", key, j+1)})
		}
		names[key] = i
		out = append(out, s)
	}
	return out
}

// decodeOneSeries reads [[series]] table i.
func (d *decoder) decodeOneSeries(i int, t []entry) results.BaselineSeries {
	var s results.BaselineSeries
	strs := map[string]*string{"benchmark": &s.Benchmark, "variant": &s.Variant, "metric": &s.Metric, "file": &s.File,
		"commit": &s.Commit, "denominator": &s.Denominator, "setup": &s.Setup, "note": &s.Note,
		"sample_variant": &s.SampleVariant}
	seen := map[string]bool{}
	at := fmt.Sprintf("series[%d]", i+1)
	for _, c := range t {
		seen[c.name()] = true
		switch {
		case !slices.Contains(seriesKeys, c.name()):
			d.seriesFail(i, c, fmt.Errorf("%w%s", ErrUnknownKey, didYouMean(c.name(), seriesKeys)))
		case c.name() == "values":
			s.Values = d.decodeValues(i, c)
		case c.name() == "params":
			s.Params = d.decodeSeriesParams(i, c)
		default:
			v, ok := c.value.(string)
			switch {
			case !ok:
				d.seriesFail(i, c, typeError("string", c.value))
			case v == "":
				d.seriesFail(i, c, mark(ErrValue, "empty: say what it is, or \"unknown\""))
			default:
				*strs[c.name()] = v
			}
		}
	}
	d.requireKeys(seen, at+".", "benchmark", "variant", "metric", "file", "commit", "denominator", "values")
	return s
}

// seriesFail records err against key c of [[series]] table i.
func (d *decoder) seriesFail(i int, c entry, err error) {
	d.errs = append(d.errs, &SweepError{File: d.file, Line: c.line, Key: fmt.Sprintf("series[%d].%s", i+1, c.key[2:]), Err: err})
}

// decodeValues reads a values table: a size as the key, a finite number
// as the value.
func (d *decoder) decodeValues(i int, c entry) map[uint64]float64 {
	if _, ok := c.value.(map[string]any); !ok {
		d.seriesFail(i, c, typeError(`table of size = value, like { "1MiB" = 97.2 }`, c.value))
		return nil
	}
	values := map[uint64]float64{}
	children := d.doc.children(c)
	for _, k := range children {
		size, err := ParseSize(k.name())
		if err != nil {
			d.seriesFail(i, k, err)
			continue
		}
		v, err := readNumber(k.value)
		if err == nil && (math.IsNaN(v) || v < 0) {
			err = mark(ErrValue, "%v: want a number of at least 0", v)
		}
		if err != nil {
			d.seriesFail(i, k, err)
			continue
		}
		if _, dup := values[size]; dup {
			d.seriesFail(i, k, mark(ErrDuplicate, "size %s given twice", FormatSize(size)))
		}
		values[size] = v
	}
	if len(children) == 0 {
		d.seriesFail(i, c, fmt.Errorf("%w: a series needs at least one value", ErrEmptyList))
	}
	return values
}

// decodeSeriesParams reads a series' params table: the parameter values
// of the runs it is compared with, each a string, an integer, a number,
// a boolean or a list of strings, as runs store them.
func (d *decoder) decodeSeriesParams(i int, c entry) map[string]any {
	if _, ok := c.value.(map[string]any); !ok {
		d.seriesFail(i, c, typeError(`table of parameter = value, like { ranks = 16 }`, c.value))
		return nil
	}
	out := map[string]any{}
	for _, k := range d.doc.children(c) {
		switch v := k.value.(type) {
		case string, int64, float64, bool:
			out[k.name()] = v
		case []any:
			list := make([]string, len(v))
			for j, x := range v {
				s, ok := x.(string)
				if !ok {
					d.seriesFail(i, k, fmt.Errorf("item %d: %w", j+1, typeError("string", x)))
					return nil
				}
				list[j] = s
			}
			out[k.name()] = list
		default:
			d.seriesFail(i, k, typeError("string, number, boolean or list of strings", k.value))
		}
	}
	return out
}
