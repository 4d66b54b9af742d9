package harness

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"efaxx/results"
	"efaxx/slurm"
)

// JobView is one submitted job and how each of its steps stands.
type JobView struct {
	Job   results.Job `json:"job"`
	Steps []StepView  `json:"steps"`
}

// StepView is one step of a job.
type StepView struct {
	results.JobStep
	Status string       `json:"status"` // "pending" before its run is stored, then the run's status
	Run    *results.Run `json:"run"`    // the stored run; nil while pending
}

// StepPending is the status of a step whose run is not stored yet, and
// StepLost that of a step of a settled job whose run never was: its
// session directory was gone by the time sync looked.
const (
	StepPending = "pending"
	StepLost    = "lost"
)

// Done reports whether the job has ended and sync has stored all of it.
func (v *JobView) Done() bool { return !v.Job.Settled.IsZero() }

// Counts returns how many steps have each status.
func (v *JobView) Counts() map[string]int {
	n := map[string]int{}
	for _, s := range v.Steps {
		n[s.Status]++
	}
	return n
}

// Jobs returns the jobs f selects, oldest first, each with its steps as
// the store holds them.
func (x *SlurmExecutor) Jobs(ctx context.Context, f results.JobFilter) ([]JobView, error) {
	jobs, err := x.DB.Jobs(ctx, f)
	if err != nil {
		return nil, err
	}
	views := make([]JobView, len(jobs))
	for i, j := range jobs {
		runs, err := x.DB.RunsOfJob(ctx, j.ID)
		if err != nil {
			return nil, err
		}
		byUID := map[string]*results.Run{}
		for k := range runs {
			byUID[runs[k].UID] = &runs[k]
		}
		views[i].Job, views[i].Steps = j, []StepView{}
		for _, s := range j.Steps {
			sv := StepView{JobStep: s, Status: StepPending, Run: byUID[s.UID]}
			if sv.Run != nil {
				sv.Status = sv.Run.Status
			} else if !j.Settled.IsZero() {
				sv.Status = StepLost
			}
			views[i].Steps = append(views[i].Steps, sv)
		}
	}
	return views, nil
}

// Cancel cancels the jobs f selects that have not ended, and returns them.
// Slurm ends them asynchronously; a sync afterwards stores their runs as
// cancelled.
func (x *SlurmExecutor) Cancel(ctx context.Context, f results.JobFilter) ([]results.Job, error) {
	// A job a stopped submit did not record is cancelled too.
	if _, err := x.Adopt(ctx); err != nil {
		return nil, err
	}
	f.Unsettled = true
	jobs, err := x.DB.Jobs(ctx, f)
	if err != nil {
		return nil, err
	}
	var active []results.Job
	var tracked []slurm.Tracked
	for _, j := range jobs {
		if slurm.State(j.State).Final() {
			continue
		}
		id, err := slurm.ParseID(j.JobID)
		if err != nil {
			return nil, fmt.Errorf("job %s: %w", j.JobID, err)
		}
		active, tracked = append(active, j), append(tracked, slurm.Tracked{ID: id, Dir: j.Dir, TimeLimit: j.TimeLimit})
	}
	// The store holds the state of the last sync: a job may have ended
	// since, and scancel says nothing of a job that has, so ask Slurm
	// rather than claim to cancel a job that completed.
	states, err := x.Client.Query(ctx, tracked)
	if err != nil {
		return nil, err
	}
	var cancel []results.Job
	var ids []slurm.ID
	for i, j := range active {
		if st := states.States[tracked[i].ID.String()]; st != nil && st.State.Final() {
			continue
		}
		cancel, ids = append(cancel, j), append(ids, tracked[i].ID)
	}
	if len(cancel) == 0 {
		return nil, fmt.Errorf("%w that are pending or running", ErrNoJobs)
	}
	return cancel, x.Client.Cancel(ctx, ids)
}

// Watch syncs the jobs f selects every interval, and calls show with them
// and what the sync said, until all of them have ended and are stored, or
// ctx ends. A sync that fails for a job is shown too, and then ends the
// watch with its error: it stored the other jobs first, and what it said
// of them (a rank file's bad line) is said by no later sync once they
// settle.
func (x *SlurmExecutor) Watch(ctx context.Context, f results.JobFilter, interval time.Duration,
	show func([]JobView, *SyncReport) error) error {
	for {
		rep, syncErr := x.Sync(ctx, f)
		if rep == nil {
			rep = &SyncReport{}
		}
		views, err := x.Jobs(ctx, f)
		if err != nil {
			if syncErr != nil {
				return syncErr
			}
			return err
		}
		if err := show(views, rep); err != nil {
			return err
		}
		if syncErr != nil {
			return syncErr
		}
		if allDone(views) {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(interval):
		}
	}
}

func allDone(views []JobView) bool {
	for i := range views {
		if !views[i].Done() {
			return false
		}
	}
	return true
}

// sessionID is the form of a session's id: its creation time and 8 hex
// digits.
var sessionID = regexp.MustCompile(`^\d{8}-\d{6}-[0-9a-f]{8}$`)

// JobFilterFor reads how a user names jobs: Slurm job ids, or one sweep
// (by its file, name or hash) or one session (by id). No names select
// every job.
func JobFilterFor(names []string) (results.JobFilter, error) {
	var f results.JobFilter
	if len(names) == 0 {
		return f, nil
	}
	allIDs := true
	for _, n := range names {
		if _, err := slurm.ParseID(n); err != nil {
			allIDs = false
		}
	}
	switch {
	case allIDs:
		f.JobIDs = names
	case len(names) > 1:
		return f, fmt.Errorf("%q: name one sweep or session, or job ids only", names)
	case sessionID.MatchString(names[0]):
		f.Session = names[0]
	case strings.HasSuffix(names[0], ".toml"):
		s, err := Load(names[0])
		if err != nil {
			return f, err
		}
		f.Sweep = s.Name
	default:
		f.Sweep = names[0]
	}
	return f, nil
}
