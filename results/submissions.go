package results

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// Submission is a job handed to sbatch whose answer the store has not
// recorded: submit adds it before sbatch runs, so that a submit killed
// before it records sbatch's answer leaves a trace sync can find the job
// by, rather than a job that runs untracked.
type Submission struct {
	ID  int64 // submissions.id
	Job Job   // the job as it is to be recorded, without its JobID
}

// AddSubmission records j, about to be submitted, and returns the id of
// the submission.
func (db *DB) AddSubmission(ctx context.Context, j *Job) (id int64, err error) {
	defer func() { err = db.storeErr(err) }()
	data, err := json.Marshal(j)
	if err != nil {
		return 0, fmt.Errorf("add submission %s: %w", j.Dir, err)
	}
	err = retryBusy(ctx, func() error { // as AddJob
		res, err := db.db.ExecContext(ctx, `INSERT INTO submissions (dir, job, submitted_ns) VALUES (?, ?, ?)`,
			j.Dir, string(data), j.Submitted.UnixNano())
		if err == nil {
			id, err = res.LastInsertId()
		}
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("add submission %s: %w", j.Dir, err)
	}
	return id, nil
}

// Submissions returns the submissions whose job is not recorded, oldest
// first.
func (db *DB) Submissions(ctx context.Context) ([]Submission, error) {
	rows, err := db.db.QueryContext(ctx, `SELECT id, job FROM submissions ORDER BY submitted_ns, id`)
	if err != nil {
		return nil, fmt.Errorf("query submissions: %w", err)
	}
	defer rows.Close()
	var subs []Submission
	for rows.Next() {
		var s Submission
		var data string
		if err := rows.Scan(&s.ID, &data); err != nil {
			return nil, fmt.Errorf("query submissions: %w", err)
		}
		if err := json.Unmarshal([]byte(data), &s.Job); err != nil {
			return nil, fmt.Errorf("submission %d: %w", s.ID, err)
		}
		subs = append(subs, s)
	}
	return subs, rows.Err()
}

// RecordSubmitted records j, the job of submission id that sbatch
// accepted, and removes the submission, in one transaction; it sets j.ID.
// A job recorded already (a sync found it first) is kept as it is.
func (db *DB) RecordSubmitted(ctx context.Context, id int64, j *Job) (err error) {
	defer func() { err = db.storeErr(err) }()
	steps, err := json.Marshal(j.Steps)
	if err != nil {
		return fmt.Errorf("add job %s: %w", j.JobID, err)
	}
	tx, err := beginWrite(ctx, db.db)
	if err != nil {
		return fmt.Errorf("add job %s: %w", j.JobID, err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `DELETE FROM submissions WHERE id = ?`, id); err != nil {
		return fmt.Errorf("add job %s: %w", j.JobID, err)
	}
	if _, err := tx.ExecContext(ctx, insertJob+` ON CONFLICT (scheduler, cluster, job_id) DO NOTHING`,
		jobValues(j, string(steps), db.Now())...); err != nil {
		return fmt.Errorf("add job %s: %w", j.JobID, err)
	}
	if err := tx.QueryRowContext(ctx, `SELECT id FROM jobs WHERE scheduler = ? AND cluster = ? AND job_id = ?`,
		j.Scheduler, j.Cluster, j.JobID).Scan(&j.ID); err != nil {
		return fmt.Errorf("add job %s: %w", j.JobID, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("add job %s: %w", j.JobID, err)
	}
	return nil
}

// DropSubmission removes submission id: sbatch refused its job, or Slurm
// never had it.
func (db *DB) DropSubmission(ctx context.Context, id int64) (err error) {
	defer func() { err = db.storeErr(err) }()
	err = retryBusy(ctx, func() error {
		_, err := db.db.ExecContext(ctx, `DELETE FROM submissions WHERE id = ?`, id)
		return err
	})
	if err != nil {
		return fmt.Errorf("drop submission %d: %w", id, err)
	}
	return nil
}

// jobValues are the values of insertJob for j.
func jobValues(j *Job, steps string, now time.Time) []any {
	return []any{j.Scheduler, j.Cluster, j.JobID, j.Name, j.Sweep, j.SweepHash, j.Session, j.SessionDir,
		j.Dir, j.Shape, steps, int64(j.TimeLimit), j.State, j.Source, j.Submitted.UnixNano(), now.UnixNano()}
}
