package main

import (
	"context"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

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
with file:line and the run is marked partial.

Example:
   efaxx ingest efaxx-runs/demo

` + exitStatus(""),
		Action: func(c *cli.Context) error {
			return runIngest(c.Context, c.App.Writer, c.App.ErrWriter, c.String("db"), c.Args().Slice())
		},
	}
}

func runIngest(ctx context.Context, w, ew io.Writer, dbPath string, dirs []string) error {
	if len(dirs) == 0 {
		return &usageError{msg: "ingest needs a directory", hint: "efaxx ingest efaxx-runs"}
	}
	db, err := results.Open(ctx, dbPath)
	if err != nil {
		return err
	}
	defer db.Close()
	problems := false
	for _, dir := range dirs {
		rep, err := db.Ingest(ctx, dir)
		if err != nil {
			return err
		}
		for _, p := range rep.Problems {
			// A path and a line as the run wrote them: escaped, so that
			// they cannot move the cursor.
			fmt.Fprintf(ew, "warning: %s\n", printable(p.Error()))
			problems = true
		}
		for _, r := range rep.Runs {
			state := "updated"
			if r.New {
				state = "new"
			}
			fmt.Fprintf(w, "run %d %s: %s, %d new samples (%s)%s\n", r.ID, state, r.Status, r.Samples, printable(r.Dir),
				reasonSuffix(r.Reason))
			problems = problems || r.Status != record.StatusOK
		}
	}
	if problems {
		return errReported
	}
	return nil
}

func reasonSuffix(reason string) string {
	if reason == "" {
		return ""
	}
	return ": " + printable(reason)
}
