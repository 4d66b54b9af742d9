package harness

import (
	"context"
	"fmt"
	"time"

	"efaxx/results"
	"efaxx/slurm"
)

// submitWait is how long after its submission a job that Slurm does not
// know, and whose script never started, is taken as never submitted:
// sbatch gets at most a minute (slurm.ExecCommander), and a submit killed
// meanwhile may have left its sbatch running.
const submitWait = 2 * time.Minute

// Adopt records the job of each submission whose submit stopped between
// sbatch and the store's record of its answer (a SIGKILL, a crash), so
// that the job is followed and its results stored. The job is found by
// its directory, which Submit gives each job before sbatch runs: its
// script's start marker there names it, and slurmctld knows it as the
// job's working directory. A submission that Slurm shows no trace of
// submitWait after it was made never reached Slurm (or its job never ran
// and was forgotten) and is dropped. It returns what it did, as notes.
func (x *SlurmExecutor) Adopt(ctx context.Context) ([]string, error) {
	subs, err := x.DB.Submissions(ctx)
	if err != nil || len(subs) == 0 {
		return nil, err
	}
	var notes []string
	inSlurm, slurmErr := x.Client.JobsByDir(ctx)
	if slurmErr != nil {
		notes = append(notes, slurmErr.Error())
	}
	for i := range subs {
		note, err := x.adoptOne(ctx, &subs[i], inSlurm, slurmErr == nil)
		if err != nil {
			return notes, err
		}
		if note != "" {
			notes = append(notes, note)
		}
	}
	return notes, nil
}

// adoptOne records the job of submission s if it is found, in its start
// marker or in inSlurm, drops s if it is not and slurmctld answered
// (asked) long enough after it, and returns a note saying which.
func (x *SlurmExecutor) adoptOne(ctx context.Context, s *results.Submission, inSlurm map[string]slurm.ID, asked bool) (string, error) {
	job := s.Job
	id, found, err := slurm.JobInDir(job.Dir)
	if err != nil {
		return "", err
	}
	job.Source = "marker"
	if !found {
		id, found = inSlurm[job.Dir]
		job.Source = "squeue"
	}
	if found {
		job.JobID = id.String()
		if err := x.DB.RecordSubmitted(context.WithoutCancel(ctx), s.ID, &job); err != nil {
			return "", err
		}
		return fmt.Sprintf("sbatch job %s of session %s, which its submit did not record (stopped after sbatch), is recorded now",
			job.JobID, job.Session), nil
	}
	if !asked || x.now().Sub(job.Submitted) < submitWait {
		return "", nil // its submit may be running sbatch still
	}
	if err := x.DB.DropSubmission(ctx, s.ID); err != nil {
		return "", err
	}
	return fmt.Sprintf("job %s (%s) of session %s was never submitted: its submit stopped before sbatch took it, and Slurm knows no job there; "+
		"submit the sweep again to run its %d points", job.Dir, job.Shape, job.Session, len(job.Steps)), nil
}
