package results

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"efaxx/results/record"
)

// upsertSweep stores the sweep of m unless its hash is stored, and returns
// its id. A sweep first stored without its spec text gets it from the
// first later ingest that finds the file.
func upsertSweep(ctx context.Context, tx *sql.Tx, m *record.Manifest, spec string, now int64) (int64, error) {
	if _, err := tx.ExecContext(ctx, `
		INSERT INTO sweeps (name, hash, spec, created_ns) VALUES (?, ?, ?, ?)
		ON CONFLICT (hash) DO UPDATE SET spec = excluded.spec
		WHERE sweeps.spec = '' AND excluded.spec <> ''`,
		m.Sweep, m.SweepHash, spec, now); err != nil {
		return 0, err
	}
	var id int64
	err := tx.QueryRowContext(ctx, `SELECT id FROM sweeps WHERE hash = ?`, m.SweepHash).Scan(&id)
	return id, err
}

// upsertPoint stores the point of m in its sweep unless it is stored, and
// returns its id.
func upsertPoint(ctx context.Context, tx *sql.Tx, sweepID int64, m *record.Manifest) (int64, error) {
	params, err := jsonText(m.Params, "{}")
	if err != nil {
		return 0, err
	}
	if _, err := tx.ExecContext(ctx, `
		INSERT INTO points (sweep_id, hash, idx, benchmark, params) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (sweep_id, hash) DO NOTHING`,
		sweepID, m.Point, m.Index, m.Benchmark, params); err != nil {
		return 0, err
	}
	var id int64
	err = tx.QueryRowContext(ctx, `SELECT id FROM points WHERE sweep_id = ? AND hash = ?`, sweepID, m.Point).Scan(&id)
	return id, err
}

// storedRun is what ingest needs to know of a run already in the store.
type storedRun struct {
	found  bool
	id     int64
	status string
}

// findRun looks the run up by its uid.
func findRun(ctx context.Context, tx *sql.Tx, uid string) (storedRun, error) {
	r := storedRun{found: true}
	err := tx.QueryRowContext(ctx, `SELECT id, status FROM runs WHERE uid = ?`, uid).Scan(&r.id, &r.status)
	if errors.Is(err, sql.ErrNoRows) {
		return storedRun{}, nil
	}
	return r, err
}

// insertRun stores a new run of m as running; updateRun sets the rest once
// its rank files are read. The row comes first because samples refer to it.
func insertRun(ctx context.Context, tx *sql.Tx, pointID int64, dir string, m *record.Manifest, now int64) (int64, error) {
	res, err := tx.ExecContext(ctx, `
		INSERT INTO runs (uid, point_id, benchmark, status, dir, started_ns, ingested_ns)
		VALUES (?, ?, ?, ?, ?, ?, ?)`,
		m.UID, pointID, m.Benchmark, record.StatusRunning, dir, m.StartNs, now)
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// updateRun sets what the manifest and the rank files say of run r, and
// the job (jobs.id) that ran it; job is nil for a run without one.
func updateRun(ctx context.Context, tx *sql.Tx, r IngestedRun, dir string, m *record.Manifest, files []rankFile, job *int64, now int64) error {
	hosts, err := jsonText(runHosts(files), "[]")
	if err != nil {
		return err
	}
	command, err := jsonText(m.Command, "[]")
	if err != nil {
		return err
	}
	provider, fingerprint := "", "{}"
	if f := firstFingerprint(files); f != nil {
		provider, fingerprint = f.fp.Provider, f.fpJSON
	}
	var finished *int64
	if m.ExitCode != nil && m.EndNs != 0 {
		finished = &m.EndNs
	}
	_, err = tx.ExecContext(ctx, `
		UPDATE runs SET status = ?, reason = ?, executor = ?, ranks = ?, provider = ?,
			hosts = ?, command = ?, started_ns = ?, finished_ns = ?, exit_code = ?,
			dir = ?, fingerprint = ?, samples = samples + ?, ingested_ns = ?,
			job_id = ?, step_id = ?, node_list = ?, runner_version = ?
		WHERE id = ?`,
		r.Status, r.Reason, m.Executor, m.Ranks, provider,
		hosts, command, m.StartNs, finished, m.ExitCode,
		dir, fingerprint, r.Samples, now,
		job, nullString(m.StepID), nullString(m.NodeList), m.RunnerVersion, r.ID)
	return err
}

// moveRun records that run id now lives in dir, for a workdir that was
// moved or copied since the run was first ingested.
func moveRun(ctx context.Context, tx *sql.Tx, id int64, dir string) error {
	_, err := tx.ExecContext(ctx, `UPDATE runs SET dir = ? WHERE id = ? AND dir <> ?`, dir, id, dir)
	return err
}

// upsertRanks stores one row per rank file, present or missing.
func upsertRanks(ctx context.Context, tx *sql.Tx, runID int64, files []rankFile, running bool) error {
	stmt, err := tx.PrepareContext(ctx, `
		INSERT INTO ranks (run_id, rank, host, local_rank, pid, status, error, bad_lines, fingerprint)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (run_id, rank) DO UPDATE SET host = excluded.host,
			local_rank = excluded.local_rank, pid = excluded.pid, status = excluded.status,
			error = excluded.error, bad_lines = excluded.bad_lines, fingerprint = excluded.fingerprint`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, f := range files {
		status, msg := rankVerdict(f, running)
		host, fingerprint := "", "{}"
		var localRank, pid *int
		if f.fp != nil {
			host, fingerprint = f.fp.Host, f.fpJSON
			localRank, pid = &f.fp.LocalRank, &f.fp.PID
		}
		if _, err := stmt.ExecContext(ctx, runID, f.rank, host, localRank, pid,
			status, msg, f.badLines, fingerprint); err != nil {
			return err
		}
	}
	return nil
}

// nullString returns s, or nil for NULL when it is empty.
func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// jsonText returns v as JSON text, or empty when v is nil or empty.
func jsonText(v any, empty string) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	if s := string(b); s != "null" && s != "{}" && s != "[]" {
		return s, nil
	}
	return empty, nil
}

// sampleWriter inserts the samples of one run through one prepared
// statement. A sample already stored is left as it is, which makes
// re-ingesting a file add nothing.
type sampleWriter struct {
	stmt  *sql.Stmt
	runID int64
}

// newSampleWriter prepares the sample insert for run runID within tx.
func newSampleWriter(ctx context.Context, tx *sql.Tx, runID int64) (*sampleWriter, error) {
	stmt, err := tx.PrepareContext(ctx, `
		INSERT INTO samples (run_id, size, rank, peer, variant, role, bytes_sent, bytes_recv,
			iterations, elapsed_ns, lat_min_ns, lat_p50_ns, lat_p99_ns, lat_max_ns,
			peers, strategy, rails, rail_bytes, link_bps, requeued)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (run_id, size, rank, peer, variant) DO NOTHING`)
	if err != nil {
		return nil, err
	}
	return &sampleWriter{stmt: stmt, runID: runID}, nil
}

// close releases the prepared statement.
func (w *sampleWriter) close() { w.stmt.Close() }

// insert stores s unless it is stored already. It reports whether it added
// a row, or why s cannot be stored.
func (w *sampleWriter) insert(ctx context.Context, s *record.Sample) (bool, string, error) {
	args, msg := sampleArgs(w.runID, s)
	if msg != "" {
		return false, msg, nil
	}
	// The caller checks ctx between lines. An insert takes microseconds,
	// and go-sqlite3 starts a goroutine per statement to watch a context
	// that can be cancelled, which would cost more than the insert.
	res, err := w.stmt.ExecContext(context.WithoutCancel(ctx), args...)
	if err != nil {
		return false, "", err
	}
	n, err := res.RowsAffected()
	return n > 0, "", err
}

// sampleArgs returns the column values of s, or why s cannot be stored:
// SQLite integers are signed 64-bit, and a sample without elapsed time
// has no rate.
func sampleArgs(runID int64, s *record.Sample) ([]any, string) {
	nums := [...]uint64{s.BytesSent, s.BytesRecv, s.Iterations, s.ElapsedNs,
		s.Lat.Min, s.Lat.P50, s.Lat.P99, s.Lat.Max}
	if s.Size > math.MaxInt64 {
		return nil, fmt.Sprintf("sample size %d out of range", s.Size)
	}
	if s.ElapsedNs == 0 {
		return nil, fmt.Sprintf("sample size %d: elapsed_ns is 0", s.Size)
	}
	args := []any{runID, int64(s.Size), s.Rank, s.Peer, s.Variant, s.Role}
	for _, n := range nums {
		if n > math.MaxInt64 {
			return nil, fmt.Sprintf("sample size %d: value %d out of range", s.Size, n)
		}
		args = append(args, int64(n))
	}
	return append(args, railArgs(s)...), ""
}

// railArgs returns the multi-rail columns of s; files written before rails
// existed leave them at their defaults.
func railArgs(s *record.Sample) []any {
	rails, railBytes := "[]", "[]"
	if len(s.Rails) > 0 {
		b, _ := json.Marshal(s.Rails) // ints always encode
		rails = string(b)
	}
	if len(s.RailBytes) > 0 {
		b, _ := json.Marshal(s.RailBytes)
		railBytes = string(b)
	}
	link, requeued := int64(min(s.LinkBps, math.MaxInt64)), int64(min(s.Requeued, math.MaxInt64))
	return []any{s.Peers, s.Strategy, rails, railBytes, link, requeued}
}
