package main

import (
	"context"
	"fmt"
	"os/exec"
	"strings"

	"efaxx/harness"
	"efaxx/results"
	"efaxx/slurm"
)

// slurmEnv is what every Slurm verb opens: the store and the executor.
type slurmEnv struct {
	db *results.DB
	x  *harness.SlurmExecutor
}

// openSlurm opens the store and an executor that talks to the real Slurm
// commands. Only submit creates the store; the verbs that follow jobs
// need one that holds them. Close the store when done.
func openSlurm(ctx context.Context, dbPath, workdir string, create bool) (*slurmEnv, error) {
	open := openStore
	if create {
		open = createStore
	}
	db, err := open(ctx, dbPath)
	if err != nil {
		return nil, err
	}
	x := &harness.SlurmExecutor{Client: slurm.NewClient(), DB: db, Workdir: workdir}
	return &slurmEnv{db: db, x: x}, nil
}

func (e *slurmEnv) close() { e.db.Close() }

// requireJobs returns ErrNoJobs, naming the selector, when names select no
// stored job: a mistake to report, not an empty answer and success. Jobs
// are stored when submitted, so the store alone can tell, before Slurm is
// asked; but for a job whose submit stopped before it recorded sbatch's
// answer, which Slurm is asked for (Adopt) before the answer is no.
func (e *slurmEnv) requireJobs(ctx context.Context, verb string, names []string, f results.JobFilter) error {
	if len(names) == 0 {
		return nil
	}
	jobs, err := e.x.DB.Jobs(ctx, f)
	if err == nil && len(jobs) == 0 {
		if _, err = e.x.Adopt(ctx); err == nil {
			jobs, err = e.x.DB.Jobs(ctx, f)
		}
	}
	if err != nil {
		return err
	}
	if len(jobs) == 0 {
		return fmt.Errorf("%s %s: %w", verb, strings.Join(quoteAll(names), " "), harness.ErrNoJobs)
	}
	return nil
}

// runnerVersion asks efaxx-runner for its version.
func runnerVersion(ctx context.Context, runner string) (string, error) {
	out, err := exec.CommandContext(ctx, runner, "--version").Output()
	if err != nil {
		return "", &usageError{msg: "efaxx-runner " + runner + " --version: " + err.Error(), hint: "make build"}
	}
	return strings.TrimSpace(string(out)), nil
}

// jobFilter reads the names of jobs on the command line.
func jobFilter(names []string) (results.JobFilter, error) {
	f, err := harness.JobFilterFor(names)
	if err != nil {
		return f, &usageError{msg: err.Error(), hint: "a sweep file or name, a session id, or job ids"}
	}
	return f, nil
}
