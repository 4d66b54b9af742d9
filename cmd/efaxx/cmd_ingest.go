package main

import (
	"context"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"efaxx/lineerr"
	"efaxx/results"
	"efaxx/results/record"
)

func newIngestCommand() *cli.Command {
	return &cli.Command{
		Name:      "ingest",
		Usage:     "store run directories in the database (idempotent)",
		ArgsUsage: "DIR...",
		Description: `Reads every run directory (one holding run.json) under each DIR and stores
its ranks' records. Ingesting the same directory again adds nothing; a run
that was still going is completed. A line that cannot be read is reported
with file:line (the first 20 of a file, then how many more) and the run is
marked partial. A DIR that is missing, or
under which no directory holds run.json, is an error, found before
anything is stored: ingesting nothing is almost always a wrong path.

Exit status 3 when a run it stored ended failed, partial, timeout or
cancelled, or a line or run.json could not be read; a run still going is
no failure, as for efaxx sync.

Example:
   efaxx ingest efaxx-runs/demo

` + exitStatus(""),
		Action: func(c *cli.Context) error {
			return runIngest(c.Context, c.App.Writer, c.App.ErrWriter, c.String("db"), c.Args().Slice())
		},
	}
}

func runIngest(ctx context.Context, w, ew io.Writer, dbPath string, paths []string) error {
	if len(paths) == 0 {
		return &usageError{msg: "ingest needs a directory", hint: "efaxx ingest efaxx-runs"}
	}
	dirs, problems, err := findRuns(paths)
	if err != nil {
		return err
	}
	warn(ew, problems)
	if len(dirs) == 0 {
		return errReported // every run.json was unreadable, and the warnings say so
	}
	db, err := createStore(ctx, dbPath)
	if err != nil {
		return err
	}
	defer db.Close()
	failed := len(problems) > 0
	for _, dir := range dirs {
		// One directory at a time, so that each run is said as it is stored.
		rep, err := db.IngestRuns(ctx, []string{dir})
		if err != nil {
			return err
		}
		warn(ew, rep.Problems)
		failed = failed || len(rep.Problems) > 0
		for _, r := range rep.Runs {
			printRun(w, r)
			// A run still going has not failed: ingesting a workdir while
			// a sweep runs is how it is followed (efaxx sync alike).
			failed = failed || (r.Status != record.StatusOK && r.Status != record.StatusRunning)
		}
	}
	if failed {
		return errReported
	}
	return nil
}

// printRun says what ingest did with run r.
func printRun(w io.Writer, r results.IngestedRun) {
	state := "updated"
	if r.New {
		state = "new"
	}
	fmt.Fprintf(w, "run %d %s: %s, %s (%s)%s\n", r.ID, state, r.Status, quantity(r.Samples, "new sample"), printable(r.Dir),
		reasonSuffix(r.Reason))
}

// findRuns returns the run directories under every path, before the
// store is opened: a path that is wrong, or under which there is no run
// at all, then stores nothing and creates no store. Ingesting nothing is
// almost always a wrong path, so it is an error too.
func findRuns(paths []string) ([]string, []*lineerr.Error, error) {
	var dirs []string
	var problems []*lineerr.Error
	for _, path := range paths {
		d, p, err := results.FindRuns(path)
		if err != nil {
			return nil, nil, err
		}
		if len(d)+len(p) == 0 {
			return nil, nil, fmt.Errorf("ingest %q: no run directory (one holding %s) under it", path, record.ManifestName)
		}
		dirs = append(dirs, d...)
		problems = append(problems, p...)
	}
	return dirs, problems, nil
}

// warn prints what ingest skipped on stderr. A path and a line as the run
// wrote them are escaped, so that they cannot move the cursor.
func warn(ew io.Writer, problems []*lineerr.Error) {
	for _, p := range problems {
		fmt.Fprintf(ew, "warning: %s\n", printable(p.Error()))
	}
}

func reasonSuffix(reason string) string {
	if reason == "" {
		return ""
	}
	return ": " + printable(reason)
}
