package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"efaxx/bytesize"
	"efaxx/harness"
	"efaxx/results"
)

func newCheckCommand() *cli.Command {
	return &cli.Command{
		Name:      "check",
		Usage:     "judge stored runs against the [[expect]] tables of their sweep: pass or fail per row",
		ArgsUsage: "RUN|SWEEP",
		Description: `Judges a run, or every run of a sweep's latest session, against the
expectations of its sweep file (stored with the runs), or of --expect FILE.
Each [[expect]] table names runs and sizes (where), a metric and a stat
across ranks, and a band; each matching run and size is one row, pass or
fail. An expectation that matches nothing fails too: a check that tests
nothing must not pass acceptance. A run that did not end ok (failed,
partial, timed out, cancelled, running) is not judged, as compare leaves
it out: it holds only what its ranks wrote before they stopped; it is
named, and it fails the check. See docs/sweeps.md.

Example:
   efaxx run sweeps/local/acceptance.toml && efaxx check local-acceptance
   efaxx check --expect sweeps/local/acceptance.toml demo     # after make demo
   efaxx check --expect sweeps/local/acceptance.toml --format json 12

` + exitStatus("a row failed, an expectation matched nothing, or a run did not end ok"),
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "expect", Usage: "take the [[expect]] tables of this sweep file instead"},
			formatFlag,
		},
		Action: func(c *cli.Context) error {
			a := c.Args().Slice()
			if len(a) != 1 {
				return &usageError{msg: "check needs a run id or a sweep name", hint: "efaxx check 12"}
			}
			return runCheck(c.Context, c.App.Writer, c.App.ErrWriter, c.String("db"), c.String("format"), a[0], c.String("expect"))
		},
	}
}

func runCheck(ctx context.Context, w, stderr io.Writer, dbPath, format, target, expectFile string) error {
	if err := checkFormat(format); err != nil {
		return err
	}
	db, err := openStore(ctx, dbPath)
	if err != nil {
		return err
	}
	defer db.Close()
	runs, err := checkRuns(ctx, db, target)
	if err != nil {
		return err
	}
	s, err := checkSweep(ctx, db, runs[0], expectFile)
	if err != nil {
		return err
	}
	if len(s.Expects) == 0 {
		return fmt.Errorf("check %s: sweep %s has no [[expect]] tables", target, s.File)
	}
	// A run that did not end ok is no evidence, and it cannot pass
	// acceptance: left out alone, its failing sizes would pass the check.
	judged, notOK := keepOKRuns(runs)
	rows, err := harness.Check(ctx, db, s.Expects, judged)
	if err != nil {
		return err
	}
	labels, err := labelsFor(ctx, db, runs)
	if err != nil {
		return err
	}
	units, err := rowUnits(ctx, db, rows)
	if err != nil {
		return err
	}
	if err := writeTable(w, format, checkTable(rows, labels, units)); err != nil {
		return err
	}
	failed := 0
	for _, r := range rows {
		if !r.Pass {
			failed++
		}
	}
	if format == "table" {
		from := s.File
		if expectFile == "" {
			from += ", as stored with the runs"
		}
		if notOK != "" {
			fmt.Fprintf(w, "\nleft out, failing the check: %s\n", notOK)
		}
		fmt.Fprintf(w, "\n%d passed, %d failed (%s, %s from %s)\n",
			len(rows)-failed, failed, quantity(len(judged), "run"), quantity(len(s.Expects), "expectation"), from)
	} else if notOK != "" {
		fmt.Fprintf(stderr, "note: left out, failing the check: %s\n", notOK) // stdout stays the CSV or JSON
	}
	if failed > 0 || notOK != "" {
		return errVerdict
	}
	return nil
}

// checkRuns returns the run a numeric target names, or the runs of the
// latest session of the sweep a name names.
func checkRuns(ctx context.Context, db *results.DB, target string) ([]results.Run, error) {
	if id, err := strconv.ParseInt(target, 10, 64); err == nil {
		r, err := db.Run(ctx, id)
		if err != nil {
			return nil, err
		}
		return []results.Run{*r}, nil
	}
	return latestSession(ctx, db, target)
}

// checkSweep returns the sweep whose expectations apply: the file given,
// or the stored text of run r's sweep.
func checkSweep(ctx context.Context, db *results.DB, r results.Run, file string) (*harness.Sweep, error) {
	if file != "" {
		return harness.Load(file)
	}
	name, spec, err := db.SweepSpec(ctx, r.ID)
	if err != nil {
		return nil, err
	}
	if spec == "" {
		return nil, fmt.Errorf("run %d: the text of sweep %q is not stored (no sweep.toml at ingest); give it with --expect FILE", r.ID, name)
	}
	return harness.Parse(name+".toml", []byte(spec))
}

// checkRecord is one row of check's JSON.
type checkRecord struct {
	Expect  string   `json:"expect"` // the name, or file:line
	Metric  string   `json:"metric"`
	Stat    string   `json:"stat"`
	Bound   string   `json:"bound"`
	Run     int64    `json:"run,omitempty"`
	Point   string   `json:"point,omitempty"`
	Variant string   `json:"variant,omitempty"` // the way the run measured it, where it measures several
	Size    *uint64  `json:"size,omitempty"`    // nil for no data; a pointer, as 0 bytes is a size
	Value   *float64 `json:"value"`             // null for no data, which 0 would hide
	Result  string   `json:"result"`            // pass, fail or no data
}

// checkTable lays out the rows of a check.
func checkTable(rows []harness.CheckRow, labels pointLabels, units []string) *table {
	variants := slices.ContainsFunc(rows, func(r harness.CheckRow) bool { return r.Variant != "" })
	header := []string{"EXPECT", "RUN", "POINT", "SIZE"}
	if variants { // as compare: a run that measures a size several ways has a row for each
		header = append(header, "VARIANT")
	}
	t := &table{header: append(header, "METRIC", "STAT", "VALUE", "BOUND", "RESULT")}
	records := []checkRecord{}
	for i, r := range rows {
		e := r.Expect
		rec := checkRecord{Expect: e.String(), Metric: e.Metric.Name, Stat: e.Stat, Bound: e.Bound, Result: "pass"}
		var cells []string
		switch {
		case r.Missing:
			rec.Result = "no data"
			cells = []string{rec.Expect, "-", "-", "-", "-", rec.Metric, rec.Stat, "-", rec.Bound, "FAIL (no run or size matched)"}
		default:
			if !r.Pass {
				rec.Result = "fail"
			}
			rec.Run, rec.Point, rec.Size, rec.Value, rec.Variant = r.RunID, labels.label(*r.Run), &r.Size, &r.Value, r.Variant
			cells = []string{rec.Expect, fmt.Sprint(r.RunID), rec.Point, bytesize.Format(r.Size), r.Variant, rec.Metric,
				rec.Stat, num(r.Value) + " " + units[i], rec.Bound, map[bool]string{true: "pass", false: "FAIL"}[r.Pass]}
		}
		if !variants {
			cells = slices.Delete(cells, 4, 5)
		}
		t.add(cells...)
		records = append(records, rec)
	}
	t.records = records
	return t
}

// rowUnits returns the unit of each row's value: its metric's, or for a
// tool value (tool:NAME) the one its run's tool printed it in, as query
// and compare state it, rather than the value's name.
func rowUnits(ctx context.Context, db *results.DB, rows []harness.CheckRow) ([]string, error) {
	units := make([]string, len(rows))
	for i, r := range rows {
		units[i] = r.Expect.Metric.Unit
		name, tool := strings.CutPrefix(r.Expect.Metric.Name, results.ToolMetricPrefix)
		if !tool || r.Missing {
			continue
		}
		us, err := db.ToolUnits(ctx, []int64{r.RunID}, name)
		if err != nil {
			return nil, err
		}
		if len(us) > 0 {
			units[i] = strings.Join(us, " or ")
		}
	}
	return units, nil
}
