package results

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"efaxx/lineerr"
	"efaxx/results/record"
)

// IngestReport says what one Ingest call did.
type IngestReport struct {
	Runs []IngestedRun // in the order of their directories' paths
	// Problems are what Ingest could not use and skipped, in the order it
	// met them: a line of a rank file that does not decode or is not a
	// valid record, or a run.json that cannot be read (its run directory
	// is then skipped).
	Problems []*lineerr.Error
}

// IngestedRun is one run directory that Ingest committed.
type IngestedRun struct {
	ID     int64  // runs.id, the number users type
	UID    string // the manifest's uid
	Dir    string // the run directory, as reached from the path given to Ingest
	Status string // record.StatusOK, StatusFailed, ...
	Reason string // why the status is not ok; empty when it is

	// Samples counts the sample rows this call added; 0 when every sample
	// was already stored.
	Samples int

	// New reports whether the run was not in the store before this call.
	New bool

	// Settled reports that the run was already stored as ok, which is
	// final, so its rank files were not read again.
	Settled bool
}

// Ingest stores the runs under path: a run directory (one holding run.json),
// run.json itself, or any directory above run directories, such as a
// session or a whole workdir, which is walked for every run.json.
//
// Each run directory is ingested in one transaction, so a failure leaves
// that run as it was before. Ingest is idempotent: ingesting the same files
// again adds no rows, and a run ingested while it was still running is
// completed by a later ingest. Lines that do not decode are skipped and
// reported as Problems. On error, the report holds the runs committed
// before it.
func (db *DB) Ingest(ctx context.Context, path string) (*IngestReport, error) {
	dirs, problems, err := FindRuns(path)
	if err != nil {
		return nil, err
	}
	rep, err := db.IngestRuns(ctx, dirs)
	rep.Problems = append(problems, rep.Problems...)
	return rep, err
}

// FindRuns returns the run directories at or under path, as Ingest walks
// them, sorted. A directory whose run.json cannot be read is left out and
// reported as a problem. It writes nothing, so a caller can tell that
// there is nothing to store before it opens a store.
func FindRuns(path string) ([]string, []*lineerr.Error, error) {
	all, err := runDirs(path)
	if err != nil {
		return nil, nil, fmt.Errorf("ingest %q: %w", path, err)
	}
	var dirs []string
	var problems []*lineerr.Error
	for _, dir := range all {
		if _, err := readManifest(dir); err != nil {
			problems = append(problems, manifestProblem(dir, err))
			continue
		}
		dirs = append(dirs, dir)
	}
	return dirs, problems, nil
}

// IngestRuns stores the run directories dirs, as FindRuns returns them, as
// Ingest does. It never returns a nil report.
func (db *DB) IngestRuns(ctx context.Context, dirs []string) (*IngestReport, error) {
	rep := &IngestReport{}
	for _, dir := range dirs {
		if err := db.ingestDir(ctx, dir, rep); err != nil {
			return rep, db.storeErr(fmt.Errorf("ingest %q: %w", dir, err))
		}
	}
	return rep, nil
}

// manifestProblem is the problem of the run.json of dir that cannot be
// read. Where readManifest found the line and key, err is a
// *lineerr.Error without its file.
func manifestProblem(dir string, err error) *lineerr.Error {
	file := filepath.Join(dir, record.ManifestName)
	if le, ok := err.(*lineerr.Error); ok {
		return &lineerr.Error{File: file, Line: le.Line, Key: le.Key, Err: le.Err}
	}
	return &lineerr.Error{File: file, Err: err}
}

// jsonProblem places the error of decoding the JSON text b at its line
// and key, where the decoder says where it is. A text cut short is
// placed at no line, as lineerr has it.
func jsonProblem(b []byte, err error) error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return &lineerr.Error{Line: lineAt(b, syntax.Offset), Err: err}
	case errors.As(err, &typ):
		return &lineerr.Error{Line: lineAt(b, typ.Offset), Key: typ.Field,
			Err: fmt.Errorf("%s, want %s", typ.Value, typ.Type)}
	}
	return err
}

// lineAt returns the 1-based line of byte offset off of b, or 0 when off
// is past its end.
func lineAt(b []byte, off int64) int {
	if off < 0 || off >= int64(len(b)) {
		return 0
	}
	return bytes.Count(b[:off], []byte("\n")) + 1
}

// runDirs returns the run directories at or under path, sorted.
func runDirs(path string) ([]string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		if filepath.Base(path) != record.ManifestName {
			return nil, fmt.Errorf("neither a directory nor a %s", record.ManifestName)
		}
		return []string{filepath.Dir(path)}, nil
	}
	var dirs []string
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && d.Name() == record.ManifestName {
			dirs = append(dirs, filepath.Dir(p))
		}
		return nil
	})
	sort.Strings(dirs)
	return dirs, err
}

// ingestDir ingests one run directory in one transaction and adds what it
// did to rep. An unreadable manifest is a Problem, not an error, so that
// one broken directory does not stop a sync of the rest.
func (db *DB) ingestDir(ctx context.Context, dir string, rep *IngestReport) error {
	// Read again, not kept from FindRuns: a run still going rewrites it.
	m, err := readManifest(dir)
	if err != nil {
		rep.Problems = append(rep.Problems, manifestProblem(dir, err))
		return nil
	}
	if gone := launcherGone(m); gone != "" {
		m.Error = gone // a launcher error: the run failed, and is no longer running
	}
	// One connection for the transaction, so that the sample writer can
	// reach the driver's own connection under it (see withSampleWriter).
	conn, err := db.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	tx, err := beginWrite(ctx, conn)
	if err != nil {
		return err
	}
	defer tx.Rollback()

	run, problems, err := db.ingestRun(ctx, conn, tx, dir, m)
	if err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	rep.Runs = append(rep.Runs, run)
	rep.Problems = append(rep.Problems, problems...)
	return nil
}

// ingestRun writes the run of manifest m, found in dir, within tx, which
// is open on conn.
func (db *DB) ingestRun(ctx context.Context, conn *sql.Conn, tx *sql.Tx, dir string, m *record.Manifest) (IngestedRun, []*lineerr.Error, error) {
	now := db.Now().UnixNano()
	abs, err := filepath.Abs(dir)
	if err != nil {
		return IngestedRun{}, nil, err
	}
	out := IngestedRun{UID: m.UID, Dir: dir}
	prev, err := findRun(ctx, tx, m.UID)
	if err != nil {
		return out, nil, err
	}
	if prev.found && prev.status == record.StatusOK {
		out.ID, out.Status, out.Settled = prev.id, prev.status, true
		return out, nil, moveRun(ctx, tx, prev.id, abs)
	}

	out.ID, out.New = prev.id, !prev.found
	pointID, err := upsertPointOf(ctx, tx, dir, m, now)
	if err != nil {
		return out, nil, err
	}
	if out.New {
		if out.ID, err = insertRun(ctx, tx, pointID, abs, m, now); err != nil {
			return out, nil, err
		}
	}

	files, problems, err := readRanks(ctx, conn, out.ID, dir, m)
	if err != nil {
		return out, nil, err
	}
	out.Status, out.Reason = runVerdict(m, files)
	for _, f := range files {
		out.Samples += f.samples
	}
	ext, err := readExternal(dir, m)
	if err != nil {
		return out, nil, err
	}
	var tool map[string]any
	if ext != nil {
		var more []*lineerr.Error
		if tool, more, err = ingestExternal(ctx, tx, ext, &out, files); err != nil {
			return out, nil, err
		}
		problems = append(problems, more...)
	}
	if err := checkSizes(ctx, tx, &out, m.Sizes); err != nil {
		return out, nil, err
	}
	job, err := upsertJobOf(ctx, tx, &manifestJob{m.JobID, m.Cluster, m.Sweep, m.SweepHash}, now)
	if err != nil {
		return out, nil, err
	}
	if err := updateRun(ctx, tx, out, abs, m, files, job, now); err != nil {
		return out, nil, err
	}
	if tool != nil {
		if err := setExternalFingerprint(ctx, tx, out.ID, ext.spec, tool); err != nil {
			return out, nil, err
		}
	}
	if err := replaceRunHosts(ctx, tx, out.ID, runHosts(files)); err != nil {
		return out, nil, err
	}
	if out.New {
		// Later ingests leave the tags to the user (efaxx tag).
		if err := addTags(ctx, tx, out.ID, m.Tags); err != nil {
			return out, nil, err
		}
	}
	return out, problems, upsertRanks(ctx, tx, out.ID, files, isRunning(m))
}

// checkSizes marks a run that ended ok partial when a size of its point
// has no sample: every rank said ok, yet nothing was measured there, and
// a run that measured less than it was asked must not pass as whole.
func checkSizes(ctx context.Context, tx *sql.Tx, out *IngestedRun, sizes []uint64) error {
	if out.Status != record.StatusOK || len(sizes) == 0 {
		return nil
	}
	rows, err := tx.QueryContext(ctx, `SELECT DISTINCT size FROM samples WHERE run_id = ?`, out.ID)
	if err != nil {
		return err
	}
	defer rows.Close()
	got := map[uint64]bool{}
	for rows.Next() {
		var s int64
		if err := rows.Scan(&s); err != nil {
			return err
		}
		got[uint64(s)] = true
	}
	if err := rows.Err(); err != nil {
		return err
	}
	var none []string
	for _, s := range sizes {
		if !got[s] {
			none = append(none, strconv.FormatUint(s, 10))
		}
	}
	switch {
	case len(none) == len(sizes):
		out.Status, out.Reason = record.StatusPartial, "no samples"
	case len(none) > 0:
		out.Status, out.Reason = record.StatusPartial, "no samples at size "+strings.Join(none, ", ")+" B"
	}
	return nil
}

// upsertPointOf stores the sweep and the point of m unless they are stored
// already, and returns the point's id.
func upsertPointOf(ctx context.Context, tx *sql.Tx, dir string, m *record.Manifest, now int64) (int64, error) {
	spec, err := readSpec(dir, m)
	if err != nil {
		return 0, err
	}
	sweepID, err := upsertSweep(ctx, tx, m, spec, now)
	if err != nil {
		return 0, err
	}
	return upsertPoint(ctx, tx, sweepID, m)
}

// readManifest reads and checks the run.json of dir.
func readManifest(dir string) (*record.Manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, record.ManifestName))
	if err != nil {
		return nil, err
	}
	var m record.Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, jsonProblem(b, err)
	}
	switch {
	case m.Ranks < 1:
		return nil, &lineerr.Error{Key: "ranks", Err: fmt.Errorf("%d, want 1 or more", m.Ranks)}
	case m.UID == "":
		return nil, errors.New("no uid")
	case m.SweepHash == "":
		return nil, errors.New("no sweep_hash")
	case m.Point == "":
		return nil, errors.New("no point hash")
	}
	return &m, nil
}

// readSpec returns the sweep spec text that the manifest of dir names, or
// "" when the manifest names none or the file is gone: the sweep is then
// stored by its hash alone.
func readSpec(dir string, m *record.Manifest) (string, error) {
	if m.SweepFile == "" {
		return "", nil
	}
	path := m.SweepFile
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	return string(b), err
}
