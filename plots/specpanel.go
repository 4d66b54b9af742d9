package plots

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"efaxx/bytesize"
	"efaxx/harness"
	"efaxx/results"
	"efaxx/tomldoc"
)

// panelKeys decode the keys a panel takes, at the top level (the defaults
// of every panel) or in a [panel.ID] table.
var panelKeys = map[string]func(d *specDecoder, f field, p *Panel){
	"x":             func(d *specDecoder, f field, p *Panel) { d.text(f, &p.X) },
	"y":             (*specDecoder).metric,
	"stat":          func(d *specDecoder, f field, p *Panel) { d.oneOf(f, &p.Stat, knownStats...) },
	"sizes":         func(d *specDecoder, f field, p *Panel) { p.Sizes, _ = d.sizes(f) },
	"roles":         (*specDecoder).roles,
	"series":        func(d *specDecoder, f field, p *Panel) { p.Series, _ = d.strings(f) },
	"series_values": func(d *specDecoder, f field, p *Panel) { p.SeriesValues, _ = d.strings(f) },
	"labels":        func(d *specDecoder, f field, p *Panel) { p.Labels = d.stringTable(f, p.Labels) },
	"x_label":       func(d *specDecoder, f field, p *Panel) { d.text(f, &p.XLabel) },
	"y_label":       func(d *specDecoder, f field, p *Panel) { d.text(f, &p.YLabel) },
	"x_scale":       func(d *specDecoder, f field, p *Panel) { d.oneOf(f, &p.XScale, ScaleLog2, ScaleLog10, ScaleLinear) },
	"y_scale":       func(d *specDecoder, f field, p *Panel) { d.oneOf(f, &p.YScale, ScaleLog10, ScaleLinear) },
	"runs":          func(d *specDecoder, f field, p *Panel) { d.selector(f, &p.Runs) },
	"reference": func(d *specDecoder, f field, p *Panel) {
		if p.Reference == nil {
			p.Reference = &Selector{}
		}
		d.selector(f, p.Reference)
	},
	"baseline":  func(d *specDecoder, f field, p *Panel) { d.text(f, &p.Baseline) },
	"threshold": (*specDecoder).threshold,
	"slowest":   func(d *specDecoder, f field, p *Panel) { d.count(f, &p.Slowest, 1, 20) },
	"variant":   func(d *specDecoder, f field, p *Panel) { d.text(f, &p.Variant) },
	"transpose": func(d *specDecoder, f field, p *Panel) { d.boolean(f, &p.Transpose) },
}

// selectorKeys decode the keys of a runs or reference table.
var selectorKeys = map[string]func(d *specDecoder, f field, s *Selector){
	"sweep":     func(d *specDecoder, f field, s *Selector) { s.Sweeps, _ = d.strings(f) },
	"session":   func(d *specDecoder, f field, s *Selector) { d.text(f, &s.Session) },
	"benchmark": func(d *specDecoder, f field, s *Selector) { s.Benchmarks, _ = d.strings(f) },
	"ids":       func(d *specDecoder, f field, s *Selector) { s.IDs = d.ids(f) },
	"status": func(d *specDecoder, f field, s *Selector) {
		d.oneOf(f, &s.Status, "ok", "partial", "failed", "timeout", "cancelled", "any")
	},
	"tags":   func(d *specDecoder, f field, s *Selector) { s.Tags = d.stringTable(f, s.Tags) },
	"params": func(d *specDecoder, f field, s *Selector) { s.Params = d.paramTable(f, s.Params) },
}

// selector decodes a runs or reference table over s.
func (d *specDecoder) selector(f field, s *Selector) {
	fields, ok := d.table(f)
	if !ok {
		return
	}
	for _, c := range fields {
		if dec := selectorKeys[c.Name()]; dec != nil {
			dec(d, c, s)
		} else {
			d.fail(c, tomldoc.UnknownKey(c.Name(), slices.Collect(maps.Keys(selectorKeys))))
		}
	}
}

// roles reads the sample roles a panel keeps.
func (d *specDecoder) roles(f field, p *Panel) {
	roles, ok := d.strings(f)
	for _, r := range roles {
		if ok && !slices.Contains([]string{"initiator", "target", "both"}, r) {
			d.fail(f, badValue("role %q: want initiator, target or both", r))
			return
		}
	}
	p.Roles = roles
}

// checkPanel checks what a panel's keys say together, once the defaults
// and its own keys are merged. pf is the panel's table; zero for a figure
// without [panel] tables.
func (d *specDecoder) checkPanel(s *Spec, p *Panel, pf field) {
	at := func(key string) field {
		f := field{Key: append(slices.Clone(pf.Key), key), Line: pf.Line}
		if len(pf.Key) == 0 {
			f.Key = []string{key}
		}
		return f
	}
	if p.Y == "" {
		d.fail(at("y"), ErrMissingKey)
	}
	if p.X == "" {
		p.X = results.XSize
	}
	r := p.Runs
	if len(r.Sweeps) == 0 && len(r.IDs) == 0 && len(r.Benchmarks) == 0 {
		d.fail(at("runs"), fmt.Errorf("%w: say which runs: sweep, ids or benchmark", ErrMissingKey))
	}
	if len(p.SeriesValues) > 0 && len(p.Series) == 0 {
		d.fail(at("series_values"), badValue("series_values without series: name the dimensions first"))
	}
	d.checkKind(s.Kind, p, at)
}

// checkKind checks the keys that belong to one kind of figure.
func (d *specDecoder) checkKind(kind string, p *Panel, at func(string) field) {
	if kind != KindMatrix && (p.Variant != "" || p.Transpose) {
		d.fail(at("variant"), badValue("variant and transpose belong to kind = %q", KindMatrix))
	}
	switch kind {
	case KindPublished:
		d.checkPublished(p, at)
		return
	case KindMatrix:
		d.checkMatrix(p, at)
		return
	}
	compare := kind == KindCompare
	switch {
	case compare && (p.Reference == nil) == (p.Baseline == ""):
		d.fail(at("reference"), fmt.Errorf("%w: a compare figure takes a reference table or a baseline (one of them)", ErrMissingKey))
	case !compare && (p.Reference != nil || p.Baseline != "" || p.Threshold != 0):
		d.fail(at("reference"), badValue("reference, baseline and threshold belong to kind = %q", KindCompare))
	}
	for _, s := range p.Series {
		if compare && s != results.DimBenchmark && s != results.DimVariant && !isParam(s) {
			d.fail(at("series"), badValue("%q: a compare figure's series are parameters, benchmark or variant", s))
		}
	}
	if compare && p.X != results.XSize {
		d.fail(at("x"), badValue("a compare figure compares per size: no x key"))
	}
	if compare && p.Baseline != "" && len(p.Series) > 0 {
		d.fail(at("baseline"), badValue("a baseline compares per published series: no series key"))
	}
	if kind == KindSpread && (len(p.Series) > 0 || p.X != results.XSize || len(p.Roles) > 0) {
		d.fail(at("series"), badValue("a spread figure draws every sample of one run per size: no x, series or roles keys"))
	}
	if kind != KindSpread && p.Slowest != 0 {
		d.fail(at("slowest"), badValue("slowest belongs to kind = %q", KindSpread))
	}
}

// checkMatrix checks the keys of a matrix figure: one variant, at most
// one size, and none of the keys of lines.
func (d *specDecoder) checkMatrix(p *Panel, at func(string) field) {
	switch {
	case p.Variant == "":
		d.fail(at("variant"), fmt.Errorf("%w: a matrix figure draws the pairs of one variant: name it", ErrMissingKey))
	case len(p.Sizes) > 1:
		d.fail(at("sizes"), badValue("a matrix figure draws one size (default: the largest measured)"))
	case len(p.Series) > 0 || p.X != results.XSize || len(p.Roles) > 0 || p.Reference != nil || p.Baseline != "" ||
		p.Threshold != 0 || p.Slowest != 0:
		d.fail(at("series"), badValue("a matrix figure takes runs, y, stat, sizes, variant, transpose and labels of its axes only"))
	}
}

// checkPublished checks the keys of a published figure: a baseline, and
// its series picked by benchmark and params only.
func (d *specDecoder) checkPublished(p *Panel, at func(string) field) {
	r := p.Runs
	switch {
	case p.Baseline == "":
		d.fail(at("baseline"), fmt.Errorf("%w: a published figure draws an imported baseline: name it", ErrMissingKey))
	case p.Reference != nil || p.Threshold != 0 || p.Slowest != 0 || len(p.Roles) > 0:
		d.fail(at("reference"), badValue("a published figure takes no reference, threshold, slowest or roles"))
	case len(r.Sweeps) > 0 || len(r.IDs) > 0 || len(r.Tags) > 0 || r.Status != "" || r.Session != "":
		d.fail(at("runs"), badValue("a published figure picks a baseline's series by benchmark and params only"))
	}
	for _, s := range p.Series {
		if s == results.DimSweep || s == results.DimRun {
			d.fail(at("series"), badValue("%q: a baseline's series have no %s; use benchmark, variant, experiment, sample_variant or a parameter", s, s))
		}
	}
}

// text reads a non-empty string into dst and reports whether it did.
func (d *specDecoder) text(f field, dst *string) bool {
	s, ok := f.Value.(string)
	switch {
	case !ok:
		d.fail(f, tomldoc.TypeError("string", f.Value))
	case s == "":
		d.fail(f, badValue("empty"))
	default:
		*dst = s
		return true
	}
	return false
}

// oneOf reads a string that must be one of allowed.
func (d *specDecoder) oneOf(f field, dst *string, allowed ...string) {
	var s string
	if d.text(f, &s) && !slices.Contains(allowed, s) {
		d.fail(f, badValue("%q: want one of %v", s, allowed))
		return
	}
	*dst = s
}

// boolean reads true or false.
func (d *specDecoder) boolean(f field, dst *bool) {
	if b, ok := f.Value.(bool); ok {
		*dst = b
	} else {
		d.fail(f, tomldoc.TypeError("boolean", f.Value))
	}
}

// count reads an integer in [lo, hi].
func (d *specDecoder) count(f field, dst *int, lo, hi int) {
	n, ok := f.Value.(int64)
	switch {
	case !ok:
		d.fail(f, tomldoc.TypeError("integer", f.Value))
	case n < int64(lo) || n > int64(hi):
		d.fail(f, badValue("%d: want %d to %d", n, lo, hi))
	default:
		*dst = int(n)
	}
}

// metric reads y: a metric of results.
func (d *specDecoder) metric(f field, p *Panel) {
	var name string
	if !d.text(f, &name) {
		return
	}
	if _, err := results.LookupMetric(name); err != nil {
		d.fail(f, badValue("%v", err))
		return
	}
	p.Y = name
}

// threshold reads a relative change in (0, 1).
func (d *specDecoder) threshold(f field, p *Panel) {
	v, ok := number(f.Value)
	if !ok || v <= 0 || v >= 1 {
		d.fail(f, badValue("want a number between 0 and 1 (0.05 is 5%%), got %v", f.Value))
		return
	}
	p.Threshold = v
}

// number returns an integer or float value as a float.
func number(v any) (float64, bool) {
	switch v := v.(type) {
	case int64:
		return float64(v), true
	case float64:
		return v, !isNaNOrInf(v)
	}
	return 0, false
}

// strings reads a string or a list of distinct, non-empty strings.
func (d *specDecoder) strings(f field) ([]string, bool) {
	list, ok := f.Value.([]any)
	if !ok {
		list = []any{f.Value}
	}
	if len(list) == 0 {
		d.fail(f, badValue("empty list"))
		return nil, false
	}
	out := make([]string, 0, len(list))
	for _, v := range list {
		s, ok := v.(string)
		switch {
		case !ok:
			d.fail(f, tomldoc.TypeError("string or list of strings", v))
			return nil, false
		case s == "" || slices.Contains(out, s):
			d.fail(f, badValue("%q: empty or given twice", s))
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// ids reads a list of run ids.
func (d *specDecoder) ids(f field) []int64 {
	list, ok := f.Value.([]any)
	switch {
	case !ok:
		d.fail(f, tomldoc.TypeError("list of run ids", f.Value))
		return nil
	case len(list) == 0:
		d.fail(f, badValue("empty list"))
		return nil
	}
	var out []int64
	for _, v := range list {
		id, ok := v.(int64)
		if !ok || id < 1 {
			d.fail(f, badValue("want run ids (integers from 1), got %v", v))
			return nil
		}
		out = append(out, id)
	}
	return out
}

// sizes reads a size or a list of them: integers of bytes or "64MiB".
func (d *specDecoder) sizes(f field) ([]uint64, bool) {
	list, ok := f.Value.([]any)
	if !ok {
		list = []any{f.Value}
	}
	var out []uint64
	for _, v := range list {
		var n uint64
		var err error
		switch v := v.(type) {
		case int64:
			n, err = bytesize.FromInt(v)
		case string:
			n, err = bytesize.Parse(v)
		default:
			d.fail(f, tomldoc.TypeError(`size (like "4KiB" or 4096) or list of sizes`, v))
			return nil, false
		}
		if err != nil {
			d.fail(f, badValue("%v", err))
			return nil, false
		}
		out = append(out, n)
	}
	return out, len(out) > 0
}

// stringTable reads a table of strings over the entries of into.
func (d *specDecoder) stringTable(f field, into map[string]string) map[string]string {
	fields, ok := d.table(f)
	if !ok {
		return into
	}
	if into == nil {
		into = map[string]string{}
	}
	for _, c := range fields {
		var s string
		if d.text(c, &s) {
			into[c.Name()] = s
		}
	}
	return into
}

// scalarTable reads a table of strings, numbers and booleans over the
// entries of into: parameter values.
func (d *specDecoder) scalarTable(f field, into map[string]any) map[string]any {
	fields, ok := d.table(f)
	if !ok {
		return into
	}
	if into == nil {
		into = map[string]any{}
	}
	for _, c := range fields {
		switch v := c.Value.(type) {
		case string, int64, bool:
			into[c.Name()] = v
		case float64:
			if isNaNOrInf(v) {
				d.fail(c, badValue("want a finite number"))
				continue
			}
			into[c.Name()] = v
		default:
			d.fail(c, tomldoc.TypeError("string, number or boolean", c.Value))
		}
	}
	return into
}

// paramTable reads a table of parameter values, each read and checked as
// a sweep's [params] value is (harness.ParamOf): chunk = "1MiB" selects
// the runs that stored 1048576, and chunk = "auto" those of the chunk
// "auto" gave them.
func (d *specDecoder) paramTable(f field, into map[string]any) map[string]any {
	if _, ok := f.Value.(map[string]any); !ok {
		return d.scalarTable(f, into)
	}
	into = d.scalarTable(f, into)
	for _, c := range d.doc.Children(f) {
		if v, ok := into[c.Name()]; ok {
			if _, err := harness.ParamOf(c.Name(), v); err != nil {
				d.fail(c, fmt.Errorf("%w: %w", ErrBadValue, err))
				delete(into, c.Name())
			}
		}
	}
	return into
}

// isNaNOrInf reports whether v is not a finite number.
func isNaNOrInf(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }
