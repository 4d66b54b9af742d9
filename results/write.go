package results

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/mattn/go-sqlite3"

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
	found     bool
	id        int64
	status    string
	benchmark string
}

// findRun looks the run up by its uid.
func findRun(ctx context.Context, tx *sql.Tx, uid string) (storedRun, error) {
	r := storedRun{found: true}
	err := tx.QueryRowContext(ctx, `SELECT id, status, benchmark FROM runs WHERE uid = ?`, uid).Scan(&r.id, &r.status, &r.benchmark)
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

// sampleRow is one sample checked and ready to insert: the values of its
// samples columns after run_id.
type sampleRow struct {
	size, rank, peer int64
	variant, role    string
	nums             [8]int64 // bytes_sent, bytes_recv, iterations, elapsed_ns, lat_min/p50/p99/max_ns

	// The multi-rail columns (migration 0021); their defaults for files
	// written before rails existed.
	peers, strategy, rails, railBytes string
	linkBps, requeued                 int64
}

// rowOf returns the row of s, or why s cannot be stored: SQLite integers
// are signed 64-bit, and a sample without elapsed time has no rate.
func rowOf(s *record.Sample) (sampleRow, string) {
	nums := [...]uint64{s.BytesSent, s.BytesRecv, s.Iterations, s.ElapsedNs,
		s.Lat.Min, s.Lat.P50, s.Lat.P99, s.Lat.Max}
	if s.Size > math.MaxInt64 {
		return sampleRow{}, fmt.Sprintf("sample size %d out of range", s.Size)
	}
	if s.ElapsedNs == 0 {
		return sampleRow{}, fmt.Sprintf("sample size %d: elapsed_ns is 0", s.Size)
	}
	row := sampleRow{size: int64(s.Size), rank: int64(s.Rank), peer: int64(s.Peer), variant: s.Variant, role: s.Role}
	for i, n := range nums {
		if n > math.MaxInt64 {
			return sampleRow{}, fmt.Sprintf("sample size %d: value %d out of range", s.Size, n)
		}
		row.nums[i] = int64(n)
	}
	railColumns(s, &row)
	return row, ""
}

// railColumns fills the multi-rail columns of row from s.
func railColumns(s *record.Sample, row *sampleRow) {
	row.peers, row.strategy, row.rails, row.railBytes = s.Peers, s.Strategy, "[]", "[]"
	if len(s.Rails) > 0 {
		b, _ := json.Marshal(s.Rails) // ints always encode
		row.rails = string(b)
	}
	if len(s.RailBytes) > 0 {
		b, _ := json.Marshal(s.RailBytes)
		row.railBytes = string(b)
	}
	row.linkBps, row.requeued = int64(min(s.LinkBps, math.MaxInt64)), int64(min(s.Requeued, math.MaxInt64))
}

// insertSampleSQL stores one sample unless its key is stored, which makes
// re-ingesting a file add nothing.
const insertSampleSQL = `
	INSERT INTO samples (run_id, size, rank, peer, variant, role, bytes_sent, bytes_recv,
		iterations, elapsed_ns, lat_min_ns, lat_p50_ns, lat_p99_ns, lat_max_ns,
		peers, strategy, rails, rail_bytes, link_bps, requeued)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT (run_id, size, rank, peer, variant) DO NOTHING`

// sampleColumns is how many values insertSampleSQL takes.
const sampleColumns = 20

// sampleWriter inserts the samples of one run through one prepared
// statement of the driver itself. Samples are most of what ingest writes,
// and database/sql's checks and conversions of every argument of every
// row cost a third of the insert; the statement runs on the connection
// that holds the transaction, so it is part of it.
type sampleWriter struct {
	stmt  driver.StmtExecContext
	runID int64
	args  []driver.NamedValue

	// ctx is never cancelled: the caller checks for cancellation between
	// lines, and go-sqlite3 starts a goroutine per statement to watch a
	// context that can be, which would cost more than the insert.
	ctx context.Context
}

// withSampleWriter runs fn with a sampleWriter for run runID on conn, the
// connection that holds the caller's transaction.
func withSampleWriter(conn *sql.Conn, runID int64, fn func(*sampleWriter) error) error {
	return conn.Raw(func(dc any) error {
		c, ok := dc.(*sqlite3.SQLiteConn)
		if !ok {
			return fmt.Errorf("results: driver connection is a %T, want go-sqlite3's", dc)
		}
		st, err := c.Prepare(insertSampleSQL)
		if err != nil {
			return err
		}
		defer st.Close()
		w := &sampleWriter{stmt: st.(driver.StmtExecContext), runID: runID,
			args: make([]driver.NamedValue, sampleColumns), ctx: context.Background()}
		for i := range w.args {
			w.args[i].Ordinal = i + 1
		}
		return fn(w)
	})
}

// drain runs produce on a new goroutine and inserts every batch it sends,
// until produce returns. It returns how many rows it added per rank. When
// an insert fails, produce's context is cancelled; either side's error is
// returned, the writer's first.
func (w *sampleWriter) drain(ctx context.Context, produce func(context.Context, chan<- []sampleRow) error) (map[int]int, error) {
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	batches := make(chan []sampleRow, 4)
	done := make(chan error, 1)
	go func() {
		defer close(batches)
		done <- produce(pctx, batches)
	}()
	added := map[int]int{}
	var werr error
	for rows := range batches {
		if werr != nil {
			continue // let the producer see the cancellation and stop
		}
		if err := w.insertAll(rows, added); err != nil {
			werr = err
			cancel()
		}
	}
	if perr := <-done; werr == nil {
		werr = perr
	}
	return added, werr
}

// insertAll stores rows, skipping those already stored, and counts the
// rows it adds per rank in added.
func (w *sampleWriter) insertAll(rows []sampleRow, added map[int]int) error {
	for i := range rows {
		ok, err := w.insert(&rows[i])
		if err != nil {
			return fmt.Errorf("insert sample of rank %d, size %d: %w", rows[i].rank, rows[i].size, err)
		}
		if ok {
			added[int(rows[i].rank)]++
		}
	}
	return nil
}

// insert stores r unless it is stored already, and reports whether it
// added a row.
func (w *sampleWriter) insert(r *sampleRow) (bool, error) {
	a := w.args
	a[0].Value, a[1].Value, a[2].Value, a[3].Value, a[4].Value, a[5].Value = w.runID, r.size, r.rank, r.peer, r.variant, r.role
	for i, n := range r.nums {
		a[6+i].Value = n
	}
	a[14].Value, a[15].Value, a[16].Value, a[17].Value, a[18].Value, a[19].Value = r.peers, r.strategy, r.rails,
		r.railBytes, r.linkBps, r.requeued
	res, err := w.stmt.ExecContext(w.ctx, a)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}
