package slurm

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Client submits, cancels and tracks jobs through a Commander.
type Client struct {
	Commander Commander

	// acctSilent is when sacct last gave no answer in time (a hung
	// slurmdbd): Query does not ask it again for acctRetry after, so that
	// every refresh of a watch does not wait the Commander's timeout.
	acctSilent time.Time
}

// acctRetry is how long Query leaves sacct alone after it gave no answer.
const acctRetry = 5 * time.Minute

// NewClient returns a Client that runs the real Slurm commands.
func NewClient() *Client { return &Client{Commander: &ExecCommander{}} }

// Submit submits the sbatch script of j, rendered at path, and returns
// the job's id and cluster ("" unless sbatch names one). A refused job
// gives a *CommandError holding sbatch's message.
//
// The options of the script's #SBATCH lines go on sbatch's command line
// too: sbatch takes an SBATCH_* variable of the environment (a site's
// profile may set SBATCH_PARTITION or SBATCH_TIMELIMIT) over a script's
// #SBATCH line, but the command line over both, so the job runs as the
// script says. (ExecCommander drops the variables of what efaxx sets no
// option for but cannot have: SBATCH_ARRAY_INX, SBATCH_WAIT, ...)
//
// sbatch runs on even after ctx is cancelled, bounded by the Commander's
// own timeout: killed midway, it may leave a job slurmctld accepted but
// nobody knows the id of. The caller records the id, then sees ctx.
func (c *Client) Submit(ctx context.Context, j *Job, path string) (ID, string, error) {
	args := append(append([]string{"--parsable"}, sbatchOptions(j)...), path)
	out, err := c.run(context.WithoutCancel(ctx), "sbatch", args...)
	if err != nil {
		return ID{}, "", fmt.Errorf("sbatch %s: %w", path, err)
	}
	return parseSubmit(string(out))
}

// Cancel cancels the jobs, pending or running. Slurm ends them
// asynchronously: Query tells when they are gone.
func (c *Client) Cancel(ctx context.Context, ids []ID) error {
	if len(ids) == 0 {
		return nil
	}
	if _, err := c.run(ctx, "scancel", idList(ids)); err != nil {
		return fmt.Errorf("scancel jobs %s: %w", idList(ids), err)
	}
	return nil
}

// JobsByDir returns the jobs of this user that slurmctld knows, pending,
// running or ended a moment ago, by their working directory (sbatch
// --chdir): efaxx gives each job a directory of its own before sbatch
// runs, so the directory finds a job whose id was never recorded.
func (c *Client) JobsByDir(ctx context.Context) (map[string]ID, error) {
	out, err := c.run(ctx, "squeue", "--me", "-h", "-t", "all", "-o", "%i|%Z")
	if err != nil {
		return nil, err
	}
	return parseJobDirs(out), nil
}

// Tracked is a job to Query about.
type Tracked struct {
	ID        ID
	Dir       string        // the job's directory, where its script leaves markers
	TimeLimit time.Duration // the time limit it asked for; 0 when it asked for none
}

// Report is what Query learnt.
type Report struct {
	// States holds each job whose state is known, by its id (ID.String).
	// A job missing here could not be asked about now (slurmctld did not
	// answer); ask again later.
	States map[string]*JobState

	// Notes say which sources failed and why, such as "sacct: Slurm
	// accounting storage is disabled".
	Notes []string
}

// Query learns the state of each job. sacct comes first: it knows jobs
// long after they end, and their steps. A job sacct does not know, or
// knows only as pending or running (it lags), or as ended in a state
// after which Slurm requeues a job (see requeued), is asked of slurmctld
// through squeue, then scontrol show job. A job slurmctld has forgotten
// and sacct never knew is judged from the markers its script left.
func (c *Client) Query(ctx context.Context, jobs []Tracked) (*Report, error) {
	rep := &Report{States: map[string]*JobState{}}
	if len(jobs) == 0 {
		return rep, nil
	}
	acct := c.sacct(ctx, jobs, rep)
	var need []Tracked
	for _, t := range jobs {
		if a := acct[t.ID.String()]; a == nil || !a.State.Final() || requeued[a.State] {
			need = append(need, t)
		}
	}
	ctld, ctldErr := c.fromController(ctx, need)
	if ctldErr != nil {
		rep.Notes = append(rep.Notes, ctldErr.Error())
	}
	for _, t := range jobs {
		j, err := decide(t, acct[t.ID.String()], ctld[t.ID.String()], ctldErr == nil)
		if err != nil {
			return nil, err
		}
		if j != nil {
			rep.States[t.ID.String()] = j
		}
	}
	return rep, nil
}

// requeued are the final states after which Slurm requeues a job by
// itself (a node failure, a preemption, a node that did not boot, where
// the job may be requeued, as JobRequeue=1 has it by default). sacct
// shows the job's ended run in that state until slurmdbd hears of the
// next, while slurmctld has the job pending again: what slurmctld says
// of it then wins.
var requeued = map[State]bool{NodeFail: true, "PREEMPTED": true, "BOOT_FAIL": true}

// decide picks what to believe of one job: a final state from sacct, else
// what slurmctld says, else an exit marker, else sacct's non-final state.
// Only when slurmctld answered and does not know the job is it judged from
// its markers alone; nil means unknown for now.
func decide(t Tracked, acct, ctld *JobState, ctldAnswered bool) (*JobState, error) {
	var steps []StepState
	if acct != nil {
		if acct.State.Final() {
			if requeued[acct.State] && ctld != nil && !ctld.State.Final() && ctld.State != Completing {
				return ctld, nil // requeued: sacct's steps are of the run that ended
			}
			return acct, nil
		}
		steps = acct.Steps
	}
	if ctld != nil {
		ctld.Steps = steps
		return ctld, nil
	}
	m, err := markerState(t.ID, t.Dir, t.TimeLimit)
	if err != nil {
		return nil, err
	}
	switch {
	case m.State != Lost:
		m.Steps = steps
		return m, nil
	case acct != nil:
		return acct, nil
	case ctldAnswered:
		return m, nil
	}
	return nil, nil
}

// sacct asks accounting about the jobs; nil when it cannot answer.
func (c *Client) sacct(ctx context.Context, jobs []Tracked, rep *Report) map[string]*JobState {
	ids := make([]ID, len(jobs))
	for i, t := range jobs {
		ids[i] = t.ID
	}
	if time.Since(c.acctSilent) < acctRetry { // the same note each time: a watch prints it once
		rep.Notes = append(rep.Notes, fmt.Sprintf("sacct: not asked until %s: it gave no answer at %s",
			c.acctSilent.Add(acctRetry).Format(time.TimeOnly), c.acctSilent.Format(time.TimeOnly)))
		return nil
	}
	out, err := c.run(ctx, "sacct", "-P", "-n", "--noconvert", "-j", idList(ids), "-o", sacctFields)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			c.acctSilent = time.Now()
		}
		rep.Notes = append(rep.Notes, err.Error())
		return nil
	}
	return parseSacct(out)
}

// fromController asks slurmctld, with one squeue for all the jobs, then
// scontrol show job for each job squeue did not list. The error says that
// slurmctld could not be asked; Slurm not knowing a job is not an error.
func (c *Client) fromController(ctx context.Context, jobs []Tracked) (map[string]*JobState, error) {
	known := map[string]*JobState{}
	if len(jobs) == 0 {
		return known, nil
	}
	ids := make([]ID, len(jobs))
	for i, t := range jobs {
		ids[i] = t.ID
	}
	out, err := c.run(ctx, "squeue", "-h", "-t", "all", "-j", idList(ids), "-o", squeueFormat)
	if err != nil && !invalidJobID(err) {
		return known, err
	}
	known = parseSqueue(out)
	for _, id := range ids {
		if known[id.String()] != nil {
			continue
		}
		out, err := c.run(ctx, "scontrol", "show", "job", "-o", id.String())
		if invalidJobID(err) {
			continue
		} else if err != nil {
			return known, err
		}
		if j, ok := parseScontrol(out); ok {
			known[id.String()] = j
		}
	}
	return known, nil
}

// idList writes ids as Slurm's commands take them: comma-separated.
func idList(ids []ID) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = id.String()
	}
	return strings.Join(s, ",")
}
