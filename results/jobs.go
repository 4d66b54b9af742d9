package results

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// ErrJobNotFound is returned, wrapped with the id, when a job is not in
// the store.
var ErrJobNotFound = errors.New("results: job not found")

// Job is one scheduler job that efaxx submitted: one allocation, one step
// per point. Submit adds it; status and sync keep its state.
type Job struct {
	ID         int64         `json:"id"`        // jobs.id
	Scheduler  string        `json:"scheduler"` // "slurm"
	Cluster    string        `json:"cluster,omitempty"`
	JobID      string        `json:"job_id"` // the scheduler's id, "4711"
	Name       string        `json:"name"`
	Sweep      string        `json:"sweep"`
	SweepHash  string        `json:"sweep_hash"`
	Session    string        `json:"session"`     // the session id
	SessionDir string        `json:"session_dir"` // absolute
	Dir        string        `json:"dir"`         // the job directory: script, output, markers; absolute
	Shape      string        `json:"shape"`       // the resources of the allocation, "nodes=2 ranks=2"
	Steps      []JobStep     `json:"steps"`
	TimeLimit  time.Duration `json:"time_limit"` // what the job asked for; 0 for none
	State      string        `json:"state"`      // the scheduler's state, "PENDING", "COMPLETED", ...
	Reason     string        `json:"reason,omitempty"`
	ExitCode   string        `json:"exit_code,omitempty"` // "0:0"
	NodeList   string        `json:"node_list,omitempty"`
	Source     string        `json:"source"` // who said so: sbatch, sacct, squeue, scontrol, marker
	Submitted  time.Time     `json:"submitted"`
	Started    time.Time     `json:"started"`          // zero before it starts
	Ended      time.Time     `json:"ended"`            // zero before it ends
	Settled    time.Time     `json:"settled,omitzero"` // when sync stored every step of the ended job; zero until then
}

// JobStep is one step of a job: the point it runs and where.
type JobStep struct {
	Step       int    `json:"step"`        // position in the job script, from 0
	Name       string `json:"name"`        // the step's name in the scheduler
	Point      string `json:"point"`       // the point's content hash
	Label      string `json:"label"`       // the point's label in its sweep, "write provider=tcp"
	PointIndex int    `json:"point_index"` // the point's position in the sweep
	UID        string `json:"uid"`         // the uid of its run
	Dir        string `json:"dir"`         // its run directory, absolute
}

// AddJob records a job that was just submitted, and sets j.ID.
func (db *DB) AddJob(ctx context.Context, j *Job) (err error) {
	defer func() { err = db.storeErr(err) }()
	steps, err := json.Marshal(j.Steps)
	if err != nil {
		return fmt.Errorf("add job %s: %w", j.JobID, err)
	}
	// Through retryBusy, as every writer: alone, the statement waits
	// busyTimeout for another process's lock and then fails, and the job,
	// already submitted, would go unrecorded.
	var res sql.Result
	err = retryBusy(ctx, func() (err error) {
		res, err = db.db.ExecContext(ctx, insertJob, jobValues(j, string(steps), db.Now())...)
		return err
	})
	if err != nil {
		return fmt.Errorf("add job %s: %w", j.JobID, err)
	}
	j.ID, err = res.LastInsertId()
	return err
}

// insertJob adds a jobs row; jobValues gives its values.
const insertJob = `
	INSERT INTO jobs (scheduler, cluster, job_id, name, sweep, sweep_hash, session, session_dir,
		dir, shape, steps, time_limit_ns, state, source, submitted_ns, updated_ns)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

// UpdateJob stores the state fields of j: state, reason, exit code, node
// list, source, start, end and settled.
func (db *DB) UpdateJob(ctx context.Context, j *Job) (err error) {
	defer func() { err = db.storeErr(err) }()
	err = retryBusy(ctx, func() error { // as AddJob
		_, err := db.db.ExecContext(ctx, `
		UPDATE jobs SET state = ?, reason = ?, exit_code = ?, node_list = ?, source = ?,
			started_ns = ?, ended_ns = ?, settled_ns = ?, updated_ns = ?
		WHERE id = ?`,
			j.State, j.Reason, j.ExitCode, j.NodeList, j.Source,
			nullTime(j.Started), nullTime(j.Ended), nullTime(j.Settled), db.Now().UnixNano(), j.ID)
		return err
	})
	if err != nil {
		return fmt.Errorf("update job %s: %w", j.JobID, err)
	}
	return nil
}

// FailRunning fails the runs of job id that are stored as running, and
// their ranks still running, with reason: their files are gone (their
// session directory deleted), so no ingest will end them, and each would
// read as running for good. It returns how many runs it failed.
func (db *DB) FailRunning(ctx context.Context, id int64, reason string) (n int64, err error) {
	defer func() { err = db.storeErr(err) }()
	err = retryBusy(ctx, func() error {
		tx, err := db.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		if _, err := tx.ExecContext(ctx, `
			UPDATE ranks SET status = 'failed', error = ?
			WHERE status = 'running' AND run_id IN (SELECT id FROM runs WHERE job_id = ? AND status = 'running')`,
			reason, id); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE runs SET status = 'failed', reason = ? WHERE job_id = ? AND status = 'running'`,
			reason, id)
		if err != nil {
			return err
		}
		if n, err = res.RowsAffected(); err != nil {
			return err
		}
		return tx.Commit()
	})
	if err != nil {
		return 0, fmt.Errorf("fail the running runs of job %d: %w", id, err)
	}
	return n, nil
}

// JobFilter selects jobs. The zero value selects all of them.
type JobFilter struct {
	Sweep     string   // only this sweep, by name or hash; "" for any
	Session   string   // only this session id; "" for any
	JobIDs    []string // only these scheduler ids; nil for any
	Unsettled bool     // only jobs sync has more to do for
	Limit     int      // at most this many, the newest; 0 for no limit
}

const jobColumns = `
	SELECT id, scheduler, cluster, job_id, name, sweep, sweep_hash, session, session_dir, dir,
		shape, steps, time_limit_ns, state, reason, exit_code, node_list, source,
		submitted_ns, started_ns, ended_ns, settled_ns
	FROM jobs`

// Jobs returns the jobs f selects, oldest first.
func (db *DB) Jobs(ctx context.Context, f JobFilter) ([]Job, error) {
	where, args := f.where()
	query := jobColumns + where + ` ORDER BY submitted_ns, id`
	if f.Limit > 0 {
		query = `SELECT * FROM (` + jobColumns + where + ` ORDER BY submitted_ns DESC, id DESC LIMIT ?) ORDER BY submitted_ns, id`
		args = append(args, f.Limit)
	}
	rows, err := db.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("query jobs: %w", err)
	}
	defer rows.Close()
	var jobs []Job
	for rows.Next() {
		j, err := scanJob(rows)
		if err != nil {
			return nil, fmt.Errorf("query jobs: %w", err)
		}
		jobs = append(jobs, *j)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("query jobs: %w", err)
	}
	return jobs, nil
}

func (f JobFilter) where() (string, []any) {
	var conds []string
	var args []any
	if f.Sweep != "" {
		conds = append(conds, `(sweep = ? OR sweep_hash = ?)`)
		args = append(args, f.Sweep, f.Sweep)
	}
	if f.Session != "" {
		conds = append(conds, `session = ?`)
		args = append(args, f.Session)
	}
	if f.JobIDs != nil {
		conds = append(conds, `job_id IN (`+placeholders(len(f.JobIDs))+`)`)
		for _, id := range f.JobIDs {
			args = append(args, id)
		}
	}
	if f.Unsettled {
		conds = append(conds, `settled_ns IS NULL`)
	}
	if len(conds) == 0 {
		return "", nil
	}
	return ` WHERE ` + strings.Join(conds, ` AND `), args
}

func scanJob(row interface{ Scan(...any) error }) (*Job, error) {
	var j Job
	var steps string
	var limit, submitted int64
	var started, ended, settled sql.NullInt64
	if err := row.Scan(&j.ID, &j.Scheduler, &j.Cluster, &j.JobID, &j.Name, &j.Sweep, &j.SweepHash,
		&j.Session, &j.SessionDir, &j.Dir, &j.Shape, &steps, &limit, &j.State, &j.Reason, &j.ExitCode,
		&j.NodeList, &j.Source, &submitted, &started, &ended, &settled); err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(steps), &j.Steps); err != nil {
		return nil, fmt.Errorf("job %s steps: %w", j.JobID, err)
	}
	j.TimeLimit, j.Submitted = time.Duration(limit), time.Unix(0, submitted)
	j.Started, j.Ended, j.Settled = timeOf(started), timeOf(ended), timeOf(settled)
	return &j, nil
}

// RunsOfJob returns the runs stored for the steps of job id (jobs.id), in
// step order.
func (db *DB) RunsOfJob(ctx context.Context, id int64) ([]Run, error) {
	rows, err := db.db.QueryContext(ctx, runColumns+` WHERE r.job_id = ? ORDER BY r.step_id, r.id`, id)
	if err != nil {
		return nil, fmt.Errorf("runs of job %d: %w", id, err)
	}
	defer rows.Close()
	var runs []Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, fmt.Errorf("runs of job %d: %w", id, err)
		}
		runs = append(runs, *r)
	}
	return runs, rows.Err()
}

// PointHistory is what the store knows of earlier attempts at one point by
// a Slurm executor.
type PointHistory struct {
	OK       bool   // a run of the point by the runner version asked about ended ok
	Last     string // the status of its latest run by any runner (a failed point is retried with a new build); "" for none
	InFlight bool   // a job not yet settled holds a step of the point
}

// PointHistories returns, for each point hash, what the store knows of
// its Slurm runs within sweep (by name), whether one with runnerVersion
// ended ok, and of the sweep's jobs still in flight (submissions not yet
// recorded included). Another sweep's runs
// of an equal point do not count: the sweeps may differ in what no
// parameter records (a NIC shaped slower, another cluster). Points never
// seen are absent.
func (db *DB) PointHistories(ctx context.Context, sweep, runnerVersion string, hashes []string) (map[string]PointHistory, error) {
	out := map[string]PointHistory{}
	if err := db.pointRuns(ctx, sweep, runnerVersion, hashes, out); err != nil {
		return nil, fmt.Errorf("point histories: %w", err)
	}
	jobs, err := db.Jobs(ctx, JobFilter{Sweep: sweep, Unsettled: true})
	if err != nil {
		return nil, err
	}
	// A submission not yet recorded may be a job Slurm runs: its points
	// are in flight until sync finds it or learns Slurm never had it.
	subs, err := db.Submissions(ctx)
	if err != nil {
		return nil, err
	}
	for _, s := range subs {
		if s.Job.Sweep == sweep || s.Job.SweepHash == sweep {
			jobs = append(jobs, s.Job)
		}
	}
	want := map[string]bool{}
	for _, h := range hashes {
		want[h] = true
	}
	for _, j := range jobs {
		for _, s := range j.Steps {
			if want[s.Point] {
				h := out[s.Point]
				h.InFlight = true
				out[s.Point] = h
			}
		}
	}
	return out, nil
}

// pointRuns fills out with the ok flag of each point's Slurm runs in sweep
// of runnerVersion, and the latest status of any of them. The hashes go
// in batches, as SQLite bounds the number of parameters of one statement.
func (db *DB) pointRuns(ctx context.Context, sweep, runnerVersion string, hashes []string, out map[string]PointHistory) error {
	const batch = 500
	for len(hashes) > 0 {
		n := min(batch, len(hashes))
		args := []any{runnerVersion, sweep}
		for _, h := range hashes[:n] {
			args = append(args, h)
		}
		hashes = hashes[n:]
		rows, err := db.db.QueryContext(ctx, `
			SELECT p.hash, MAX(r.status = 'ok' AND r.runner_version = ?1),
				(SELECT r2.status FROM runs r2 JOIN points p2 ON p2.id = r2.point_id
				 JOIN sweeps s2 ON s2.id = p2.sweep_id
				 WHERE p2.hash = p.hash AND s2.name = ?2 AND r2.executor = 'slurm'
				 ORDER BY r2.started_ns DESC, r2.id DESC LIMIT 1)
			FROM runs r JOIN points p ON p.id = r.point_id JOIN sweeps s ON s.id = p.sweep_id
			WHERE r.executor = 'slurm' AND s.name = ?2
				AND p.hash IN (`+placeholdersFrom(3, n)+`)
			GROUP BY p.hash`, args...)
		if err != nil {
			return err
		}
		for rows.Next() {
			var hash, last string
			var ok bool
			if err := rows.Scan(&hash, &ok, &last); err != nil {
				rows.Close()
				return err
			}
			out[hash] = PointHistory{OK: ok, Last: last}
		}
		if err := rows.Close(); err != nil {
			return err
		}
	}
	return nil
}

// upsertJobOf returns the jobs row of the job that ran m, adding a row
// for a job this store did not submit (a run directory ingested into
// another store); nil for a run without a job.
func upsertJobOf(ctx context.Context, tx *sql.Tx, m *manifestJob, now int64) (*int64, error) {
	if m.JobID == "" {
		return nil, nil
	}
	// A job added here is settled at once: sync has nothing to track.
	if _, err := tx.ExecContext(ctx, `
		INSERT INTO jobs (scheduler, cluster, job_id, sweep, sweep_hash, state, source,
			submitted_ns, updated_ns, settled_ns)
		VALUES ('slurm', ?, ?, ?, ?, '', 'ingest', ?, ?, ?)
		ON CONFLICT (scheduler, cluster, job_id) DO NOTHING`,
		m.Cluster, m.JobID, m.Sweep, m.SweepHash, now, now, now); err != nil {
		return nil, err
	}
	var id int64
	err := tx.QueryRowContext(ctx, `SELECT id FROM jobs WHERE scheduler = 'slurm' AND cluster = ? AND job_id = ?`,
		m.Cluster, m.JobID).Scan(&id)
	return &id, err
}

// manifestJob is the part of a manifest that names its job.
type manifestJob struct {
	JobID, Cluster, Sweep, SweepHash string
}

// placeholders returns n plain placeholders, "?, ?, ?".
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// placeholdersFrom returns n numbered placeholders, ?first, ?first+1, ...
func placeholdersFrom(first, n int) string {
	p := make([]string, n)
	for i := range p {
		p[i] = fmt.Sprintf("?%d", first+i)
	}
	return strings.Join(p, ", ")
}

func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixNano()
}

func timeOf(n sql.NullInt64) time.Time {
	if !n.Valid {
		return time.Time{}
	}
	return time.Unix(0, n.Int64)
}
