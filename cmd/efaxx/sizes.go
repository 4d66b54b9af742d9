package main

import (
	"fmt"
	"strings"

	"efaxx/bytesize"
	"efaxx/results"
)

// sizeTable lays out the per-size numbers of runs of one unit
// (results.UnitOf): latency, the benchmark's own metric across the run's
// samples, and, where the benchmark measures a floor or reference in the
// same run, each variant over it.
type sizeTable struct {
	unit    results.Unit
	metric  results.Metric
	variant bool // some row has a variant: show the column
}

func newSizeTable(bench string, stats [][]results.SizeStat) (*sizeTable, error) {
	u := results.UnitOf(bench)
	m, err := results.LookupMetric(u.Metric)
	if err != nil {
		return nil, err
	}
	st := &sizeTable{unit: u, metric: m}
	hasRef := false
	for _, run := range stats {
		for _, s := range run {
			st.variant = st.variant || s.Variant != ""
			hasRef = hasRef || (u.Reference != "" && s.Variant == u.Reference)
		}
	}
	if !hasRef { // no run here measured the reference (write on host memory): no columns for it
		st.unit.Reference = ""
	}
	return st, nil
}

// header is the table's header after the given columns.
func (t *sizeTable) header(lead ...string) []string {
	h := append(lead, "SIZE")
	if t.variant {
		h = append(h, "VARIANT")
	}
	h = append(h, "SAMPLES", "LAT P50 (us)")
	ref := ""
	if t.unit.Reference != "" {
		ref = "VS " + strings.ToUpper(t.unit.Reference)
		h = append(h, "LAT "+ref)
	}
	u := unitHeader(t.metric)
	h = append(h, u+" MIN", u+" MEDIAN", u+" MAX")
	if ref != "" {
		h = append(h, u+" "+ref)
	}
	return h
}

// note says what the table's metric counts, for a line under it: which
// bytes a bandwidth counts (the metric's own doc, as query's help has it).
func (t *sizeTable) note() string { return "  " + unitHeader(t.metric) + ": " + t.metric.Doc }

// empty is the row of a run without samples, after its lead columns.
func (t *sizeTable) empty() []string {
	n := len(t.header())
	row := make([]string, n)
	for i := range row {
		row[i] = "-"
	}
	return row
}

// rows formats one run's sizes: latency one-way in µs, the metric across
// the run's samples, and each variant's latency and median over those of
// the reference variant at the same size ("-" for the reference itself,
// or where the run has none).
func (t *sizeTable) rows(stats []results.SizeStat) [][]string {
	ref := map[uint64]results.SizeStat{}
	for _, s := range stats {
		if t.unit.Reference != "" && s.Variant == t.unit.Reference {
			ref[s.Size] = s
		}
	}
	var out [][]string
	for _, s := range stats {
		row := []string{bytesize.Format(s.Size)}
		if t.variant {
			row = append(row, dash(s.Variant))
		}
		row = append(row, fmt.Sprint(s.Ranks), fmt.Sprintf("%.2f", s.LatP50Ns/1e3))
		r, hasRef := ref[s.Size]
		hasRef = hasRef && s.Variant != t.unit.Reference
		if t.unit.Reference != "" {
			row = append(row, refRatio(hasRef, s.LatP50Ns, r.LatP50Ns))
		}
		row = append(row, fmt.Sprintf("%.3f", s.Min), fmt.Sprintf("%.3f", s.Median), fmt.Sprintf("%.3f", s.Max))
		if t.unit.Reference != "" {
			row = append(row, refRatio(hasRef, s.Median, r.Median))
		}
		out = append(out, row)
	}
	return out
}

func refRatio(ok bool, a, b float64) string {
	if !ok || b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", a/b)
}

// unitHeader is a metric's name in a column heading: its unit, and for
// nccl-tests' algbw and busbw, which are both GB/s but count different
// bytes, its name too ("BUSBW GB/s").
func unitHeader(m results.Metric) string {
	switch m.Name {
	case "algbw", "busbw":
		return strings.ToUpper(m.Name) + " " + m.Unit
	}
	return m.Unit
}
