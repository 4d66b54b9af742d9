package results

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"path/filepath"

	"efaxx/results/record"
)

// ImportedRun is a run that another tool measured (nccl-tests), stored
// like an ingested run but without a run directory: its point, its ranks
// as the tool listed them, and its samples.
type ImportedRun struct {
	UID       string // unique; importing the same UID again adds nothing
	Sweep     string // a name for the imported file
	SweepHash string // the file's content hash
	Spec      string // the file's text, kept as its provenance
	Point     string // content hash of Benchmark and Params
	Benchmark string
	Params    map[string]any
	Executor  string   // the tool, as "nccl-tests"
	Command   []string // the tool's command line, when the file gives it
	StartNs   int64
	Status    string // record.StatusOK or StatusFailed
	Reason    string // why it failed; "" when ok
	File      string // the imported file
	Ranks     []record.Rank
	Samples   []record.Sample
	Values    []record.ToolValue // what the tool printed for the samples, in its units

	// Fingerprint is what the tool says of itself and the run, stored as
	// the run's fingerprint JSON.
	Fingerprint map[string]any
}

// ImportRun stores r in one transaction, unless its UID is stored, and
// reports what it did as Ingest does. A sample that cannot be stored
// fails the import: an imported file is all or nothing.
func (db *DB) ImportRun(ctx context.Context, r *ImportedRun) (IngestedRun, error) {
	out, err := db.ImportRuns(ctx, []*ImportedRun{r})
	if err != nil {
		return IngestedRun{}, err
	}
	return out[0], nil
}

// ImportRuns stores runs as ImportRun does, all in one transaction, so
// that one that cannot be stored leaves the store as it was. It reports
// what it did for each run, in order.
func (db *DB) ImportRuns(ctx context.Context, runs []*ImportedRun) (_ []IngestedRun, err error) {
	defer func() { err = db.storeErr(err) }()
	tx, err := beginWrite(ctx, db.db)
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	defer tx.Rollback()
	out := make([]IngestedRun, len(runs))
	for i, r := range runs {
		if out[i], err = db.importOne(ctx, tx, r); err != nil {
			return nil, fmt.Errorf("import %s: %w", r.File, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	return out, nil
}

// importOne stores r within tx unless its UID is stored.
func (db *DB) importOne(ctx context.Context, tx *sql.Tx, r *ImportedRun) (IngestedRun, error) {
	out := IngestedRun{UID: r.UID, Dir: r.File, Status: r.Status, Reason: r.Reason}
	prev, err := findRun(ctx, tx, r.UID)
	if err != nil {
		return out, err
	}
	if prev.found {
		// The uid is the file's text, not how it was read: the same file
		// with another --collective is this run, and saying "already
		// stored" as that collective would be untrue.
		if prev.benchmark != r.Benchmark {
			return out, fmt.Errorf("stored already as %s (run %d), not %s: efaxx prune %d to store it again",
				prev.benchmark, prev.id, r.Benchmark, prev.id)
		}
		out.ID, out.Status, out.Settled = prev.id, prev.status, true
		return out, nil
	}
	return out, importRun(ctx, tx, r, &out, db.Now().UnixNano())
}

// importRun writes r within tx, filling in out.
func importRun(ctx context.Context, tx *sql.Tx, r *ImportedRun, out *IngestedRun, now int64) error {
	abs, err := filepath.Abs(r.File)
	if err != nil {
		return err
	}
	zero := 0
	m := &record.Manifest{UID: r.UID, Sweep: r.Sweep, SweepHash: r.SweepHash, Point: r.Point,
		Benchmark: r.Benchmark, Params: r.Params, StartNs: r.StartNs, ExitCode: &zero}
	sweepID, err := upsertSweep(ctx, tx, m, r.Spec, now)
	if err != nil {
		return err
	}
	pointID, err := upsertPoint(ctx, tx, sweepID, m)
	if err != nil {
		return err
	}
	if out.ID, err = insertRun(ctx, tx, pointID, abs, m, now); err != nil {
		return err
	}
	out.New = true
	if out.Samples, err = insertSamples(ctx, tx, out.ID, r.Samples); err != nil {
		return err
	}
	if err := insertToolValues(ctx, tx, out.ID, r.Values); err != nil {
		return err
	}
	if err := updateImported(ctx, tx, out.ID, r, out.Samples); err != nil {
		return err
	}
	hosts := uniqueHosts(r.Ranks)
	if err := replaceRunHosts(ctx, tx, out.ID, hosts); err != nil {
		return err
	}
	return insertImportedRanks(ctx, tx, out.ID, r.Ranks)
}

// insertSamples stores samples in run id and returns how many it added.
func insertSamples(ctx context.Context, tx *sql.Tx, id int64, samples []record.Sample) (int, error) {
	stmt, err := tx.PrepareContext(ctx, insertSampleSQL)
	if err != nil {
		return 0, err
	}
	defer stmt.Close()
	n := 0
	for i := range samples {
		row, msg := rowOf(&samples[i])
		if msg != "" {
			return n, fmt.Errorf("sample %d: %s", i+1, msg)
		}
		res, err := stmt.ExecContext(ctx, id, row.size, row.rank, row.peer, row.variant, row.role, row.nums[0],
			row.nums[1], row.nums[2], row.nums[3], row.nums[4], row.nums[5], row.nums[6], row.nums[7],
			row.peers, row.strategy, row.rails, row.railBytes, row.linkBps, row.requeued)
		if err != nil {
			return n, err
		}
		if k, err := res.RowsAffected(); err == nil && k > 0 {
			n++
		}
	}
	return n, nil
}

// updateImported sets the rest of the runs row of r.
func updateImported(ctx context.Context, tx *sql.Tx, id int64, r *ImportedRun, samples int) error {
	hosts, err := jsonText(uniqueHosts(r.Ranks), "[]")
	if err != nil {
		return err
	}
	command, err := jsonText(r.Command, "[]")
	if err != nil {
		return err
	}
	fingerprint, err := jsonText(r.Fingerprint, "{}")
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `
		UPDATE runs SET status = ?, reason = ?, executor = ?, ranks = ?, hosts = ?, command = ?,
			finished_ns = started_ns, exit_code = 0, fingerprint = ?, samples = ?
		WHERE id = ?`,
		r.Status, r.Reason, r.Executor, len(r.Ranks), hosts, command, fingerprint, samples, id)
	return err
}

// insertImportedRanks stores one ranks row per rank the tool listed.
func insertImportedRanks(ctx context.Context, tx *sql.Tx, id int64, ranks []record.Rank) error {
	for _, k := range ranks {
		fp, err := jsonText(k, "{}")
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `
			INSERT OR IGNORE INTO ranks (run_id, rank, host, local_rank, pid, status, fingerprint)
			VALUES (?, ?, ?, ?, ?, 'ok', ?)`, id, k.Rank, k.Host, k.LocalRank, k.PID, fp); err != nil {
			return err
		}
	}
	return nil
}

// uniqueHosts returns the distinct hosts of ranks, in rank order.
func uniqueHosts(ranks []record.Rank) []string {
	seen := map[string]bool{}
	var hosts []string
	for _, k := range ranks {
		if k.Host != "" && !seen[k.Host] {
			seen[k.Host] = true
			hosts = append(hosts, k.Host)
		}
	}
	return hosts
}

// insertToolValues stores values in run id; a value stored already is
// replaced, so that ingesting a run again gives the same rows.
func insertToolValues(ctx context.Context, tx *sql.Tx, id int64, values []record.ToolValue) error {
	if len(values) == 0 {
		return nil
	}
	stmt, err := tx.PrepareContext(ctx, `
		INSERT OR REPLACE INTO tool_values (run_id, size, rank, peer, variant, name, value, unit)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, v := range values {
		if v.Size > math.MaxInt64 || v.Name == "" || math.IsNaN(v.Value) || math.IsInf(v.Value, 0) {
			return fmt.Errorf("tool value %q at size %d: %v cannot be stored", v.Name, v.Size, v.Value)
		}
		if _, err := stmt.ExecContext(ctx, id, int64(v.Size), v.Rank, v.Peer, v.Variant, v.Name, v.Value, v.Unit); err != nil {
			return fmt.Errorf("tool value %q at size %d: %w", v.Name, v.Size, err)
		}
	}
	return nil
}
