package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"efaxx/harness"
	"efaxx/results"
)

func newQueryCommand() *cli.Command {
	return &cli.Command{
		Name:  "query",
		Usage: "aggregate a metric over stored runs, per benchmark, parameters and message size",
		Description: `Selects runs with the same filters as efaxx runs, and aggregates one metric
over all their samples (every rank of every run) per group of benchmark,
the --by parameters and message size: count, min, median, mean, max, p99.
Median and p99 are SQLite's percentile() (linear between sorted values).
By default the groups are split by every parameter whose value differs
between the selected runs; --by "" pools them all per size.

Metrics (docs/metrics.md):
` + metricHelp() + `
Example:
   efaxx query --benchmark write --since now-30d
   efaxx query --metric lat_us --by provider --tag cluster=p5 --format csv

` + exitStatus(""),
		Flags: append(filterFlags(),
			&cli.StringFlag{Name: "metric", Value: "gbps", Usage: "the metric to aggregate (with --benchmark, that benchmark's own: mops for queue, dir_gbs for ipc)"},
			&cli.StringFlag{Name: "by", Usage: "group by these parameters, comma-separated (default: those that vary)"},
			formatFlag,
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
			q := results.Query{Filter: f, Metric: m}
			if c.IsSet("by") {
				q.By = splitList(c.String("by"))
			}
			return runQuery(c.Context, c.App.Writer, c.String("db"), c.String("format"), q)
		},
	}
}

func runQuery(ctx context.Context, w io.Writer, dbPath, format string, q results.Query) error {
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
	res, err := db.Query(ctx, q)
	if err != nil {
		return err
	}
	unit := " (" + res.Metric.Unit + ")"
	header := append(append([]string{"BENCHMARK"}, upper(res.By)...), "SIZE", "RUNS", "SAMPLES",
		"MIN"+unit, "MEDIAN"+unit, "MEAN"+unit, "MAX"+unit, "P99"+unit)
	t := &table{header: header, records: res}
	for _, r := range res.Rows {
		row := []string{r.Benchmark}
		for _, k := range res.By {
			row = append(row, paramCell(r.Params[k]))
		}
		row = append(row, harness.FormatSize(r.Size), fmt.Sprint(r.Runs), fmt.Sprint(r.Count),
			num(r.Min), num(r.Median), num(r.Mean), num(r.Max), num(r.P99))
		t.add(row...)
	}
	return writeTable(w, format, t)
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

// splitList splits a comma-separated flag, dropping empty items.
func splitList(s string) []string {
	out := []string{}
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// upper returns s in upper case, for headers.
func upper(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[i] = strings.ToUpper(v)
	}
	return out
}

// paramCell formats a parameter value for a table cell.
func paramCell(v any) string {
	switch v := v.(type) {
	case nil:
		return "-"
	case string:
		return v
	}
	return fmt.Sprint(v)
}

// num formats a metric value for a table cell.
func num(v float64) string { return fmt.Sprintf("%.3f", v) }
