package results

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
)

// ErrBaselineNotFound is returned, wrapped with the name, for a baseline
// that is not imported.
var ErrBaselineNotFound = errors.New("results: baseline not imported")

// ErrNoSeries is returned, wrapped with what the baseline has, when the
// benchmark or a variant a compare selects has no series in the baseline.
var ErrNoSeries = errors.New("results: no such series in the baseline")

// Baseline is a set of published numbers with their provenance, as a
// baseline file (results/baselines/*.toml) holds them.
type Baseline struct {
	Name        string
	Description string
	Repository  string // where the numbers were published
	Transcribed string // when they were copied into the file
	Text        []byte // the file, stored as is
	Series      []BaselineSeries
}

// BaselineSeries is one benchmark, variant and metric of a baseline.
type BaselineSeries struct {
	Benchmark   string `json:"benchmark"`
	Variant     string `json:"variant"`
	Metric      string `json:"metric"` // a metric name; one efaxx does not define is stored but never compared
	File        string `json:"file"`   // the published file, and
	Commit      string `json:"commit"` // the revision it was read at
	Setup       string `json:"setup"`
	Denominator string `json:"denominator"` // what the number divides by, against efaxx's metric
	Note        string `json:"note,omitempty"`

	// Params are the parameter values the runs compared with the series
	// must have, as in {"ranks": 16}; nil for any run of the benchmark.
	Params map[string]any `json:"params,omitempty"`
	// SampleVariant keeps only those runs' samples of this variant
	// ("out-of-place"); "" for every sample.
	SampleVariant string `json:"sample_variant,omitempty"`

	Values map[uint64]float64 `json:"-"` // size in bytes → value in the metric's unit
}

// ImportBaseline stores b, replacing a baseline of the same name, in one
// transaction. It reports false when the same text was imported already.
func (db *DB) ImportBaseline(ctx context.Context, b *Baseline) (bool, error) {
	changed, err := db.ImportBaselines(ctx, []*Baseline{b})
	if err != nil {
		return false, err
	}
	return changed[0], nil
}

// ImportBaselines stores bs as ImportBaseline does, all in one
// transaction, so that one that cannot be stored leaves the store as it
// was. It reports for each whether it changed the store.
func (db *DB) ImportBaselines(ctx context.Context, bs []*Baseline) (_ []bool, err error) {
	defer func() { err = db.storeErr(err) }()
	tx, err := beginWrite(ctx, db.db)
	if err != nil {
		return nil, fmt.Errorf("import baselines: %w", err)
	}
	defer tx.Rollback()
	changed := make([]bool, len(bs))
	for i, b := range bs {
		if changed[i], err = importBaseline(ctx, tx, b, db.Now().UnixNano()); err != nil {
			return nil, fmt.Errorf("import baseline %q: %w", b.Name, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("import baselines: %w", err)
	}
	return changed, nil
}

// importBaseline stores b within tx unless the same text is stored, and
// reports whether it did.
func importBaseline(ctx context.Context, tx *sql.Tx, b *Baseline, now int64) (bool, error) {
	sum := sha256.Sum256(b.Text)
	hash := hex.EncodeToString(sum[:])
	var old string
	err := tx.QueryRowContext(ctx, `SELECT hash FROM baselines WHERE name = ?`, b.Name).Scan(&old)
	switch {
	case err == nil && old == hash:
		return false, nil
	case err != nil && !errors.Is(err, sql.ErrNoRows):
		return false, err
	}
	return true, insertBaseline(ctx, tx, b, hash, now)
}

// insertBaseline replaces the baseline of b's name with b within tx.
func insertBaseline(ctx context.Context, tx *sql.Tx, b *Baseline, hash string, now int64) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM baselines WHERE name = ?`, b.Name); err != nil {
		return err
	}
	res, err := tx.ExecContext(ctx, `
		INSERT INTO baselines (name, description, repository, transcribed, hash, text, imported_ns)
		VALUES (?, ?, ?, ?, ?, ?, ?)`,
		b.Name, b.Description, b.Repository, b.Transcribed, hash, string(b.Text), now)
	if err != nil {
		return err
	}
	id, err := res.LastInsertId()
	if err != nil {
		return err
	}
	for _, s := range b.Series {
		if err := insertSeries(ctx, tx, id, s); err != nil {
			return fmt.Errorf("series %s %s %s: %w", s.Benchmark, s.Variant, s.Metric, err)
		}
	}
	return nil
}

// insertSeries stores s in baseline id.
func insertSeries(ctx context.Context, tx *sql.Tx, id int64, s BaselineSeries) error {
	params, err := jsonText(s.Params, "{}")
	if err != nil {
		return err
	}
	res, err := tx.ExecContext(ctx, `
		INSERT INTO baseline_series (baseline_id, benchmark, variant, metric, file, revision, setup, denominator, note,
			params, sample_variant)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		id, s.Benchmark, s.Variant, s.Metric, s.File, s.Commit, s.Setup, s.Denominator, s.Note, params, s.SampleVariant)
	if err != nil {
		return err
	}
	sid, err := res.LastInsertId()
	if err != nil {
		return err
	}
	for size, v := range s.Values {
		if _, err := tx.ExecContext(ctx, `INSERT INTO baseline_values (series_id, size, value) VALUES (?, ?, ?)`,
			sid, int64(size), v); err != nil {
			return err
		}
	}
	return nil
}

// baselineSeries reads the series of the baseline called name, values
// included, in benchmark, variant and metric order.
func (db *DB) baselineSeries(ctx context.Context, name string) (string, []BaselineSeries, error) {
	var id int64
	var desc string
	err := db.db.QueryRowContext(ctx, `SELECT id, description FROM baselines WHERE name = ?`, name).Scan(&id, &desc)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil, fmt.Errorf("baseline %q: %w", name, ErrBaselineNotFound)
	} else if err != nil {
		return "", nil, fmt.Errorf("baseline %q: %w", name, err)
	}
	rows, err := db.db.QueryContext(ctx, `
		SELECT s.benchmark, s.variant, s.metric, s.file, s.revision, s.setup, s.denominator, s.note,
			s.params, s.sample_variant, v.size, v.value
		FROM baseline_series s JOIN baseline_values v ON v.series_id = s.id
		WHERE s.baseline_id = ?
		ORDER BY s.benchmark, s.variant, s.metric, v.size`, id)
	if err != nil {
		return "", nil, fmt.Errorf("baseline %q: %w", name, err)
	}
	defer rows.Close()
	var out []BaselineSeries
	for rows.Next() {
		var s BaselineSeries
		var size int64
		var v float64
		var params string
		if err := rows.Scan(&s.Benchmark, &s.Variant, &s.Metric, &s.File, &s.Commit, &s.Setup,
			&s.Denominator, &s.Note, &params, &s.SampleVariant, &size, &v); err != nil {
			return "", nil, fmt.Errorf("baseline %q: %w", name, err)
		}
		if err := decodeSeriesParams(params, &s); err != nil {
			return "", nil, fmt.Errorf("baseline %q: %w", name, err)
		}
		if n := len(out); n == 0 || out[n-1].Benchmark != s.Benchmark || out[n-1].Variant != s.Variant || out[n-1].Metric != s.Metric {
			s.Values = map[uint64]float64{}
			out = append(out, s)
		}
		out[len(out)-1].Values[uint64(size)] = v
	}
	return desc, out, rows.Err()
}

// BaselineCompare puts the runs a filter selects beside a baseline: per
// series whose metric efaxx derives and whose benchmark the runs have, per
// size both have.
type BaselineCompare struct {
	Baseline  string
	Runs      RunFilter
	Variants  []string // only these variants; nil for all
	Threshold float64  // see Compare; 0.05 when 0
	Alpha     float64  // see Compare; 0.05 when 0
	MinRuns   int      // see Compare; 4 when 0
	Bootstrap Bootstrap
}

// BaselineRow is one size of one series beside the runs.
type BaselineRow struct {
	Series    *BaselineSeries `json:"-"`
	Variant   string          `json:"variant"`
	Metric    string          `json:"metric"`
	Size      uint64          `json:"size"`
	Baseline  float64         `json:"baseline"`
	Runs      SideStat        `json:"runs"`
	Judgement                 // Ratio is the runs' median over the baseline, taken as exact
}

// BaselineComparison is what CompareBaseline returns.
type BaselineComparison struct {
	Name        string           `json:"baseline"`
	Description string           `json:"description"`
	Hash        string           `json:"hash"` // SHA-256 of the baseline file as imported
	Threshold   float64          `json:"threshold"`
	Alpha       float64          `json:"alpha"`
	MinRuns     int              `json:"min_runs"`
	Bootstrap   Bootstrap        `json:"bootstrap"`
	Series      []BaselineSeries `json:"series"` // the series compared
	Rows        []BaselineRow    `json:"rows"`
	Skipped     []string         `json:"skipped"`        // series not compared, and why
	Differ      []SeriesDiff     `json:"differ"`         // series not compared because no selected run has their setup
	NotCompared []int64          `json:"not_compared"`   // selected runs whose setup no compared series has
	NotOK       []int64          `json:"not_ok"`         // selected runs left out as they did not end ok (efaxx compare)
	Note        string           `json:"note,omitempty"` // when tested rows had too few runs to be significant alone
}

// SeriesDiff is a series left out because no selected run of its
// benchmark has every one of its params: the params the runs differ in,
// A the series' value and B the runs' values.
type SeriesDiff struct {
	Benchmark string      `json:"benchmark"`
	Variant   string      `json:"variant"`
	Metric    string      `json:"metric"`
	Params    []ParamDiff `json:"params"`
}

// CompareBaseline runs c. Every series is compared in its own metric, so
// a run is judged in the baseline's unit and denominator.
func (db *DB) CompareBaseline(ctx context.Context, c BaselineCompare) (*BaselineComparison, error) {
	desc, series, err := db.baselineSeries(ctx, c.Baseline)
	if err != nil {
		return nil, err
	}
	cmp := Compare{Threshold: c.Threshold, Alpha: c.Alpha, MinRuns: c.MinRuns, Bootstrap: c.Bootstrap}.defaults()
	var hash string
	if err := db.db.QueryRowContext(ctx, `SELECT hash FROM baselines WHERE name = ?`, c.Baseline).Scan(&hash); err != nil {
		return nil, fmt.Errorf("baseline %q: %w", c.Baseline, err)
	}
	out := &BaselineComparison{Name: c.Baseline, Description: desc, Hash: hash, Threshold: cmp.Threshold, Alpha: cmp.Alpha,
		MinRuns: cmp.MinRuns, Bootstrap: cmp.Bootstrap, Series: []BaselineSeries{}, Rows: []BaselineRow{}, Skipped: []string{},
		Differ: []SeriesDiff{}, NotCompared: []int64{}, NotOK: []int64{}}
	if err := c.checkSeries(series); err != nil {
		return nil, err
	}
	for i := range series {
		s := &series[i]
		if !c.wants(s) {
			continue
		}
		rows, why, diffs, err := db.compareSeries(ctx, c.Runs, s, cmp, uint64(i))
		if err != nil {
			return nil, fmt.Errorf("compare with baseline %q: %w", c.Baseline, err)
		}
		if diffs != nil {
			out.Differ = append(out.Differ, SeriesDiff{Benchmark: s.Benchmark, Variant: s.Variant, Metric: s.Metric, Params: diffs})
		}
		if why != "" {
			out.Skipped = append(out.Skipped, fmt.Sprintf("%s %s %s: %s", s.Benchmark, s.Variant, s.Metric, why))
			continue
		}
		out.Series = append(out.Series, *s)
		out.Rows = append(out.Rows, rows...)
	}
	if out.NotCompared, err = db.notCompared(ctx, c.Runs, out.Series); err != nil {
		return nil, fmt.Errorf("compare with baseline %q: %w", c.Baseline, err)
	}
	js := make([]*Judgement, len(out.Rows))
	for i := range out.Rows {
		js[i] = &out.Rows[i].Judgement
	}
	out.Note = cmp.decide(js)
	return out, nil
}

// wants reports whether c compares series s: one of its benchmark and
// variants, when it names them.
func (c BaselineCompare) wants(s *BaselineSeries) bool {
	return (c.Runs.Benchmark == "" || s.Benchmark == c.Runs.Benchmark) &&
		(c.Variants == nil || slices.Contains(c.Variants, s.Variant))
}

// checkSeries says, naming what the baseline has, when c's benchmark or
// one of its variants has no series in it: nothing could be compared.
func (c BaselineCompare) checkSeries(series []BaselineSeries) error {
	var benchmarks, variants []string
	for _, s := range series {
		benchmarks = append(benchmarks, s.Benchmark)
		if c.Runs.Benchmark == "" || s.Benchmark == c.Runs.Benchmark {
			variants = append(variants, s.Variant)
		}
	}
	list := func(names []string) string {
		slices.Sort(names)
		return strings.Join(slices.Compact(names), ", ")
	}
	if c.Runs.Benchmark != "" && !slices.Contains(benchmarks, c.Runs.Benchmark) {
		return fmt.Errorf("baseline %q has no series of benchmark %q (it has %s): %w",
			c.Baseline, c.Runs.Benchmark, list(benchmarks), ErrNoSeries)
	}
	for _, v := range c.Variants {
		if !slices.Contains(variants, v) {
			of := ""
			if c.Runs.Benchmark != "" {
				of = " of " + c.Runs.Benchmark
			}
			return fmt.Errorf("baseline %q has no variant %q%s (the variants%s: %s): %w",
				c.Baseline, v, of, of, list(variants), ErrNoSeries)
		}
	}
	return nil
}

// compareSeries compares the runs of f that have the params of series s
// with it, or says why not; where runs of its benchmark are selected but
// none has its setup, diffs says how they differ. f selects no other
// benchmark than s's (wants saw to it).
func (db *DB) compareSeries(ctx context.Context, f RunFilter, s *BaselineSeries, cmp Compare, stream uint64) (
	rows []BaselineRow, why string, diffs []ParamDiff, err error) {
	m, err := LookupMetric(s.Metric)
	if err != nil {
		return nil, "efaxx does not derive this metric", nil, nil
	}
	f.Benchmark = s.Benchmark
	if diffs, err = db.setupDiffs(ctx, f, s); err != nil || diffs != nil {
		return nil, "no selected run has its setup: " + diffText(diffs), diffs, err
	}
	f.Params = append(slices.Clone(f.Params), s.paramFilters()...)
	if s.SampleVariant != "" {
		f.SampleVariant = &s.SampleVariant
	}
	sides, err := db.loadSide(ctx, f, m, []string{})
	if err != nil {
		return nil, "", nil, err
	}
	cmp.Metric = m
	for _, size := range slices.Sorted(maps.Keys(s.Values)) {
		// The runs' samples of the benchmark itself: not the references a
		// run measures beside it (cudaMemcpy on GPU memory, proxy's cpu),
		// which pooled with them would move each run's median.
		var keys []groupKey
		for k := range sides {
			if k.size == size && (s.SampleVariant != "" || !IsReference(s.Benchmark, k.variant)) {
				keys = append(keys, k)
			}
		}
		switch len(keys) {
		case 0:
			continue
		case 1:
			rows = append(rows, cmp.baselineRow(s, size, sides[keys[0]], stream<<32|size&0xffffffff))
			continue
		}
		variants := make([]string, len(keys))
		for i, k := range keys {
			variants[i] = k.variant
		}
		slices.Sort(variants)
		return nil, fmt.Sprintf("its runs measure it several ways (variants %s): the series must name one (sample_variant)",
			strings.Join(variants, ", ")), nil, nil
	}
	if len(rows) == 0 {
		return nil, "no selected run of this benchmark at any of its sizes", nil, nil
	}
	return rows, "", nil, nil
}

// setupDiffs returns, when f selects runs but none with every param of
// s, the params in which they differ from s, each with the values the
// runs have (nil for a run without the param); nil otherwise.
func (db *DB) setupDiffs(ctx context.Context, f RunFilter, s *BaselineSeries) ([]ParamDiff, error) {
	if len(s.Params) == 0 {
		return nil, nil
	}
	f.Limit = 0
	runs, err := db.Runs(ctx, f)
	if err != nil {
		return nil, err
	}
	if len(runs) == 0 || slices.ContainsFunc(runs, s.fits) {
		return nil, nil
	}
	var diffs []ParamDiff
	for _, k := range slices.Sorted(maps.Keys(s.Params)) {
		values := map[string]any{}
		for _, r := range runs {
			values[ParamText(r.Params[k])] = r.Params[k]
		}
		if _, ok := values[ParamText(s.Params[k])]; ok && len(values) == 1 {
			continue // every run has it
		}
		d := ParamDiff{Key: k, A: []any{s.Params[k]}, B: []any{}}
		for _, t := range slices.Sorted(maps.Keys(values)) {
			d.B = append(d.B, values[t])
		}
		diffs = append(diffs, d)
	}
	return diffs, nil
}

// fits reports whether run r is of the benchmark and setup of s: it has
// every one of s's params.
func (s *BaselineSeries) fits(r Run) bool {
	for k, v := range s.Params {
		if got, ok := r.Params[k]; !ok || ParamText(got) != ParamText(v) {
			return false
		}
	}
	return r.Benchmark == s.Benchmark
}

// notCompared returns the ids of the runs f selects that none of the
// series fits, so that a run left out is named, not dropped in silence.
func (db *DB) notCompared(ctx context.Context, f RunFilter, series []BaselineSeries) ([]int64, error) {
	f.Limit = 0
	runs, err := db.Runs(ctx, f)
	if err != nil {
		return nil, err
	}
	ids := []int64{}
	for _, r := range runs {
		if !slices.ContainsFunc(series, func(s BaselineSeries) bool { return s.fits(r) }) {
			ids = append(ids, r.ID)
		}
	}
	slices.Sort(ids)
	return ids, nil
}

// diffText writes diffs as "memory device (runs: host), ranks 4 (runs:
// 2)"; a run without the param has "null".
func diffText(diffs []ParamDiff) string {
	parts := make([]string, len(diffs))
	for i, d := range diffs {
		runs := make([]string, len(d.B))
		for j, v := range d.B {
			runs[j] = ParamText(v)
		}
		parts[i] = fmt.Sprintf("%s %s (runs: %s)", d.Key, ParamText(d.A[0]), strings.Join(runs, ", "))
	}
	return strings.Join(parts, ", ")
}

// baselineRow tests the runs of one size against the series' published
// value, taken as exact: Wilcoxon signed-rank over the logs of the runs'
// values over it, so a run 10% above weighs as one 10% below.
func (c Compare) baselineRow(s *BaselineSeries, size uint64, runs *side, stream uint64) BaselineRow {
	ref := s.Values[size]
	r := BaselineRow{Series: s, Variant: s.Variant, Metric: s.Metric, Size: size, Baseline: ref, Runs: runs.stat()}
	r.Judgement = c.interval(&side{runs: map[int64][]float64{0: {ref}}}, runs, stream)
	r.Ratio, r.lower = Float(r.Runs.Median/ref), c.Metric.Lower
	r.minP = minSignedRank(r.Runs.Runs)
	if r.Note = c.tooFew(runCount(r.Runs.Runs), "", r.Runs.Runs, r.minP); r.Note == "" {
		values := runs.runValues()
		d := make([]float64, len(values))
		for i, v := range values {
			d[i] = math.Log(v / ref)
		}
		p := signedRank(d)
		r.Test, r.P = TestSignedRank, &p
	}
	return r
}

// paramFilters returns the run filters of the series' params, in key
// order.
func (s *BaselineSeries) paramFilters() []ParamFilter {
	var out []ParamFilter
	for _, k := range slices.Sorted(maps.Keys(s.Params)) {
		out = append(out, ParamFilter{Key: k, Value: s.Params[k]})
	}
	return out
}

// decodeSeriesParams reads a series' params column into s: JSON numbers
// as int64 when whole (as runs' filters compare them), lists of strings
// as []string.
func decodeSeriesParams(text string, s *BaselineSeries) error {
	var raw map[string]any
	if err := json.Unmarshal([]byte(text), &raw); err != nil {
		return fmt.Errorf("series %s %s params: %w", s.Benchmark, s.Variant, err)
	}
	if len(raw) == 0 {
		return nil
	}
	s.Params = map[string]any{}
	for k, v := range raw {
		switch v := v.(type) {
		case float64:
			if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
				s.Params[k] = int64(v)
			} else {
				s.Params[k] = v
			}
		case []any:
			list := make([]string, len(v))
			for i, x := range v {
				list[i], _ = x.(string)
			}
			s.Params[k] = list
		default:
			s.Params[k] = v
		}
	}
	return nil
}

// Baseline returns the imported baseline called name with every series,
// or an error wrapping ErrBaselineNotFound.
func (db *DB) Baseline(ctx context.Context, name string) (*Baseline, error) {
	b := &Baseline{Name: name}
	err := db.db.QueryRowContext(ctx, `SELECT repository, transcribed FROM baselines WHERE name = ?`, name).
		Scan(&b.Repository, &b.Transcribed)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("baseline %q: %w", name, ErrBaselineNotFound)
	} else if err != nil {
		return nil, fmt.Errorf("baseline %q: %w", name, err)
	}
	if b.Description, b.Series, err = db.baselineSeries(ctx, name); err != nil {
		return nil, err
	}
	return b, nil
}
