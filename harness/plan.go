package harness

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"

	"efaxx/slurm"
)

// Shape is the allocation a point needs. Points of one shape run as steps
// of one Slurm job, never as a job each.
type Shape struct {
	Nodes int // --nodes
	Ranks int // --ntasks, spread evenly over the nodes
}

// String writes s as "nodes=2 ranks=4".
func (s Shape) String() string { return fmt.Sprintf("nodes=%d ranks=%d", s.Nodes, s.Ranks) }

// Plan is how a sweep runs on Slurm: its points grouped by shape into jobs,
// one srun step per point, message sizes iterating inside the runner.
type Plan struct {
	Sweep  *Sweep
	Jobs   []PlannedJob
	Splits []Split // the shapes whose script Fit split across jobs

	// steps is where each point runs, by point index, for StepOf; nil
	// until StepOf needs it, and again when split moves points.
	steps []stepAt
}

// stepAt is the job and step of a point; job is -1 for a point the plan
// does not run.
type stepAt struct{ job, step int }

// Split says that the points of one shape run as several jobs: one script
// of them all would have been Bytes long, more than the cluster takes.
type Split struct {
	Shape  Shape
	Points int
	Jobs   int
	Bytes  int // the size of the script the shape would have had in one job
	Max    int // the cluster's max_script_size
}

// PlannedJob is one job of a plan.
type PlannedJob struct {
	Index  int     // position in the plan, from 0
	Shape  Shape   // the allocation
	Points []Point // one step each, in this order
}

// NewPlan groups points by shape into jobs, ordered by each shape's first
// point, keeping the points' order within each job.
func NewPlan(s *Sweep, points []Point) *Plan {
	pl := &Plan{Sweep: s}
	jobOf := map[Shape]int{} // a sweep may have as many shapes as points
	for _, p := range points {
		shape := Shape{Nodes: p.Nodes, Ranks: p.Ranks}
		i, ok := jobOf[shape]
		if !ok {
			i = len(pl.Jobs)
			jobOf[shape] = i
			pl.Jobs = append(pl.Jobs, PlannedJob{Index: i, Shape: shape})
		}
		pl.Jobs[i].Points = append(pl.Jobs[i].Points, p)
	}
	return pl
}

// RunnerBinary says which efaxx-runner the steps start and what version it is.
type RunnerBinary struct {
	// Path is efaxx-runner on the compute nodes: an absolute path on a
	// filesystem they share, or, with a container, a path or a name on
	// the image's PATH.
	Path string `json:"path"`

	// Version identifies the runner for resubmission: efaxx-runner
	// --version, or the image it is in.
	Version string `json:"version"`

	// Digest is the digest of the container image the runner is in,
	// "sha256:HEX"; "" without a container, or when it is unknown.
	Digest string `json:"image_digest,omitempty"`
}

// JobDir returns the directory of planned job j in session ss: its script,
// Slurm's output, its markers.
func (ss *Session) JobDir(j *PlannedJob) string {
	return filepath.Join(ss.Dir, "jobs", fmt.Sprintf("%d-n%dr%d", j.Index, j.Shape.Nodes, j.Shape.Ranks))
}

// ScriptName is the name of a job's sbatch script in its directory.
const ScriptName = "job.sh"

// StepName returns the name of p's step: sacct lists the step under it.
func StepName(p Point) string { return fmt.Sprintf("p%03d-%s", p.Index, p.Hash) }

// SlurmJob describes planned job j of plan pl in session ss to the slurm
// package, which renders it. It stops when ctx is done, returning its
// error: a job may have a million steps.
func (ss *Session) SlurmJob(ctx context.Context, pl *Plan, j *PlannedJob, r RunnerBinary) (*slurm.Job, error) {
	res := &pl.Sweep.Resources
	job := &slurm.Job{
		Name:   "efaxx-" + pl.Sweep.Name,
		Dir:    ss.JobDir(j),
		Header: ss.header(pl, j),
		Alloc:  jobAlloc(res, j.Shape),
	}
	var container *slurm.Container
	if c := res.Container; c != nil {
		container = ss.container(c, r)
	}
	for _, p := range j.Points {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		job.Steps = append(job.Steps, sweepStep(res, Shape{Nodes: p.Nodes, Ranks: p.Ranks}, container, StepName(p), ss.RunDir(p),
			append(append([]string{r.Path}, p.RunnerArgs()...), "--out", ss.RunDir(p))))
	}
	return job, nil
}

// jobAlloc returns what a job of shape asks of sbatch: the sweep's
// [slurm] options. doctor --on-node asks the same.
func jobAlloc(res *Resources, shape Shape) slurm.Alloc {
	return slurm.Alloc{Nodes: shape.Nodes, NTasks: shape.Ranks, NTasksPerNode: shape.Ranks / shape.Nodes,
		CPUsPerTask: res.CPUsPerTask, GPUsPerNode: res.GPUsPerNode, Partition: res.Partition,
		Account: res.Account, QOS: res.QOS, Time: res.Time, Constraint: res.Constraint,
		Exclusive: res.Exclusive, Extra: res.Extra}
}

// sweepStep returns the srun step that runs command on shape, in
// container (nil for none), as the sweep's steps run.
func sweepStep(res *Resources, shape Shape, container *slurm.Container, name, dir string, command []string) slurm.Step {
	return slurm.Step{
		Name: name, Dir: dir, Nodes: shape.Nodes, NTasks: shape.Ranks, NTasksPerNode: shape.Ranks / shape.Nodes,
		CPUsPerTask: res.CPUsPerTask, MPI: res.MPI, Container: container, Command: command,
	}
}

// header returns the comment lines of job j's script.
func (ss *Session) header(pl *Plan, j *PlannedJob) []string {
	lines := []string{
		fmt.Sprintf("efaxx job %d of %d: sweep %s (sha256 %s), session %s", j.Index+1, len(pl.Jobs),
			pl.Sweep.Name, short(pl.Sweep.Hash), ss.ID),
		fmt.Sprintf("allocation: %s; one srun step per point:", j.Shape),
	}
	for i, p := range j.Points {
		lines = append(lines, fmt.Sprintf("  step %d: point %d, %s (%s)", i, p.Index, p.Label(), p.Hash))
	}
	return lines
}

// short returns the first 12 digits of a hex hash.
func short(hash string) string {
	if len(hash) > 12 {
		return hash[:12]
	}
	return hash
}

// StepOf returns the job and step that run point index in pl. It takes
// constant time, as plan asks it for every point of a sweep that may have
// a million; the first call indexes the plan.
func (pl *Plan) StepOf(index int) (job, step int, ok bool) {
	if pl.steps == nil {
		pl.indexSteps()
	}
	if index < 0 || index >= len(pl.steps) || pl.steps[index].job < 0 {
		return 0, 0, false
	}
	return pl.steps[index].job, pl.steps[index].step, true
}

// indexSteps records where each point of pl runs, by point index.
func (pl *Plan) indexSteps() {
	n := 0
	for _, j := range pl.Jobs {
		for _, p := range j.Points {
			n = max(n, p.Index+1)
		}
	}
	pl.steps = make([]stepAt, n)
	for i := range pl.steps {
		pl.steps[i].job = -1
	}
	for _, j := range pl.Jobs {
		for s, p := range j.Points {
			pl.steps[p.Index] = stepAt{j.Index, s}
		}
	}
}

// Fit renders the scripts of every job of pl, as Render does, and splits
// each job whose script would be larger than max bytes, slurmctld's
// max_script_size, into jobs of its shape with fewer steps, until every
// script fits: a valid sweep is never refused for the size of its script.
// pl.Splits records each shape it split. A job of one step too large is
// an error. It stops when ctx is done, returning its error.
func (ss *Session) Fit(ctx context.Context, pl *Plan, r RunnerBinary, max int) ([][]byte, error) {
	for {
		scripts, err := ss.Render(ctx, pl, r)
		if err != nil {
			return nil, err
		}
		fits := true
		for i := len(scripts) - 1; i >= 0; i-- { // from the last, so that splitting keeps the indexes before
			if len(scripts[i]) <= max {
				continue
			}
			if len(pl.Jobs[i].Points) == 1 {
				return nil, fmt.Errorf("sweep %s job %d: the script of its one step is %d bytes, more than the "+
					"cluster's max_script_size of %d", pl.Sweep.Name, i, len(scripts[i]), max)
			}
			pl.split(i, len(scripts[i])/max+1, len(scripts[i]), max)
			fits = false
		}
		if fits {
			return scripts, nil
		}
	}
}

// split replaces job i with parts jobs of its shape, its points cut in
// order into runs of nearly equal length, numbers the jobs again, and
// records the split: bytes is the size of the script being split.
func (pl *Plan) split(i, parts, bytes, max int) {
	j := pl.Jobs[i]
	parts = min(parts, len(j.Points))
	var jobs []PlannedJob
	for k := range parts {
		lo, hi := k*len(j.Points)/parts, (k+1)*len(j.Points)/parts
		jobs = append(jobs, PlannedJob{Shape: j.Shape, Points: j.Points[lo:hi]})
	}
	pl.Jobs = slices.Concat(pl.Jobs[:i], jobs, pl.Jobs[i+1:])
	for k := range pl.Jobs {
		pl.Jobs[k].Index = k
	}
	pl.steps = nil // the points moved
	k := slices.IndexFunc(pl.Splits, func(s Split) bool { return s.Shape == j.Shape })
	if k < 0 { // the first split of the shape: its script was whole
		pl.Splits = append(pl.Splits, Split{Shape: j.Shape, Bytes: bytes, Max: max})
		k = len(pl.Splits) - 1
	}
	sp := &pl.Splits[k]
	sp.Jobs, sp.Points = 0, 0
	for _, o := range pl.Jobs {
		if o.Shape == j.Shape {
			sp.Jobs++
			sp.Points += len(o.Points)
		}
	}
}

// Render renders the scripts of every job of pl in session ss, in order.
// It stops when ctx is done, returning its error.
func (ss *Session) Render(ctx context.Context, pl *Plan, r RunnerBinary) ([][]byte, error) {
	var scripts [][]byte
	for i := range pl.Jobs {
		job, err := ss.SlurmJob(ctx, pl, &pl.Jobs[i], r)
		if err != nil {
			return nil, err
		}
		script, err := slurm.Render(ctx, job)
		if err != nil {
			return nil, fmt.Errorf("sweep %s job %d: %w", pl.Sweep.Name, i, err)
		}
		scripts = append(scripts, script)
	}
	return scripts, nil
}

// PlanSession is a session that exists only to show a plan: its id is a
// placeholder, since submit picks a new one.
func PlanSession(workdir string, s *Sweep) (*Session, error) {
	abs, err := filepath.Abs(workdir)
	if err != nil {
		return nil, fmt.Errorf("workdir %q: %w", workdir, err)
	}
	const id = "SESSION"
	return &Session{Dir: filepath.Join(abs, s.Name, id), ID: id, Sweep: s}, nil
}
