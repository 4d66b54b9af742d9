package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"efaxx/lineerr"
	"efaxx/results"
	"efaxx/results/record"
	"efaxx/slurm"
)

// SyncReport is what Sync learnt and stored.
type SyncReport struct {
	Jobs     []results.Job         // the jobs it looked at, as stored after it
	Runs     []results.IngestedRun // the runs it stored or updated
	Notes    []string              // sources of job state that failed, and why
	Problems []*lineerr.Error      // lines and files ingest skipped
}

// Sync records the jobs of submissions a stopped submit left (see Adopt),
// then asks Slurm about every job that f selects and that sync has more to
// do for, stores their state, and ingests each step that has started or
// whose job has ended, marking its run ok, partial, failed, timeout or
// cancelled with the scheduler's reason. A job is settled once it has
// ended and every step is stored for good; later syncs leave it alone, so
// syncing again adds nothing. A job that cannot be synced is reported in
// the error, after the others are stored.
func (x *SlurmExecutor) Sync(ctx context.Context, f results.JobFilter) (*SyncReport, error) {
	adopted, err := x.Adopt(ctx)
	if err != nil {
		return &SyncReport{Notes: adopted}, err
	}
	f.Unsettled = true
	jobs, err := x.DB.Jobs(ctx, f)
	if err != nil || len(jobs) == 0 {
		return &SyncReport{Notes: adopted}, err
	}
	tracked := make([]slurm.Tracked, len(jobs))
	for i, j := range jobs {
		id, err := slurm.ParseID(j.JobID)
		if err != nil {
			return nil, fmt.Errorf("job %s: %w", j.JobID, err)
		}
		tracked[i] = slurm.Tracked{ID: id, Dir: j.Dir, TimeLimit: j.TimeLimit}
	}
	states, err := x.Client.Query(ctx, tracked)
	if err != nil {
		return nil, err
	}
	rep := &SyncReport{Notes: append(adopted, states.Notes...)}
	plans := map[string]*planFile{}
	p := &syncProgress{w: x.Progress, last: time.Now()}
	for _, j := range jobs {
		p.total += len(j.Steps)
	}
	var errs []error
	for i := range jobs {
		// One job that cannot be synced (its session was deleted) does not
		// keep the others from being stored.
		err := x.syncJob(ctx, &jobs[i], states.States[tracked[i].ID.String()], plans, rep, p)
		if ctx.Err() != nil {
			// What is stored stays; the next sync goes on from there.
			return rep, context.Cause(ctx)
		}
		if err != nil {
			errs = append(errs, err)
		}
		rep.Jobs = append(rep.Jobs, jobs[i])
	}
	return rep, errors.Join(errs...)
}

// syncProgressEvery is how often a sync says how far it is.
var syncProgressEvery = 2 * time.Second

// syncProgress counts the steps a sync has looked at, and says so on w
// every syncProgressEvery: a sync of jobs of thousands of steps stores
// each, which takes minutes the first time.
type syncProgress struct {
	w        io.Writer
	n, total int
	last     time.Time
}

func (p *syncProgress) step() {
	p.n++
	if p.w != nil && time.Since(p.last) >= syncProgressEvery {
		p.last = time.Now()
		fmt.Fprintf(p.w, "%s sync: %d of %d steps looked at\n", p.last.Format("15:04:05"), p.n, p.total)
	}
}

// syncJob stores what st (nil when Slurm could not be asked) says of job,
// and ingests its steps.
func (x *SlurmExecutor) syncJob(ctx context.Context, job *results.Job, st *slurm.JobState, plans map[string]*planFile,
	rep *SyncReport, p *syncProgress) error {
	before := *job
	if st != nil {
		applyState(job, st)
	}
	if gone, err := sessionGone(job); err != nil {
		return err
	} else if gone {
		return x.settleGone(ctx, job, &before, rep)
	}
	pf := plans[job.SessionDir]
	if pf == nil {
		var err error
		if pf, err = readPlan(job.SessionDir); err != nil {
			return fmt.Errorf("sbatch job %s: %w", job.JobID, err)
		}
		plans[job.SessionDir] = pf
	}
	markers, err := stepMarkers(job)
	if err != nil {
		return fmt.Errorf("sbatch job %s: %w", job.JobID, err)
	}
	// A run stored ok is stored for good (ingest leaves it as it is):
	// writing its manifest and ingesting it again at every refresh made a
	// sync of a job of thousands of steps take ever longer as it ran.
	runs, err := x.DB.RunsOfJob(ctx, job.ID)
	if err != nil {
		return err
	}
	stored := map[string]bool{}
	for _, r := range runs {
		stored[r.UID] = r.Status == record.StatusOK
	}
	done, last := slurm.State(job.State).Final(), lastStarted(markers)
	if done && exitUnseen(job, x.now()) {
		done = false
		rep.Notes = append(rep.Notes, fmt.Sprintf("sbatch job %s has ended, but its script's exit marker is not there yet: "+
			"its steps are stored again until it is, or for %v after the end (a shared filesystem may show a node's files late)",
			job.JobID, exitLag))
	}
	for i, step := range job.Steps {
		if err := ctx.Err(); err != nil {
			return err // the job is not settled: the next sync stores the rest
		}
		p.step()
		if stored[step.UID] {
			continue
		}
		pt, err := pf.point(step.PointIndex)
		if err != nil {
			return err
		}
		m, ready := stepManifest(pf, job, st, pt, step, markers[i], i == last, x.now())
		if !ready {
			done = false
			continue
		}
		run, err := x.storeStep(ctx, step.Dir, m, rep)
		if err != nil {
			return err
		}
		done = done && run.Status != record.StatusRunning
	}
	if done {
		job.Settled = x.now()
	}
	if sameState(before, *job) {
		return nil
	}
	return x.DB.UpdateJob(ctx, job)
}

// sessionGone reports whether job's session directory no longer exists:
// deleted by hand, or lost with its filesystem.
func sessionGone(job *results.Job) (bool, error) {
	_, err := os.Stat(job.SessionDir)
	if errors.Is(err, fs.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("sbatch job %s: %w", job.JobID, err)
	}
	return false, nil
}

// settleGone settles as failed a job whose session directory is gone,
// once Slurm says it has ended (or no longer knows it): its steps' files
// went with the directory, so there is nothing left to store, and
// following it on would keep it unsettled for good. A job still pending
// or running is noted, and followed until it ends; efaxx cancel ends it.
func (x *SlurmExecutor) settleGone(ctx context.Context, job, before *results.Job, rep *SyncReport) error {
	state := slurm.State(job.State)
	if !state.Final() {
		rep.Notes = append(rep.Notes, fmt.Sprintf("sbatch job %s: session directory %s is gone; the job is settled as failed once it ends (efaxx cancel %s ends it now)",
			job.JobID, job.SessionDir, job.JobID))
		if sameState(*before, *job) {
			return nil
		}
		return x.DB.UpdateJob(ctx, job)
	}
	slurmSaid := "Slurm no longer knows it"
	if state != slurm.Lost {
		js := slurm.JobState{State: state, Reason: job.Reason, ExitCode: job.ExitCode}
		slurmSaid = "Slurm: " + js.Describe()
	}
	job.State, job.ExitCode = string(slurm.Failed), ""
	job.Reason = fmt.Sprintf("session directory %s is gone: the results of its steps not stored are lost (%s)", job.SessionDir, slurmSaid)
	job.Settled = x.now()
	// A step stored while it ran ends here too, or reads as running for
	// good; the job is settled after, so a sync stopped between does both.
	if _, err := x.DB.FailRunning(ctx, job.ID, "session directory "+job.SessionDir+
		" went while it ran: its samples up to then are kept, the rest are lost"); err != nil {
		return err
	}
	return x.DB.UpdateJob(ctx, job)
}

// exitLag is how long after a job's end sync waits for the exit marker its
// script writes as it ends, before it settles the job without it. On NFS
// a login node may see a file a compute node wrote only after its cached
// view of the directory expires (up to a minute by default), and a job
// settled before its files show is never looked at again: its runs would
// stay failed or partial for files that did arrive. A script killed
// outright (its node died) never writes the marker, hence the bound.
const exitLag = 2 * time.Minute

// exitUnseen reports whether job, which Slurm says has ended, had nodes
// (so its script ran; Slurm gives a job cancelled while pending a start
// time, but no nodes) but shows no exit marker yet, and ended less than
// exitLag before now. A job whose node died, or whose script SIGKILL
// stopped (exit code N:9), wrote none: there is nothing to wait for.
func exitUnseen(job *results.Job, now time.Time) bool {
	if job.NodeList == "" || job.Ended.IsZero() || now.Sub(job.Ended) >= exitLag {
		return false
	}
	switch slurm.State(job.State) {
	case slurm.NodeFail, "BOOT_FAIL":
		return false
	}
	if strings.HasSuffix(job.ExitCode, ":9") {
		return false
	}
	_, err := os.Stat(filepath.Join(job.Dir, slurm.JobExitMarker))
	return errors.Is(err, fs.ErrNotExist)
}

// applyState copies what Slurm says of a job into its record.
func applyState(job *results.Job, st *slurm.JobState) {
	job.State, job.Reason, job.ExitCode, job.Source = string(st.State), st.Reason, st.ExitCode, st.Source
	if st.NodeList != "" {
		job.NodeList = st.NodeList
	}
	if !st.Start.IsZero() {
		job.Started = st.Start
	}
	if !st.End.IsZero() {
		job.Ended = st.End
	}
}

// sameState reports whether a and b hold the same state fields.
func sameState(a, b results.Job) bool {
	return a.State == b.State && a.Reason == b.Reason && a.ExitCode == b.ExitCode && a.NodeList == b.NodeList &&
		a.Source == b.Source && a.Started.Equal(b.Started) && a.Ended.Equal(b.Ended) && a.Settled.Equal(b.Settled)
}

// stepMarkers reads the markers of each step of job.
func stepMarkers(job *results.Job) ([]slurm.StepMarkers, error) {
	out := make([]slurm.StepMarkers, len(job.Steps))
	for i, s := range job.Steps {
		m, err := slurm.ReadStepMarkers(s.Dir)
		if err != nil {
			return nil, err
		}
		out[i] = m
	}
	return out, nil
}

// lastStarted returns the last step that started, or -1: the one a signal
// to the job found running.
func lastStarted(markers []slurm.StepMarkers) int {
	last := -1
	for i, m := range markers {
		if !m.Start.IsZero() {
			last = i
		}
	}
	return last
}

// storeStep writes the manifest of a step's run and ingests its directory.
func (x *SlurmExecutor) storeStep(ctx context.Context, dir string, m *record.Manifest, rep *SyncReport) (results.IngestedRun, error) {
	if err := WriteManifest(dir, m); err != nil {
		return results.IngestedRun{}, err
	}
	// Store what the step did even when the caller gives up now.
	in, err := x.DB.Ingest(context.WithoutCancel(ctx), dir)
	if err != nil {
		return results.IngestedRun{}, err
	}
	rep.Problems = append(rep.Problems, in.Problems...)
	if len(in.Runs) != 1 {
		return results.IngestedRun{}, fmt.Errorf("ingest %s: stored %d runs, want 1", dir, len(in.Runs))
	}
	rep.Runs = append(rep.Runs, in.Runs[0])
	return in.Runs[0], nil
}

// stepManifest writes the manifest of one step's run from the plan, the
// job's record, what sacct said of the step (st, nil without it), and the
// step's markers. inProgress says the step was the last to start. It
// reports false when there is nothing to store yet: the step has not
// started and the job has not ended.
func stepManifest(pf *planFile, job *results.Job, st *slurm.JobState, pt *plannedStep, step results.JobStep,
	mk slurm.StepMarkers, inProgress bool, now time.Time) (*record.Manifest, bool) {
	state := slurm.State(job.State)
	if mk.Start.IsZero() && !state.Final() {
		return nil, false
	}
	m := &record.Manifest{UID: step.UID, Sweep: pf.Sweep, SweepFile: filepath.Join("..", SpecFile),
		SweepHash: pf.SweepHash, Point: pt.Hash, Index: pt.Index, Benchmark: pt.Benchmark, Params: pt.Params,
		Sizes: pt.Sizes, Ranks: pt.Ranks, Executor: "slurm", Command: withJobID(pt.Argv, job.JobID),
		RunnerVersion: pf.Runner.Version, JobID: job.JobID, Cluster: job.Cluster, StepID: mk.StepID, NodeList: job.NodeList}
	m.StartNs = firstTime(mk.Start, job.Started, job.Ended, now).UnixNano()
	var acct *slurm.StepState
	if st != nil {
		acct = st.Step(step.Name)
	}
	if acct != nil {
		m.StepID = acct.ID.String()
		if acct.NodeList != "" {
			m.NodeList = acct.NodeList
		}
	}
	if e := mk.Exit; e != nil && e.Signal == "" && !stoppedByJob(state, e, acct, inProgress) {
		code := e.Code
		m.ExitCode, m.EndNs = &code, e.End.UnixNano()
		if code != 0 {
			why := stepOutputTail(step.Dir, mk)
			if c := pf.Resources.Container; c != nil {
				if cw := containerReason(step.Dir, mk, c.Image); cw != "" {
					why = cw
				}
			}
			m.Error = record.JoinReasons(fmt.Sprintf("srun exit code %d", code), why)
		}
		return m, true
	}
	if !state.Final() {
		return m, true // running, or stopped and its job still ending
	}
	endedBy(m, job, mk, now)
	return m, true
}

// stoppedByJob reports whether a step that exited non-zero was stopped by
// its job's cancellation or time limit rather than failing on its own:
// sacct says so, or, without sacct, it was the step in progress when the
// job was cancelled or timed out.
func stoppedByJob(state slurm.State, e *slurm.Exit, acct *slurm.StepState, inProgress bool) bool {
	if e.Code == 0 || (state != slurm.Cancelled && state != slurm.Timeout) {
		return false
	}
	if acct != nil {
		return acct.State == slurm.Cancelled || acct.State == slurm.Timeout
	}
	return inProgress
}

// endedBy records in m how the job's end ended a step that did not end on
// its own: a timeout, a cancellation, or a failure, with the scheduler's
// words.
func endedBy(m *record.Manifest, job *results.Job, mk slurm.StepMarkers, now time.Time) {
	var exitEnd time.Time
	if mk.Exit != nil {
		exitEnd = mk.Exit.End
	}
	m.EndNs = firstTime(exitEnd, job.Ended, now).UnixNano()
	when := "while the step ran"
	if mk.Start.IsZero() {
		when, m.NotStarted = "before the step started", true
	}
	js := slurm.JobState{State: slurm.State(job.State), Reason: job.Reason, ExitCode: job.ExitCode}
	reason := fmt.Sprintf("slurm job %s %s %s", job.JobID, js.Describe(), when)
	switch js.State {
	case slurm.Timeout:
		m.TimedOut, m.SchedulerReason = true, reason
	case slurm.Cancelled:
		m.Cancelled, m.SchedulerReason = true, reason
	default:
		m.Error = reason
	}
}

// stepOutputTail returns what the step's tasks and srun wrote, for the
// reason of a failed step: the tasks' crash report, else their last
// lines, and srun's last lines.
func stepOutputTail(dir string, mk slurm.StepMarkers) string {
	var parts []string
	if mk.Output != "" {
		// Every task's lines are in it, labeled: a crash report, which
		// names the cause and the rank, rather than the last lines, where
		// peers say how srun stopped them.
		said, _ := crashLines(string(fileTail(mk.Output, 64<<10)), 2, true)
		parts = append(parts, said)
	}
	parts = append(parts, lastLines(filepath.Join(dir, slurm.LogName), 2))
	return record.JoinReasons(parts...)
}

// withJobID puts the job's id where the plan left ${SLURM_JOB_ID}.
func withJobID(argv []string, id string) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = strings.ReplaceAll(a, "${SLURM_JOB_ID}", id)
	}
	return out
}

// firstTime returns the first of times that is not zero.
func firstTime(times ...time.Time) time.Time {
	for _, t := range times {
		if !t.IsZero() {
			return t
		}
	}
	return time.Time{}
}
