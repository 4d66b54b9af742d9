package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"efaxx/lineerr"
	"efaxx/results"
	"efaxx/results/nccltests"
	"efaxx/results/record"
)

func newImportNCCLCommand() *cli.Command {
	return &cli.Command{
		Name:      "nccl-tests",
		Usage:     "store the output of NVIDIA nccl-tests (its text table, or the JSON of -J)",
		ArgsUsage: "FILE...",
		Description: `Stores each nccl-tests output file as runs, one per element type, reduction,
root and placement (out-of-place, in-place), with the benchmark "nccl:" and
the collective ("nccl:all_reduce"). A sample per size stands for all ranks,
as nccl-tests prints them: efaxx gbps is 8 x its algbw (GB/s). A size whose
#wrong is not 0 fails the run, and so does a text table that ends before
its "# Out of bounds values" line (cut short: the later sizes are missing).
A line before the table that is neither nccl-tests' nor NCCL's log is a
warning at its file:line, and the exit status is 3. Importing a file again adds nothing; as
another collective (--collective), it is refused until its runs are pruned.
A file that is not nccl-tests output is refused whole, each problem as
file:line.
Every file is read before any is stored, and all are stored at once: one
that is refused stores none of them.

Example:
   efaxx import nccl-tests all_reduce.log alltoall.json
   efaxx query --benchmark nccl:all_reduce --param placement=out-of-place

` + exitStatus(""),
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "collective", Usage: "the collective, for files that do not name it (all_reduce, alltoall, ...)"},
		},
		Action: func(c *cli.Context) error {
			a := c.Args().Slice()
			if len(a) == 0 {
				return &usageError{msg: "import nccl-tests needs a file", hint: "efaxx import nccl-tests all_reduce.log"}
			}
			return runImportNCCL(c.Context, c.App.Writer, c.App.ErrWriter, c.String("db"), c.String("collective"), a)
		},
	}
}

func runImportNCCL(ctx context.Context, w, ew io.Writer, dbPath, collective string, files []string) error {
	// Parse every file before the store is opened: a file that is not
	// nccl-tests output then leaves the store as it was, and creates none.
	var runs []*results.ImportedRun
	var problems []*lineerr.Error
	for _, file := range files {
		rs, ps, err := readNCCL(file, collective)
		if err != nil {
			return err
		}
		runs = append(runs, rs...)
		problems = append(problems, ps...)
	}
	db, err := createStore(ctx, dbPath)
	if err != nil {
		return err
	}
	defer db.Close()
	stored, err := db.ImportRuns(ctx, runs)
	if err != nil {
		return err
	}
	warn(ew, problems)
	failed := len(problems) > 0
	for i, r := range runs {
		got := stored[i]
		state := "new"
		if got.Settled {
			state = "already stored"
		}
		fmt.Fprintf(w, "%s: run %d %s: %s %s %s %s, %d sizes, %s%s\n", r.File, got.ID, state, r.Benchmark,
			r.Params["placement"], r.Params["type"], r.Params["redop"], len(r.Samples), got.Status, reasonSuffix(r.Reason))
		failed = failed || got.Status != record.StatusOK
	}
	if failed {
		return errReported
	}
	return nil
}

// readNCCL parses file and returns its runs, and the lines before its
// table that the parser skipped without understanding them, to report as
// an external sweep's ingest does.
func readNCCL(file, collective string) ([]*results.ImportedRun, []*lineerr.Error, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, nil, fmt.Errorf("read %q: %w", file, err)
	}
	res, err := nccltests.Parse(file, data)
	if err != nil {
		return nil, nil, err
	}
	fi, err := os.Stat(file)
	if err != nil {
		return nil, nil, fmt.Errorf("read %q: %w", file, err)
	}
	runs, err := results.NCCLTestsRuns(res, results.NCCLImport{File: file, Text: data, Collective: collective, Start: fi.ModTime()})
	var problems []*lineerr.Error
	for _, l := range res.Unread {
		text := l.Text
		if len(text) > 120 {
			text = text[:120] + "..."
		}
		problems = append(problems, &lineerr.Error{File: file, Line: l.N, Err: fmt.Errorf("line not understood: %q", text)})
	}
	return runs, problems, err
}
