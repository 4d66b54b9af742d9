package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"efaxx/harness"
	"efaxx/results"
	"efaxx/results/record"
)

func newPruneCommand() *cli.Command {
	return &cli.Command{
		Name:      "prune",
		Usage:     "delete stored runs by id or filter, in one transaction; --dry-run says what it would delete",
		ArgsUsage: "[RUN...]",
		Description: `Deletes the runs given by id (12, or 12,13,14) and selected by the filter
flags of efaxx runs (all of them must hold), with their ranks, samples and
tags, and the points and sweeps they leave without a run: all in one
transaction, so it deletes everything asked or nothing. --dry-run deletes
nothing and says what a prune would. Without an id or a filter it refuses,
unless given --all. Its arguments are run ids and nothing else: compare's
selector words (sweep:NAME, tag:KEY=VALUE, a window now-14d..now) are a
wrong command line, and the flags select by everything but the id.

A run still running, or one whose Slurm job is not yet settled, is
refused: a sync would store it again.

The run directories stay where they are unless --delete-dirs asks to remove
them too (only a directory whose run.json names the run); ingesting one
again would store its run again. --delete-dirs tries every run's directory
and names each one it leaves in place, with why; the runs are deleted from
the store all the same, and the exit status is then 3. With --dry-run it
lists the directories it would remove and those it would leave, and why
(it reads each run.json; it cannot tell whether a removal would fail).

Example:
   efaxx prune --dry-run --sweep demo --until now-30d
   efaxx prune --status failed --since now-7d
   efaxx prune --delete-dirs 12,13

` + exitStatus(""),
		Flags: append(filterFlags(),
			&cli.BoolFlag{Name: "dry-run", Usage: "delete nothing: say what would be deleted"},
			&cli.BoolFlag{Name: "all", Usage: "allow a prune without an id or a filter: every run"},
			&cli.BoolFlag{Name: "delete-dirs", Usage: "also remove the runs' directories (each only if its run.json names the run)"},
			&cli.StringFlag{Name: "format", Value: "table", Usage: "output as table or json"},
		),
		Action: func(c *cli.Context) error {
			f, err := runFilter(c, time.Now())
			if err != nil {
				return err
			}
			if f.IDs, err = pruneIDs(c.Args().Slice()); err != nil {
				return err
			}
			if reflect.ValueOf(f).IsZero() && !c.Bool("all") {
				return &usageError{msg: "prune needs run ids or a filter (--all prunes every run)",
					hint: "efaxx prune --dry-run --sweep demo"}
			}
			return runPrune(c.Context, c.App.Writer, c.App.ErrWriter, pruneOptions{db: c.String("db"), filter: f,
				dryRun: c.Bool("dry-run"), deleteDirs: c.Bool("delete-dirs"), format: c.String("format")})
		},
	}
}

// pruneIDs reads prune's arguments: run ids, each argument one (12) or a
// list (12,13,14). Nothing else: compare's selector words (a time window,
// sweep:NAME, tag:KEY=VALUE) would replace or widen the filter flags, and
// a prune deletes what it selects.
func pruneIDs(args []string) ([]int64, error) {
	var ids []int64
	for _, a := range args {
		for _, part := range strings.Split(a, ",") {
			id, err := strconv.ParseInt(part, 10, 64)
			if err != nil || id <= 0 {
				return nil, &usageError{msg: fmt.Sprintf("prune %q: not a run id: prune's arguments are run ids (12, or 12,13,14); "+
					"it selects by sweep, tag, status or time only with its flags (--sweep, --tag, --status, --since, --until, ...)", a),
					hint: "efaxx prune --dry-run --sweep demo --since now-30d"}
			}
			ids = append(ids, id)
		}
	}
	return ids, nil
}

type pruneOptions struct {
	db, format         string
	filter             results.RunFilter
	dryRun, deleteDirs bool
}

// pruneRecord is prune's JSON.
type pruneRecord struct {
	DryRun      bool      `json:"dry_run"`
	Runs        []int64   `json:"runs"`
	Samples     int       `json:"samples"`
	Points      int       `json:"points"`
	Sweeps      int       `json:"sweeps"`
	DirsRemoved []string  `json:"dirs_removed"`
	DirsGone    []string  `json:"dirs_gone"`  // a run's directory that was gone already
	FilesKept   []string  `json:"files_kept"` // an imported run's file: it has no run directory
	DirsLeft    []dirLeft `json:"dirs_left"`  // a run's directory --delete-dirs left in place
}

// dirLeft is a run directory that --delete-dirs left in place, and why.
type dirLeft struct {
	Run    int64  `json:"run"`
	Dir    string `json:"dir"`
	Reason string `json:"reason"`
}

func runPrune(ctx context.Context, w, ew io.Writer, o pruneOptions) error {
	// What prune says is no table, so it has no csv.
	if !slices.Contains(pruneFormats, o.format) {
		return &usageError{msg: fmt.Sprintf("--format %q: prune writes table or json", o.format), hint: "--format json"}
	}
	db, err := openStore(ctx, o.db)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := harness.CheckFilter(ctx, db, o.filter); err != nil {
		return err
	}
	p, err := db.Prune(ctx, o.filter, o.dryRun)
	if err != nil {
		return err
	}
	rec := pruneRecord{DryRun: o.dryRun, Runs: []int64{}, Samples: p.Samples, Points: p.Points, Sweeps: p.Sweeps,
		DirsRemoved: []string{}, DirsGone: []string{}, DirsLeft: []dirLeft{}, FilesKept: []string{}}
	for _, r := range p.Runs {
		rec.Runs = append(rec.Runs, r.ID)
	}
	if o.deleteDirs {
		rec.DirsRemoved, rec.DirsGone, rec.DirsLeft, rec.FilesKept = removeRunDirs(p.Runs, o.dryRun)
	}
	switch o.format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rec); err != nil {
			return err
		}
	default:
		verb := "deleted"
		if o.dryRun {
			verb = "would delete (dry run: nothing deleted)"
		}
		fmt.Fprintf(w, "prune %s %s (%s): %s, %s and %s left without a run\n", verb,
			quantity(len(rec.Runs), "run"), dash(results.Ranges(rec.Runs)), quantity(p.Samples, "sample"),
			quantity(p.Points, "point"), quantity(p.Sweeps, "sweep"))
		if o.deleteDirs && o.dryRun && len(p.Runs) > 0 {
			printDirsDryRun(w, p.Runs, rec)
		} else if o.deleteDirs && len(p.Runs) > 0 {
			dirsSummary(w, "removed", len(p.Runs), rec)
			if len(rec.DirsLeft) > 0 {
				fmt.Fprintf(w, "; %d left in place:", len(rec.DirsLeft))
			}
			fmt.Fprintln(w)
			for _, l := range rec.DirsLeft {
				fmt.Fprintf(w, "  run %d: %s: %s\n", l.Run, printable(l.Dir), printable(l.Reason))
			}
		} else if !o.deleteDirs && len(p.Runs) > 0 {
			fmt.Fprintln(w, "run directories kept (--delete-dirs removes them)")
		}
	}
	if len(rec.DirsLeft) > 0 && !o.dryRun {
		var left []string
		for _, l := range rec.DirsLeft {
			left = append(left, fmt.Sprintf("%s (run %d)", printable(l.Dir), l.Run))
		}
		what := "its directory is"
		if len(p.Runs) > 1 {
			what = fmt.Sprintf("%d of their directories %s", len(left), plural(len(left), "is", "are"))
		}
		return fmt.Errorf("prune: %s deleted from the store, but %s left in place: %s",
			plural(len(p.Runs), "the run is", fmt.Sprintf("the %d runs are", len(p.Runs))), what, strings.Join(left, ", "))
	}
	return nil
}

// dirsSummary starts the line that says how many of runs' directories
// prune removed (or would remove), without its end: those gone already
// and the imported runs' files, which have no directory, set apart.
func dirsSummary(w io.Writer, verb string, runs int, rec pruneRecord) {
	dirs := runs - len(rec.FilesKept)
	fmt.Fprintf(w, "%s %d of %d run %s", verb, len(rec.DirsRemoved), dirs, plural(dirs, "directory", "directories"))
	if len(rec.DirsGone) > 0 {
		fmt.Fprintf(w, " (%d gone already)", len(rec.DirsGone))
	}
	if len(rec.FilesKept) > 0 {
		fmt.Fprintf(w, "; %s, whose files are kept", quantity(len(rec.FilesKept), "imported run"))
	}
}

// printDirsDryRun says which run directories a prune --delete-dirs would
// remove, and which it would leave in place and why.
func printDirsDryRun(w io.Writer, runs []results.Run, rec pruneRecord) {
	dirsSummary(w, "would remove", len(runs), rec)
	if len(rec.DirsRemoved) > 0 {
		fmt.Fprint(w, ":")
	}
	fmt.Fprintln(w)
	removed := map[string]bool{}
	for _, d := range rec.DirsRemoved {
		removed[d] = true
	}
	for _, r := range runs {
		if removed[r.Dir] {
			fmt.Fprintf(w, "  run %d: %s\n", r.ID, printable(r.Dir))
		}
	}
	if len(rec.DirsLeft) > 0 {
		fmt.Fprintf(w, "would leave %d in place:\n", len(rec.DirsLeft))
		for _, l := range rec.DirsLeft {
			fmt.Fprintf(w, "  run %d: %s: %s\n", l.Run, printable(l.Dir), printable(l.Reason))
		}
	}
}

// removeRunDirs tries to remove each run's directory, whatever became of
// the ones before it. It removes a directory only if its run.json names
// the run; it returns those it removed, those that were gone already,
// those it left in place with why, and the files of imported runs, which
// have no run directory and are kept. With dryRun it removes nothing and
// returns what it would remove and leave.
func removeRunDirs(runs []results.Run, dryRun bool) (removed, gone []string, left []dirLeft, kept []string) {
	removed, gone, left, kept = []string{}, []string{}, []dirLeft{}, []string{}
	for _, r := range runs {
		if info, err := os.Lstat(r.Dir); err == nil && info.Mode().IsRegular() {
			kept = append(kept, r.Dir) // an imported run's file (efaxx import): the user's, and no run directory
			continue
		}
		isGone, why := checkRunDir(r)
		switch {
		case isGone:
			gone = append(gone, r.Dir)
		case why != "":
			left = append(left, dirLeft{Run: r.ID, Dir: r.Dir, Reason: why})
		case dryRun:
			removed = append(removed, r.Dir)
		default:
			if err := os.RemoveAll(r.Dir); err != nil {
				left = append(left, dirLeft{Run: r.ID, Dir: r.Dir, Reason: fmt.Sprintf("removing it: %v (part of it may be gone)", err)})
				continue
			}
			removed = append(removed, r.Dir)
		}
	}
	return removed, gone, left, kept
}

// checkRunDir says whether run r's directory may be removed: gone when
// nothing is at r.Dir, else why not ("" when its run.json names the run).
func checkRunDir(r results.Run) (gone bool, why string) {
	if !filepath.IsAbs(r.Dir) {
		return false, "not an absolute path"
	}
	info, err := os.Lstat(r.Dir)
	switch {
	case os.IsNotExist(err):
		return true, ""
	case err != nil:
		return false, err.Error()
	case !info.IsDir():
		return false, "not a directory"
	}
	data, err := os.ReadFile(filepath.Join(r.Dir, record.ManifestName))
	if os.IsNotExist(err) {
		return false, "it holds no " + record.ManifestName
	} else if err != nil {
		return false, err.Error()
	}
	var m struct {
		UID string `json:"uid"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return false, fmt.Sprintf("its %s does not parse: %v", record.ManifestName, err)
	}
	if m.UID != r.UID {
		return false, fmt.Sprintf("its %s is another run's (uid %q, not %q)", record.ManifestName, m.UID, r.UID)
	}
	return false, ""
}
