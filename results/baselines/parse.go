package baselines

import (
	"fmt"
	"math"
	"slices"

	"efaxx/bytesize"
	"efaxx/lineerr"
	"efaxx/results"
	"efaxx/tomldoc"
)

// baselineKeys are the top-level keys of a baseline file; the first two
// and series are required.
var baselineKeys = []string{"name", "repository", "description", "transcribed", "series"}

// seriesKeys are the keys of a [[series]] table; all but setup, note,
// params and sample_variant are required.
var seriesKeys = []string{"benchmark", "variant", "metric", "file", "commit", "denominator", "values", "setup", "note",
	"params", "sample_variant"}

// Parse parses a baseline file (results/baselines/*.toml, or one of the
// user's): a name, where the numbers come from, and [[series]] tables of a
// value per size. Decoding is as strict as for sweeps: an invalid file
// gives a lineerr.Errors of "file:line: key: message".
func Parse(file string, data []byte) (*results.Baseline, error) {
	doc, top, err := tomldoc.Parse(file, data)
	if err != nil {
		return nil, err
	}
	d := &decoder{file: file, doc: doc}
	b := &results.Baseline{Text: data}
	strs := map[string]*string{"name": &b.Name, "repository": &b.Repository, "description": &b.Description,
		"transcribed": &b.Transcribed}
	seen := map[string]bool{}
	for _, e := range top {
		seen[e.Name()] = true
		switch {
		case !slices.Contains(baselineKeys, e.Name()):
			d.fail(e, tomldoc.UnknownKey(e.Name(), baselineKeys))
		case e.Name() == "series":
			b.Series = d.decodeSeries(e)
		default:
			d.readStringKey(e, strs[e.Name()])
		}
	}
	d.requireKeys(seen, 0, "", "name", "repository", "series")
	d.errs.Sort()
	if err := d.errs.Err(); err != nil {
		return nil, err
	}
	return b, nil
}

// decoder checks the keys of one baseline file and collects every error.
type decoder struct {
	file string
	doc  *tomldoc.Document
	errs lineerr.Errors
}

// fail records err against the key of e.
func (d *decoder) fail(e tomldoc.Entry, err error) {
	d.errs = append(d.errs, &lineerr.Error{File: d.file, Line: e.Line, Key: e.Key.String(), Err: err})
}

// readStringKey reads a string key into dst.
func (d *decoder) readStringKey(e tomldoc.Entry, dst *string) {
	if s, ok := e.Value.(string); ok {
		*dst = s
	} else {
		d.fail(e, tomldoc.TypeError("string", e.Value))
	}
}

// requireKeys reports each of keys missing from seen; at names the table,
// and line is its header's (0 for the file's top level).
func (d *decoder) requireKeys(seen map[string]bool, line int, at string, keys ...string) {
	for _, k := range keys {
		if !seen[k] {
			d.errs = append(d.errs, &lineerr.Error{File: d.file, Line: line, Key: at + k, Err: tomldoc.ErrMissingKey})
		}
	}
}

// decodeSeries reads the [[series]] tables.
func (d *decoder) decodeSeries(e tomldoc.Entry) []results.BaselineSeries {
	tables, ok := d.doc.Tables(e)
	if !ok {
		d.fail(e, tomldoc.TypeError("list of tables ([[series]])", e.Value))
		return nil
	}
	// A table's missing keys are reported at its header: a table without
	// keys has no other line.
	lines := d.doc.TableLines(e)
	var out []results.BaselineSeries
	names := map[string]int{} // benchmark, variant and metric → table number
	for i, t := range tables {
		s := d.decodeOneSeries(i, lines[i], t)
		key := s.Benchmark + " " + s.Variant + " " + s.Metric
		if j, dup := names[key]; dup && len(t) > 0 {
			d.errs = append(d.errs, &lineerr.Error{File: d.file, Line: tomldoc.FirstLine(t, e.Line), Key: fmt.Sprintf("series[%d]", i+1),
				Err: lineerr.Mark(tomldoc.ErrValue, "%s is series %d already", key, j+1)})
		}
		names[key] = i
		out = append(out, s)
	}
	return out
}

// decodeOneSeries reads [[series]] table i, whose entries are t and whose
// header is at line.
func (d *decoder) decodeOneSeries(i, line int, t []tomldoc.Entry) results.BaselineSeries {
	var s results.BaselineSeries
	strs := map[string]*string{"benchmark": &s.Benchmark, "variant": &s.Variant, "metric": &s.Metric, "file": &s.File,
		"commit": &s.Commit, "denominator": &s.Denominator, "setup": &s.Setup, "note": &s.Note,
		"sample_variant": &s.SampleVariant}
	seen := map[string]bool{}
	at := fmt.Sprintf("series[%d]", i+1)
	for _, c := range t {
		seen[c.Name()] = true
		switch {
		case !slices.Contains(seriesKeys, c.Name()):
			d.seriesFail(i, c, tomldoc.UnknownKey(c.Name(), seriesKeys))
		case c.Name() == "values":
			s.Values = d.decodeValues(i, c)
		case c.Name() == "params":
			s.Params = d.decodeSeriesParams(i, c)
		default:
			v, ok := c.Value.(string)
			switch {
			case !ok:
				d.seriesFail(i, c, tomldoc.TypeError("string", c.Value))
			case v == "":
				d.seriesFail(i, c, lineerr.Mark(tomldoc.ErrValue, "empty: say what it is, or \"unknown\""))
			default:
				*strs[c.Name()] = v
			}
		}
	}
	d.requireKeys(seen, line, at+".", "benchmark", "variant", "metric", "file", "commit", "denominator", "values")
	return s
}

// seriesFail records err against key c of [[series]] table i.
func (d *decoder) seriesFail(i int, c tomldoc.Entry, err error) {
	d.errs = append(d.errs, &lineerr.Error{File: d.file, Line: c.Line, Key: fmt.Sprintf("series[%d].%s", i+1, c.Key[2:]), Err: err})
}

// decodeValues reads a values table: a size as the key, a finite number
// as the value.
func (d *decoder) decodeValues(i int, c tomldoc.Entry) map[uint64]float64 {
	if _, ok := c.Value.(map[string]any); !ok {
		d.seriesFail(i, c, tomldoc.TypeError(`table of size = value, like { "1MiB" = 97.2 }`, c.Value))
		return nil
	}
	values := map[uint64]float64{}
	children := d.doc.Children(c)
	for _, k := range children {
		size, err := bytesize.Parse(k.Name())
		if err != nil {
			d.seriesFail(i, k, err)
			continue
		}
		v, err := tomldoc.Number(k.Value)
		if err == nil && (math.IsNaN(v) || v < 0) {
			err = lineerr.Mark(tomldoc.ErrValue, "%v: want a number of at least 0", v)
		}
		if err != nil {
			d.seriesFail(i, k, err)
			continue
		}
		if _, dup := values[size]; dup {
			d.seriesFail(i, k, lineerr.Mark(tomldoc.ErrValue, "size %s given twice", bytesize.Format(size)))
		}
		values[size] = v
	}
	if len(children) == 0 {
		d.seriesFail(i, c, lineerr.Mark(tomldoc.ErrValue, "empty list: a series needs at least one value"))
	}
	return values
}

// decodeSeriesParams reads a series' params table: the parameter values
// of the runs it is compared with, each a string, an integer, a number,
// a boolean or a list of strings, as runs store them.
func (d *decoder) decodeSeriesParams(i int, c tomldoc.Entry) map[string]any {
	if _, ok := c.Value.(map[string]any); !ok {
		d.seriesFail(i, c, tomldoc.TypeError(`table of parameter = value, like { ranks = 16 }`, c.Value))
		return nil
	}
	out := map[string]any{}
	for _, k := range d.doc.Children(c) {
		switch v := k.Value.(type) {
		case string, int64, float64, bool:
			out[k.Name()] = v
		case []any:
			list := make([]string, len(v))
			for j, x := range v {
				s, ok := x.(string)
				if !ok {
					d.seriesFail(i, k, fmt.Errorf("item %d: %w", j+1, tomldoc.TypeError("string", x)))
					return nil
				}
				list[j] = s
			}
			out[k.Name()] = list
		default:
			d.seriesFail(i, k, tomldoc.TypeError("string, number, boolean or list of strings", k.Value))
		}
	}
	return out
}
