package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"efaxx/results"
	"efaxx/slurm"
)

// SlurmExecutor runs sweeps on a Slurm cluster: it submits them and
// returns at once, then tracks, syncs and cancels their jobs. It is the
// only writer of the store, on the login node; the compute nodes only
// write files.
type SlurmExecutor struct {
	Client       *slurm.Client
	DB           *results.DB
	Workdir      string           // where session directories are created; the compute nodes must see it
	RunnerBinary RunnerBinary     // efaxx-runner for sweeps without a container
	Now          func() time.Time // the clock; nil for time.Now
	Progress     io.Writer        // where a long sync says how far it is; nil for nowhere
}

// SubmitOptions says which points to submit.
type SubmitOptions struct {
	// RetryFailed submits only the points whose latest run did not end
	// ok; otherwise every point without an ok run is submitted.
	RetryFailed bool

	// Planned, when set, is called once the scripts are written, before
	// the first sbatch, and Submitted after each job sbatch accepted and
	// the store recorded: sbatch may take seconds a job on a busy
	// cluster, and a sweep of many shapes has many jobs, so the caller
	// can say what happens as it happens.
	Planned   func(*Submission)
	Submitted func(results.Job)
}

// Submission is what Submit did.
type Submission struct {
	Session  *Session      // nil when nothing was submitted
	Plan     *Plan         // the points submitted, as jobs; nil when none
	Jobs     []results.Job // the jobs sbatch accepted, as recorded
	Skipped  []Skip        // the points left out, and why
	Warnings []string
}

// Skip is a point Submit left out.
type Skip struct {
	Point Point
	Why   string
}

// PlanFile is the name of the resolved sweep in a session directory.
const PlanFile = "plan.json"

// Submit writes the sweep's scripts and its resolved points into a new
// session and submits one job per shape with sbatch, recording each job
// as sbatch accepts it. It returns once the jobs are queued. When sbatch
// refuses a job, Submit stops there: the jobs accepted before it stay
// submitted and recorded, and the error carries Slurm's message. When ctx
// is cancelled, Submit waits for the sbatch under way, records its job,
// and stops with ctx's cause.
func (x *SlurmExecutor) Submit(ctx context.Context, s *Sweep, opts SubmitOptions) (*Submission, error) {
	runner, err := x.runnerFor(s)
	if err != nil {
		return nil, err
	}
	all, err := s.PointsContext(ctx)
	if err != nil {
		return nil, err
	}
	points, skipped, err := x.selectPoints(ctx, s.Name, all, runner.Version, opts)
	if err != nil {
		return nil, err
	}
	sub := &Submission{Skipped: skipped}
	if len(points) == 0 {
		return sub, nil
	}
	workdir, err := filepath.Abs(x.Workdir)
	if err != nil {
		return nil, fmt.Errorf("workdir %q: %w", x.Workdir, err)
	}
	if err := checkWorkdirFor(workdir, s); err != nil {
		return nil, err
	}
	if sub.Session, err = NewSession(workdir, s, x.now()); err != nil {
		return nil, err
	}
	if w := CheckShared(workdir); w != "" {
		sub.Warnings = append(sub.Warnings, w)
	}
	sub.Plan = NewPlan(s, points)
	max, err := x.Client.MaxScriptSize(ctx)
	if err != nil {
		max = slurm.DefaultMaxScriptSize
		sub.Warnings = append(sub.Warnings, fmt.Sprintf("%v: scripts are kept within Slurm's default max_script_size, %d bytes", err, max))
	}
	if _, err := sub.Session.Fit(ctx, sub.Plan, runner, max); err != nil {
		return nil, err
	}
	if err := writePlan(ctx, sub.Session, sub.Plan, runner); err != nil {
		return nil, err
	}
	if opts.Planned != nil {
		opts.Planned(sub)
	}
	for i := range sub.Plan.Jobs {
		job, err := x.submitJob(ctx, sub.Session, sub.Plan, &sub.Plan.Jobs[i], runner)
		if err != nil {
			return sub, err
		}
		sub.Jobs = append(sub.Jobs, *job)
		if opts.Submitted != nil {
			opts.Submitted(*job)
		}
		// sbatch is let finish when ctx is cancelled, so that its job is
		// recorded; stop only now.
		if ctx.Err() != nil {
			return sub, context.Cause(ctx)
		}
	}
	return sub, nil
}

// checkWorkdirFor refuses an absolute workdir that submit refuses for s:
// with a container, one that a mount cannot carry, as every container
// mounts the session directory at its own path.
func checkWorkdirFor(workdir string, s *Sweep) error {
	if err := slurm.CheckDir("workdir", workdir); err != nil {
		return err
	}
	if s.Resources.Container != nil {
		return CheckContainerPath("workdir", workdir)
	}
	return nil
}

// runnerFor returns the runner the steps of s start.
func (x *SlurmExecutor) runnerFor(s *Sweep) (RunnerBinary, error) {
	if c := s.Resources.Container; c != nil {
		return ContainerRunner(c)
	}
	if !filepath.IsAbs(x.RunnerBinary.Path) {
		return RunnerBinary{}, fmt.Errorf("efaxx-runner %q: want an absolute path the compute nodes see", x.RunnerBinary.Path)
	}
	return x.RunnerBinary, nil
}

// selectPoints splits points into those to submit and those to skip: a
// point with an ok run of this runner version in this sweep, or a step in
// a job of the sweep not yet settled, is skipped; with RetryFailed, so is
// a point whose latest run was ok or that has none.
func (x *SlurmExecutor) selectPoints(ctx context.Context, sweepName string, points []Point, version string, opts SubmitOptions) ([]Point, []Skip, error) {
	hashes := make([]string, len(points))
	for i, p := range points {
		hashes[i] = p.Hash
	}
	hist, err := x.DB.PointHistories(ctx, sweepName, version, hashes)
	if err != nil {
		return nil, nil, err
	}
	var keep []Point
	var skip []Skip
	for _, p := range points {
		h := hist[p.Hash]
		switch {
		case h.InFlight:
			skip = append(skip, Skip{p, "in a job not yet synced to its end"})
		case opts.RetryFailed && h.Last == "":
			skip = append(skip, Skip{p, "never run: --retry failed submits only what failed"})
		case opts.RetryFailed && h.Last == "ok":
			skip = append(skip, Skip{p, "its latest run is ok"})
		case !opts.RetryFailed && h.OK:
			skip = append(skip, Skip{p, "has an ok run with this runner"})
		default:
			keep = append(keep, p)
		}
	}
	return keep, skip, nil
}

// submitJob writes job j's script and run directories, submits it, and
// records it.
func (x *SlurmExecutor) submitJob(ctx context.Context, ss *Session, pl *Plan, j *PlannedJob, r RunnerBinary) (*results.Job, error) {
	spec, err := ss.SlurmJob(ctx, pl, j, r)
	if err != nil {
		return nil, err
	}
	script, err := slurm.Render(ctx, spec)
	if err != nil {
		return nil, err
	}
	for _, d := range append([]string{spec.Dir}, stepDirs(spec)...) {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("create %s: %w", d, err)
		}
	}
	for _, p := range j.Points {
		if err := WriteExternal(ss.RunDir(p), p); err != nil {
			return nil, err
		}
	}
	path := filepath.Join(spec.Dir, ScriptName)
	if err := writeFileAtomic(path, script); err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		// Client.Submit would run sbatch regardless.
		return nil, context.Cause(ctx)
	}
	job := &results.Job{Scheduler: "slurm", Name: spec.Name,
		Sweep: pl.Sweep.Name, SweepHash: pl.Sweep.Hash, Session: ss.ID, SessionDir: ss.Dir, Dir: spec.Dir,
		Shape: j.Shape.String(), TimeLimit: pl.Sweep.Resources.TimeLimit, State: string(slurm.Pending),
		Source: "sbatch", Submitted: x.now()}
	for i, p := range j.Points {
		job.Steps = append(job.Steps, results.JobStep{Step: i, Name: StepName(p), Point: p.Hash, Label: p.Label(),
			PointIndex: p.Index, UID: runUID(ss.ID, p.Index), Dir: ss.RunDir(p)})
	}
	// Stored before sbatch runs: a submit killed before it records
	// sbatch's answer leaves what sync finds the job by (see adopt).
	sub, err := x.DB.AddSubmission(ctx, job)
	if err != nil {
		return nil, err
	}
	id, cluster, err := x.Client.Submit(ctx, spec, path)
	if err != nil {
		return nil, x.notSubmitted(ctx, sub, pl, j, spec.Name, err)
	}
	job.JobID, job.Cluster = id.String(), cluster
	// The job runs whatever happens next: record it even if the caller
	// gave up waiting.
	if err := x.DB.RecordSubmitted(context.WithoutCancel(ctx), sub, job); err != nil {
		return nil, fmt.Errorf("sbatch job %s was submitted but not recorded (efaxx sync records it): %w", job.JobID, err)
	}
	return job, nil
}

// notSubmitted returns the error of planned job j, whose sbatch failed
// with err, and drops its submission unless slurmctld may have taken the
// job all the same: then a sync records it if so, and until then a
// resubmission leaves its points out, as submitting them again could run
// them twice.
func (x *SlurmExecutor) notSubmitted(ctx context.Context, sub int64, pl *Plan, j *PlannedJob, name string, err error) error {
	err = fmt.Errorf("submit job %d of sweep %s (%s): %w", j.Index, pl.Sweep.Name, j.Shape, err)
	if slurm.MaybeSubmitted(err) {
		return fmt.Errorf("%w; slurmctld may have taken the job all the same: efaxx sync records it if so, "+
			"and until then submitting the sweep again leaves its points out (squeue --me --name=%s shows it)", err, name)
	}
	if dropErr := x.DB.DropSubmission(context.WithoutCancel(ctx), sub); dropErr != nil {
		return errors.Join(err, dropErr)
	}
	return err
}

func stepDirs(j *slurm.Job) []string {
	dirs := make([]string, len(j.Steps))
	for i, s := range j.Steps {
		dirs[i] = s.Dir
	}
	return dirs
}

// runUID returns the uid of the run of point index in a session; local
// and Slurm runs share the form.
func runUID(session string, index int) string { return fmt.Sprintf("%s-%03d", session, index) }

// planFile is the resolved sweep that Submit writes into the session:
// every point as it runs, and the job and step that run it. Sync reads it
// to write each run's manifest.
type planFile struct {
	Sweep     string        `json:"sweep"`
	SweepHash string        `json:"sweep_hash"`
	Session   string        `json:"session"`
	Runner    RunnerBinary  `json:"runner"`
	Resources Resources     `json:"resources"`
	Points    []plannedStep `json:"points"`

	// byIndex is the position in Points of each point, by its index, for
	// point; nil until point needs it.
	byIndex map[int]int
}

// plannedStep is one point of a planFile.
type plannedStep struct {
	Index     int            `json:"index"`
	Hash      string         `json:"hash"`
	Label     string         `json:"label"`
	Benchmark string         `json:"benchmark"`
	Params    map[string]any `json:"params"`
	Sizes     []uint64       `json:"sizes"`
	Ranks     int            `json:"ranks"`
	Nodes     int            `json:"nodes"`
	Job       int            `json:"job"`  // the job's position in the plan
	Step      int            `json:"step"` // the step's position in its job
	Dir       string         `json:"dir"`
	Argv      []string       `json:"argv"` // srun's command line, the job id left as ${SLURM_JOB_ID}
}

// writePlan writes the plan file of pl into session ss.
func writePlan(ctx context.Context, ss *Session, pl *Plan, r RunnerBinary) error {
	pf := planFile{Sweep: pl.Sweep.Name, SweepHash: pl.Sweep.Hash, Session: ss.ID, Runner: r, Resources: pl.Sweep.Resources}
	for i := range pl.Jobs {
		j := &pl.Jobs[i]
		spec, err := ss.SlurmJob(ctx, pl, j, r)
		if err != nil {
			return err
		}
		for k, p := range j.Points {
			pf.Points = append(pf.Points, plannedStep{Index: p.Index, Hash: p.Hash, Label: p.Label(),
				Benchmark: p.Tool(), Params: p.Params(), Sizes: p.Sizes, Ranks: p.Ranks, Nodes: p.Nodes,
				Job: j.Index, Step: k, Dir: ss.RunDir(p), Argv: spec.Steps[k].Argv("${SLURM_JOB_ID}")})
		}
	}
	data, err := json.MarshalIndent(pf, "", "  ")
	if err != nil {
		return fmt.Errorf("encode plan: %w", err)
	}
	return writeFileAtomic(filepath.Join(ss.Dir, PlanFile), append(data, '\n'))
}

// readPlan reads the plan file of the session in dir.
func readPlan(dir string) (*planFile, error) {
	data, err := os.ReadFile(filepath.Join(dir, PlanFile))
	if err != nil {
		return nil, fmt.Errorf("read plan of session %s: %w", dir, err)
	}
	var pf planFile
	if err := json.Unmarshal(data, &pf); err != nil {
		return nil, fmt.Errorf("read plan of session %s: %w", dir, err)
	}
	return &pf, nil
}

// point returns the planned point of index, or an error. It takes
// constant time, as sync asks it for every step of a session that may have
// a million; the first call indexes the plan.
func (pf *planFile) point(index int) (*plannedStep, error) {
	if pf.byIndex == nil {
		pf.byIndex = make(map[int]int, len(pf.Points))
		for i := range pf.Points {
			pf.byIndex[pf.Points[i].Index] = i
		}
	}
	if i, ok := pf.byIndex[index]; ok {
		return &pf.Points[i], nil
	}
	return nil, fmt.Errorf("plan of session %s has no point %d", pf.Session, index)
}

func (x *SlurmExecutor) now() time.Time {
	if x.Now != nil {
		return x.Now()
	}
	return time.Now()
}

// ErrNoJobs is returned when a cancel or status names no job efaxx knows.
var ErrNoJobs = errors.New("no jobs match")
