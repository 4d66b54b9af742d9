package main

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"efaxx/bytesize"
	"efaxx/harness"
	"efaxx/results"
)

func newQueryCommand() *cli.Command {
	return &cli.Command{
		Name:  "query",
		Usage: "aggregate a metric over stored runs, per benchmark, parameters and message size",
		Description: `Selects runs with the same filters as efaxx runs, and aggregates one metric
over all their samples (every rank of every run) per group of benchmark,
the --by parameters, message size and variant (the queue's ring and its
floor are rows apart, as in show): count, min, median, mean, max, p99.
Median and p99 are SQLite's percentile() (linear between sorted values).
By default the groups are split by every parameter whose value differs
between the selected runs; --by "" pools them all per size.

Only runs that ended ok are aggregated, or exported, as compare takes
them: a failed, partial or timed-out run holds only what its ranks wrote
before they stopped. The others are named in a note on stderr, so that
stdout stays the table, CSV or JSON; --status STATUS queries the runs of
that status instead (--status failed).

Metrics (docs/metrics.md):
` + metricHelp() + `
With --raw, exports every sample of the selected runs instead, as the
runner measured it (run, size, rank, peer, variant, role, host, bytes,
iterations, elapsed and per-iteration times in ns) with the value of
--metric, one row each, streamed: --format csv, json, or ndjson (one JSON
object a line).

Example:
   efaxx query --benchmark write --since now-30d
   efaxx query --metric lat_us --by provider --tag cluster=p5 --format csv
   efaxx query --raw --sweep demo --format ndjson > demo-samples.ndjson

` + exitStatus(""),
		Flags: append(filterFlags(),
			&cli.StringFlag{Name: "metric", Value: "gbps", Usage: "the metric to aggregate (with --benchmark, that benchmark's own: mops for queue, dir_gbs for ipc, busbw for nccl:*)"},
			&cli.StringFlag{Name: "by", Usage: "group by these parameters, comma-separated; \"\": by none (default: those that vary)"},
			&cli.BoolFlag{Name: "raw", Usage: "export every sample, not aggregates (--format csv, json or ndjson)"},
			&cli.StringFlag{Name: "format", Value: "table", Usage: "output as table, csv or json; with --raw also ndjson"},
		),
		Action: func(c *cli.Context) error {
			if err := maxArgs(c, 0); err != nil {
				return err
			}
			f, err := runFilter(c, time.Now())
			if err != nil {
				return err
			}
			metric := c.String("metric")
			if !c.IsSet("metric") && f.Benchmark != "" { // a benchmark in its own unit: the queue in Mops, ipc in GB/s
				metric = results.UnitOf(f.Benchmark).Metric
			}
			m, err := metricFlag(metric)
			if err != nil {
				return err
			}
			q := results.Query{Filter: f, Metric: m, ByVariant: true}
			if c.Bool("raw") {
				if c.IsSet("by") {
					return &usageError{msg: "--raw exports samples, which are not grouped: --by does not apply"}
				}
				return runQueryRaw(c.Context, c.App.Writer, c.App.ErrWriter, c.String("db"), c.String("format"), q)
			}
			if c.IsSet("by") {
				if q.By, err = byFlag(c.String("by")); err != nil {
					return err
				}
			}
			return runQuery(c.Context, c.App.Writer, c.App.ErrWriter, c.String("db"), c.String("format"), q)
		},
	}
}

func runQuery(ctx context.Context, w, stderr io.Writer, dbPath, format string, q results.Query) error {
	if err := checkFormat(format); err != nil {
		return err
	}
	db, err := openStore(ctx, dbPath)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := errors.Join(harness.CheckFilter(ctx, db, q.Filter), harness.CheckParamNames(ctx, db, q.By)); err != nil {
		return err
	}
	notOK, err := keepOK(ctx, db, &q.Filter)
	if err != nil {
		return err
	}
	res, err := db.Query(ctx, q)
	if err != nil {
		return err
	}
	unit := " (" + res.Metric.Unit + ")"
	variants := slices.ContainsFunc(res.Rows, func(r results.QueryRow) bool { return r.Variant != "" })
	header := append(append([]string{"BENCHMARK"}, upper(res.By)...), "SIZE")
	if variants { // as show: a run that measures a size several ways has a row for each
		header = append(header, "VARIANT")
	}
	header = append(header, "RUNS", "SAMPLES", "MIN"+unit, "MEDIAN"+unit, "MEAN"+unit, "MAX"+unit, "P99"+unit)
	t := &table{header: header, records: res}
	for _, r := range res.Rows {
		row := []string{r.Benchmark}
		for _, k := range res.By {
			row = append(row, paramCell(r.Params[k]))
		}
		row = append(row, bytesize.Format(r.Size))
		if variants {
			row = append(row, dash(r.Variant))
		}
		row = append(row, fmt.Sprint(r.Runs), fmt.Sprint(r.Count),
			num(r.Min), num(r.Median), num(r.Mean), num(r.Max), num(r.P99))
		t.add(row...)
	}
	if err := writeTable(w, format, t); err != nil {
		return err
	}
	noteNotOK(stderr, notOK)
	return nil
}

// noteNotOK names on stderr the runs that query left out as they did not
// end ok, so that stdout stays the table, CSV or JSON asked for.
func noteNotOK(stderr io.Writer, ids []int64) {
	if len(ids) > 0 {
		fmt.Fprintf(stderr, "note: left out %s %s, which did not end ok (--status STATUS queries them)\n",
			plural(len(ids), "run", "runs"), results.Ranges(ids))
	}
}

// rawHeader is the CSV and table header of query --raw, in RawSample's
// order, the metric's value last.
var rawHeader = []string{"RUN", "BENCHMARK", "SIZE", "RANK", "PEER", "VARIANT", "ROLE", "HOST", "BYTES_SENT", "BYTES_RECV",
	"ITERATIONS", "ELAPSED_NS", "LAT_MIN_NS", "LAT_P50_NS", "LAT_P99_NS", "LAT_MAX_NS"}

// runQueryRaw streams every sample of the selected runs.
func runQueryRaw(ctx context.Context, w, stderr io.Writer, dbPath, format string, q results.Query) error {
	if !slices.Contains(queryFormats, format) {
		return &usageError{msg: fmt.Sprintf("--format %q: want table, csv, json or ndjson", format)}
	}
	db, err := openStore(ctx, dbPath)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := harness.CheckFilter(ctx, db, q.Filter); err != nil {
		return err
	}
	notOK, err := keepOK(ctx, db, &q.Filter)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	out := newRawWriter(bw, format, q.Metric)
	err = db.RawSamples(ctx, q.Filter, q.Metric, out.write)
	if err == nil {
		err = out.close()
	}
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	if err == nil {
		noteNotOK(stderr, notOK)
	}
	return err
}

// rawWriter writes raw samples one at a time in one format.
type rawWriter struct {
	w      io.Writer
	format string
	csv    *csv.Writer
	tw     *tabwriter.Writer
	n      int
}

func newRawWriter(w io.Writer, format string, m results.Metric) *rawWriter {
	r := &rawWriter{w: w, format: format}
	header := append(slices.Clone(rawHeader), strings.ToUpper(m.Name)+" ("+m.Unit+")")
	switch format {
	case "csv":
		r.csv = csv.NewWriter(w)
		r.csv.Write(header)
	case "table":
		r.tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(r.tw, strings.Join(header, "\t")+"\t")
	case "json":
		io.WriteString(w, "[")
	}
	return r
}

func (r *rawWriter) write(x *results.RawSample) error {
	r.n++
	switch r.format {
	case "json", "ndjson":
		b, err := json.Marshal(x)
		if err != nil {
			return err
		}
		sep := "\n"
		if r.format == "json" && r.n > 1 {
			sep = ",\n"
		}
		if r.format == "ndjson" {
			sep = ""
			b = append(b, '\n')
		}
		_, err = io.WriteString(r.w, sep+string(b))
		return err
	}
	value := ""
	if x.Value != nil {
		value = strconv.FormatFloat(*x.Value, 'g', -1, 64)
	}
	row := []string{fmt.Sprint(x.Run), x.Benchmark, fmt.Sprint(x.Size), fmt.Sprint(x.Rank), fmt.Sprint(x.Peer), x.Variant,
		x.Role, x.Host, fmt.Sprint(x.BytesSent), fmt.Sprint(x.BytesRecv), fmt.Sprint(x.Iterations), fmt.Sprint(x.ElapsedNs),
		fmt.Sprint(x.LatMinNs), fmt.Sprint(x.LatP50Ns), fmt.Sprint(x.LatP99Ns), fmt.Sprint(x.LatMaxNs), value}
	if r.csv != nil {
		return r.csv.Write(row)
	}
	for i := range row {
		row[i] = printable(row[i])
	}
	_, err := fmt.Fprintln(r.tw, strings.Join(row, "\t")+"\t")
	return err
}

// close ends the output: the JSON array, the CSV's or the table's buffer.
func (r *rawWriter) close() error {
	switch {
	case r.format == "json" && r.n == 0:
		_, err := io.WriteString(r.w, "]\n")
		return err
	case r.format == "json":
		_, err := io.WriteString(r.w, "\n]\n")
		return err
	case r.csv != nil:
		r.csv.Flush()
		return r.csv.Error()
	case r.tw != nil:
		return r.tw.Flush()
	}
	return nil
}

// metricFlag looks up --metric.
func metricFlag(name string) (results.Metric, error) {
	m, err := results.LookupMetric(name)
	if err != nil {
		return m, &usageError{msg: err.Error(), hint: "efaxx help query"}
	}
	return m, nil
}

// metricHelp lists the metrics for help texts.
func metricHelp() string {
	var b strings.Builder
	for _, m := range results.Metrics() {
		fmt.Fprintf(&b, "   %-14s %s (%s)\n", m.Name, m.Doc, m.Unit)
	}
	return b.String()
}

// byFlag reads --by (query, compare): the parameters to group by, or
// none when it is empty (every run of a benchmark and size in one row).
// An empty item or a parameter named twice is a slip, as in --columns.
func byFlag(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return []string{}, nil
	}
	return listFlag("by", s, func(p string) string { return p })
}

// upper returns s in upper case, for headers.
func upper(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[i] = strings.ToUpper(v)
	}
	return out
}

// paramCell formats a parameter value for a table cell, as labels show
// it (results.ParamText): a chunk as 1048576, not Go's 1.048576e+06.
func paramCell(v any) string {
	if v == nil {
		return "-"
	}
	return results.ParamText(v)
}

// num formats a metric value for a table cell.
func num(v float64) string { return fmt.Sprintf("%.3f", v) }
