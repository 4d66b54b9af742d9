package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"efaxx/harness"
	"efaxx/results"
	"efaxx/slurm"
)

func newRunsCommand() *cli.Command {
	return &cli.Command{
		Name:  "runs",
		Usage: "list stored runs, newest first",
		Description: `Lists the runs in the database with their status, point, where they ran,
their tags and, for a run that did not end ok, why. Every filter narrows
the list further. --limit keeps the first runs in --sort's order, and says
how many it left out (on stderr). A point is named by its benchmark and
the parameters whose values differ among the stored points of its sweep
("write memory=pinned").

--sort takes fields, comma-separated, each ascending or with a "-" before
it descending: ` + strings.Join(results.RunSortFields(), ", ") + `.
--columns picks the table's and the CSV's columns, in order: ` + strings.Join(runColumnNames(), ", ") + `
(JSON holds every field).

Example:
   efaxx runs --benchmark write --since now-7d --status ok
   efaxx runs --tag cluster=p5 --host node0042 --param provider=efa
   efaxx runs --status failed --columns run,point,reason
   efaxx runs --sort -samples --limit 5 --format json

` + exitStatus(""),
		Flags: append(filterFlags(),
			&cli.IntFlag{Name: "limit", Value: 50, Usage: "at most this many runs (0: all)"},
			&cli.StringFlag{Name: "sort", Value: "-started", Usage: "sort by these fields, comma-separated; -FIELD for descending"},
			&cli.StringFlag{Name: "columns", Usage: "these columns, comma-separated (default: " + strings.Join(defaultRunColumns, ",") + ")"},
			&cli.BoolFlag{Name: "no-sync", Usage: "do not sync submitted jobs first"},
			formatFlag,
		),
		Action: func(c *cli.Context) error {
			if err := maxArgs(c, 0); err != nil {
				return err
			}
			o := runsOptions{db: c.String("db"), format: c.String("format"), columns: defaultRunColumns}
			var err error
			if o.filter, err = runFilter(c, time.Now()); err != nil {
				return err
			}
			o.filter.Limit = c.Int("limit")
			if err := atLeast("limit", o.filter.Limit, 0, "0 (all) or more"); err != nil {
				return err
			}
			if o.filter.Sort, err = sortFlag(c.String("sort")); err != nil {
				return err
			}
			if c.IsSet("columns") {
				if o.columns, err = columnsFlag(c.String("columns")); err != nil {
					return err
				}
			}
			if !c.Bool("no-sync") {
				o.syncWorkdir = c.String("workdir")
			}
			return runRuns(c.Context, c.App.Writer, c.App.ErrWriter, o)
		},
	}
}

type runsOptions struct {
	db, format, syncWorkdir string // syncWorkdir "": no sync first
	filter                  results.RunFilter
	columns                 []string
}

// runRuns lists runs; unless o.syncWorkdir is "", it syncs submitted jobs
// first.
func runRuns(ctx context.Context, w, stderr io.Writer, o runsOptions) error {
	if err := checkFormat(o.format); err != nil {
		return err
	}
	db, err := openStore(ctx, o.db)
	if err != nil {
		return err
	}
	defer db.Close()
	// Sync before the filter is checked: a sweep whose jobs have ended but
	// are not stored yet has no runs until the sync stores them.
	if o.syncWorkdir != "" {
		syncFirst(ctx, stderr, db, o.syncWorkdir)
	}
	if err := harness.CheckFilter(ctx, db, o.filter); err != nil {
		return err
	}
	runs, err := db.Runs(ctx, o.filter)
	if err != nil {
		return err
	}
	if runs == nil {
		runs = []results.Run{} // JSON: [], not null
	}
	labels, err := labelsFor(ctx, db, runs)
	if err != nil {
		return err
	}
	t := &table{records: runs}
	for _, name := range o.columns {
		t.header = append(t.header, strings.ToUpper(name))
	}
	for _, r := range runs {
		row := make([]string, len(o.columns))
		for i, name := range o.columns {
			col := runColumnsByName[name]
			if name == "point" {
				row[i] = labels.label(r)
			} else {
				row[i] = col.cell(r)
			}
			if o.format == "table" && col.width > 0 {
				row[i] = truncate(dash(row[i]), col.width)
			}
		}
		t.add(row...)
	}
	if err := writeTable(w, o.format, t); err != nil {
		return err
	}
	if o.filter.Limit > 0 && len(runs) == o.filter.Limit {
		n, err := db.CountRuns(ctx, o.filter)
		if err != nil {
			return err
		}
		if n > len(runs) {
			fmt.Fprintf(stderr, "note: %d of %d runs shown; --limit 0 shows all\n", len(runs), n)
		}
	}
	return nil
}

// runColumn is a column of efaxx runs: its cell, and the most characters
// a table shows of it (0: all).
type runColumn struct {
	cell  func(r results.Run) string
	width int
}

// runColumnsByName are the columns --columns takes.
var runColumnsByName = map[string]runColumn{
	"run":       {cell: func(r results.Run) string { return fmt.Sprint(r.ID) }},
	"uid":       {cell: func(r results.Run) string { return r.UID }},
	"started":   {cell: func(r results.Run) string { return r.Started.Local().Format("2006-01-02 15:04:05") }},
	"finished":  {cell: func(r results.Run) string { return timeCell(r.Finished) }},
	"sweep":     {cell: func(r results.Run) string { return r.Sweep }},
	"benchmark": {cell: func(r results.Run) string { return r.Benchmark }},
	"point":     {}, // pointLabels.label: a label depends on the other points of the run's sweep
	"params":    {cell: func(r results.Run) string { return paramList(r.Params) }},
	"status":    {cell: func(r results.Run) string { return r.Status }},
	"reason":    {cell: func(r results.Run) string { return r.Reason }, width: 60},
	"ranks":     {cell: func(r results.Run) string { return fmt.Sprint(r.Ranks) }},
	"provider":  {cell: func(r results.Run) string { return dash(r.Provider) }},
	"hosts":     {cell: func(r results.Run) string { return hostList(r.Hosts) }},
	"samples":   {cell: func(r results.Run) string { return fmt.Sprint(r.Samples) }},
	"tags":      {cell: func(r results.Run) string { return tagList(r.Tags) }},
	"executor":  {cell: func(r results.Run) string { return r.Executor }},
	"job":       {cell: func(r results.Run) string { return dash(r.Job) }},
	"step":      {cell: func(r results.Run) string { return dash(r.Step) }},
	"dir":       {cell: func(r results.Run) string { return r.Dir }},
}

// defaultRunColumns are the columns of efaxx runs without --columns.
var defaultRunColumns = []string{"run", "started", "sweep", "point", "status", "ranks", "provider", "hosts", "samples",
	"tags", "reason"}

// runColumnNames are the names of runColumnsByName, sorted.
func runColumnNames() []string {
	names := make([]string, 0, len(runColumnsByName))
	for k := range runColumnsByName {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// columnsFlag reads --columns.
func columnsFlag(s string) ([]string, error) {
	cols, err := listFlag("columns", s, func(c string) string { return c })
	if err != nil {
		return nil, err
	}
	for _, c := range cols {
		if _, ok := runColumnsByName[c]; !ok {
			return nil, &usageError{msg: fmt.Sprintf("--columns: no column %q%s; the columns are %s", c,
				harness.DidYouMean(c, runColumnNames()), strings.Join(runColumnNames(), ", "))}
		}
	}
	return cols, nil
}

// sortFlag reads --sort.
func sortFlag(s string) ([]string, error) {
	fields, err := listFlag("sort", s, func(f string) string { return strings.TrimPrefix(f, "-") })
	if err != nil {
		return nil, err
	}
	for _, f := range fields {
		name := strings.TrimPrefix(f, "-")
		if !slices.Contains(results.RunSortFields(), name) {
			return nil, &usageError{msg: fmt.Sprintf("--sort: no field %q%s; the fields are %s", name,
				harness.DidYouMean(name, results.RunSortFields()), strings.Join(results.RunSortFields(), ", "))}
		}
	}
	return fields, nil
}

// listFlag reads a comma-separated flag value. An empty value or item, or
// two items of one name (key gives it), is a slip to report, not to skip:
// "id,-id" would sort by the first alone.
func listFlag(flag, s string, key func(string) string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, &usageError{msg: "--" + flag + " is empty"}
	}
	items := strings.Split(s, ",")
	seen := map[string]bool{}
	for i, it := range items {
		it = strings.TrimSpace(it)
		if it == "" {
			return nil, &usageError{msg: fmt.Sprintf("--%s %q: an empty item", flag, s)}
		}
		if seen[key(it)] {
			return nil, &usageError{msg: fmt.Sprintf("--%s %q: %s twice", flag, s, key(it))}
		}
		seen[key(it)], items[i] = true, it
	}
	return items, nil
}

// atLeast is the usage error of an integer flag below min, nil otherwise.
func atLeast(flag string, n, min int, what string) error {
	if n < min {
		return &usageError{msg: fmt.Sprintf("--%s %d: want %s", flag, n, what)}
	}
	return nil
}

// timeCell formats an instant for a table, "-" for none.
func timeCell(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format("2006-01-02 15:04:05")
}

// syncFirst syncs the jobs not yet settled, so the list is current. A
// store without such jobs asks Slurm nothing; a failure is a warning, as
// the stored runs can still be listed.
func syncFirst(ctx context.Context, stderr io.Writer, db *results.DB, workdir string) {
	x := &harness.SlurmExecutor{Client: slurm.NewClient(), DB: db, Workdir: workdir, Progress: stderr}
	rep, err := x.Sync(ctx, results.JobFilter{})
	printNotes(stderr, rep) // on an error too: the jobs before it are stored (reportSync)
	if err != nil {
		fmt.Fprintf(stderr, "warning: sync: %v (efaxx runs --no-sync skips it)\n", err)
	}
}

// pointLabels names runs by their benchmark and the parameters that vary
// among the stored points of one benchmark of their sweep, keyed by sweep
// name (results.SweepVarying): what harness.Point.Label showed when the
// sweep ran, "write memory=pinned" for a sweep over memory, plain "write"
// for a sweep of one point.
type pointLabels map[string][]string

// labelsFor returns the labels of runs.
func labelsFor(ctx context.Context, db *results.DB, runs []results.Run) (pointLabels, error) {
	var sweeps []string
	for _, r := range runs {
		if !slices.Contains(sweeps, r.Sweep) {
			sweeps = append(sweeps, r.Sweep)
		}
	}
	return db.SweepVarying(ctx, sweeps)
}

// label returns the label of r.
func (l pointLabels) label(r results.Run) string {
	parts := []string{r.Benchmark}
	for _, k := range l[r.Sweep] {
		if v, ok := r.Params[k]; ok {
			parts = append(parts, k+"="+results.ParamText(v))
		}
	}
	return strings.Join(parts, " ")
}

// maxHosts is how many hosts a runs row names before it counts the rest:
// a run on 1,000 nodes would otherwise fill the screen.
const maxHosts = 3

// hostList formats hosts for a table cell.
func hostList(hosts []string) string {
	if len(hosts) > maxHosts {
		return fmt.Sprintf("%s,+%d", strings.Join(hosts[:maxHosts], ","), len(hosts)-maxHosts)
	}
	return dash(strings.Join(hosts, ","))
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// parseWhen reads a time bound: "" (none), now-<duration> with d for days,
// a date, or RFC 3339.
func parseWhen(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := parseTime(s, now)
	if err != nil {
		return time.Time{}, &usageError{msg: fmt.Sprintf("time %q: %v", s, err), hint: "now-7d, now-12h or 2026-11-01"}
	}
	// The store compares Unix nanoseconds, which an int64 holds from 1677
	// to 2262; outside that, UnixNano wraps and the bound turns around.
	if !time.Unix(0, t.UnixNano()).Equal(t) {
		return time.Time{}, &usageError{msg: fmt.Sprintf("time %q: outside 1678..2262, the times the store can compare", s),
			hint: "now-7d, now-12h or 2026-11-01"}
	}
	return t, nil
}

// parseTime reads a time: now-<duration> with d for days, a date, or RFC 3339.
func parseTime(s string, now time.Time) (time.Time, error) {
	if rest, ok := strings.CutPrefix(s, "now-"); ok {
		d, err := parseAgo(rest)
		if err != nil {
			return time.Time{}, err
		}
		return now.Add(-d), nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	return time.Time{}, errors.New("not now-<duration>, a date or RFC 3339")
}

// maxDays is the most days a time.Duration holds (about 292 years).
const maxDays = math.MaxInt64 / int64(24*time.Hour)

func parseAgo(s string) (time.Duration, error) {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		var n int64
		if _, err := fmt.Sscanf(days, "%d", &n); err != nil || n < 0 || fmt.Sprint(n) != days {
			return 0, fmt.Errorf("bad day count %q", days)
		}
		// Past maxDays the product wraps around, and now-200000d would
		// be a time in the future.
		if n > maxDays {
			return 0, fmt.Errorf("%d days: more than %d, the most a duration holds", n, maxDays)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	return time.ParseDuration(s)
}
