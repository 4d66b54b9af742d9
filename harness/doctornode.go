package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"efaxx/slurm"
)

// NodeOptions says what DoctorOnNode runs, and how long it waits.
type NodeOptions struct {
	Sweep   *Sweep // its [slurm] options, MPI plugin and [container]
	Runner  string // efaxx-runner for a sweep without a container: an absolute path the compute nodes see
	Workdir string // the job's directory is made under it, as a session's is, and removed at the end
	Version string // efaxx's own, "VERSION (COMMIT)": the runner on the node should be the same
	Wait    time.Duration
	Poll    time.Duration // how often Slurm is asked how the job stands; 0 for a second
}

// nodeTime is the longest --time of DoctorOnNode's job: its step ends in
// seconds, but a large image may take a minute to unpack, and a short job
// is the one a busy cluster backfills first.
const nodeTime = 5 * time.Minute

// nodeLimit returns the --time of DoctorOnNode's job: nodeTime, or the
// sweep's own time where that is shorter, as a partition's MaxTime may
// allow no more.
func nodeLimit(sweepTime string) time.Duration {
	if d, err := slurm.ParseTime(sweepTime); err == nil && d > 0 && d < nodeTime {
		return d
	}
	return nodeTime
}

// ErrBusy is what DoctorOnNode's error wraps when its job got no node
// within the wait: it is cancelled, and no check could be made.
var ErrBusy = errors.New("no node within the wait")

// DoctorOnNode runs one step on a compute node as the sweep's jobs run
// theirs: a job of one task (the cheapest) that sbatch gets with submit's
// options (the sweep's partition, account and the rest, and a --time of
// at most five minutes), and in it srun, with the sweep's --mpi and
// [container], starting the runner with --version. It checks that the
// job got a node, that srun took pyxis's options there, that the MPI
// plugin started the step, that pyxis and enroot started the image, and
// that the runner ran and is of this efaxx's version; each check that
// failed says what the node said, and the checks after it are not made.
// A job still pending after o.Wait is cancelled, and the error wraps
// ErrBusy.
func DoctorOnNode(ctx context.Context, client *slurm.Client, o NodeOptions) ([]Finding, error) {
	workdir, err := filepath.Abs(o.Workdir)
	if err != nil {
		return nil, fmt.Errorf("workdir %q: %w", o.Workdir, err)
	}
	if err := checkWorkdirFor(workdir, o.Sweep); err != nil {
		return []Finding{{"node", CheckFail, err.Error() + "; submit refuses it, and no step ran"}}, nil
	}
	if err := os.MkdirAll(workdir, 0o755); err != nil {
		return nil, fmt.Errorf("create workdir: %w", err)
	}
	dir, err := os.MkdirTemp(workdir, ".doctor-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	job, err := nodeJob(o, dir)
	if err != nil {
		// An image or a runner that submit would refuse too.
		return []Finding{{"node", CheckFail, err.Error() + "; no step ran"}}, nil
	}
	script, err := slurm.Render(ctx, job)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(job.Dir, ScriptName)
	if err := os.MkdirAll(job.Dir, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(path, script, 0o644); err != nil {
		return nil, err
	}
	id, _, err := client.Submit(ctx, job, path)
	var ce *slurm.CommandError
	if errors.As(err, &ce) && !slurm.MaybeSubmitted(err) {
		// sbatch refused the job: a verdict, in Slurm's words (the
		// script's path is gone by the time anyone reads it).
		return []Finding{{"node", CheckFail, ce.Error()}}, nil
	} else if err != nil {
		return nil, err
	}
	limit, _ := slurm.ParseTime(job.Alloc.Time)
	wait := nodeWait{client: client, t: slurm.Tracked{ID: id, Dir: job.Dir, TimeLimit: limit},
		pending: o.Wait, poll: o.Poll}
	st, err := wait.run(ctx)
	if err != nil {
		return nil, err
	}
	return nodeFindings(st, job, o), nil
}

// nodeJob returns DoctorOnNode's job in dir: one task on one node, its
// step the runner's --version, everything else as submit has it.
func nodeJob(o NodeOptions, dir string) (*slurm.Job, error) {
	res := &o.Sweep.Resources
	r := RunnerBinary{Path: o.Runner}
	var container *slurm.Container
	if c := res.Container; c != nil {
		var err error
		if r, err = ContainerRunner(c); err != nil {
			return nil, err
		}
		container = (&Session{Dir: dir}).container(c, r)
	} else if !filepath.IsAbs(r.Path) {
		return nil, fmt.Errorf("efaxx-runner %q: want an absolute path the compute nodes see", r.Path)
	}
	one := Shape{Nodes: 1, Ranks: 1}
	alloc := jobAlloc(res, one)
	alloc.Time = slurmTime(nodeLimit(res.Time))
	step := sweepStep(res, one, container, "doctor", filepath.Join(dir, "step"), []string{r.Path, "--version"})
	return &slurm.Job{Name: "efaxx-doctor-" + o.Sweep.Name, Dir: filepath.Join(dir, "job"), Alloc: alloc,
		Header: []string{"efaxx doctor --on-node: one step as the steps of sweep " + o.Sweep.Name + " run"},
		Steps:  []slurm.Step{step}}, nil
}

// slurmTime writes d as sbatch --time takes it, "M:S".
func slurmTime(d time.Duration) string {
	d = d.Round(time.Second)
	return fmt.Sprintf("%d:%02d", d/time.Minute, d%time.Minute/time.Second)
}

// nodeWait follows one job until it ends. A job still pending after
// pending is cancelled; so is one whose caller stops.
type nodeWait struct {
	client  *slurm.Client
	t       slurm.Tracked
	pending time.Duration
	poll    time.Duration
}

func (w *nodeWait) run(ctx context.Context) (*slurm.JobState, error) {
	poll := w.poll
	if poll == 0 {
		poll = time.Second
	}
	start := time.Now()
	// A running job ends by its time limit, or Slurm kills it; a minute
	// more bounds a slurmctld that stopped answering.
	end := start.Add(w.pending + w.t.TimeLimit + time.Minute)
	var last *slurm.JobState
	for {
		rep, err := w.client.Query(ctx, []slurm.Tracked{w.t})
		if err != nil {
			return nil, w.cancel(err)
		}
		if st := rep.States[w.t.ID.String()]; st != nil {
			last = st
		}
		now := time.Now()
		switch {
		case last != nil && last.State.Final():
			return last, nil
		case (last == nil || last.State == slurm.Pending) && now.Sub(start) > w.pending:
			return nil, w.cancel(fmt.Errorf("%w: job %s was still pending after %s (%s), so it is cancelled: the partition is busy, "+
				"or Slurm holds the job as the sweep asks it (the reason says which; --wait waits longer)", ErrBusy, w.t.ID, w.pending, pendingWhy(last)))
		case now.After(end):
			return nil, w.cancel(fmt.Errorf("job %s has not ended %s after it was submitted", w.t.ID, now.Sub(start).Round(time.Second)))
		}
		select {
		case <-ctx.Done():
			return nil, w.cancel(context.Cause(ctx))
		case <-time.After(poll):
		}
	}
}

// cancel cancels the job, even when ctx is done, and returns err.
func (w *nodeWait) cancel(err error) error {
	ctx, stop := context.WithTimeout(context.Background(), time.Minute)
	defer stop()
	if cerr := w.client.Cancel(ctx, []slurm.ID{w.t.ID}); cerr != nil {
		return fmt.Errorf("%w; and %v", err, cerr)
	}
	return err
}

// pendingWhy says why a job pends, as Slurm says it.
func pendingWhy(st *slurm.JobState) string {
	if st == nil || st.Reason == "" {
		return "Slurm gave no reason"
	}
	return "reason: " + st.Reason
}

// nodeFindings reads how DoctorOnNode's job and its step went: from
// Slurm's word on the job, the step's markers, srun's log (its own
// messages, pyxis's and the MPI plugin's) and the task's output.
func nodeFindings(st *slurm.JobState, job *slurm.Job, o NodeOptions) []Finding {
	step := &job.Steps[0]
	mk, err := slurm.ReadStepMarkers(step.Dir)
	if err != nil {
		return []Finding{{"node", CheckFail, err.Error()}}
	}
	if mk.Start.IsZero() {
		// The script never reached its step: the job got no node, or
		// its script did not run there.
		out := filepath.Join(job.Dir, strings.ReplaceAll(slurm.OutputName, "%j", st.ID.String()))
		return []Finding{{"node", CheckFail, fmt.Sprintf("job %s ended %s before its step started%s",
			st.ID, st.Describe(), said(string(fileTail(out, 16<<10))))}}
	}
	node := st.NodeList
	if node == "" {
		node = "the node"
	}
	fs := []Finding{{"node", CheckOK, fmt.Sprintf("job %s got %s%s", st.ID, node, partitionOf(o.Sweep))}}
	r := stepRun{node: node, log: string(fileTail(filepath.Join(step.Dir, slurm.LogName), 16<<10)), exit: mk.Exit,
		id: mk.StepID, runner: step.Command[0], mpi: step.MPI, container: o.Sweep.Resources.Container, version: o.Version}
	if mk.Output != "" {
		r.out = taskOutput(mk.Output, 16<<10)
	}
	return append(fs, r.findings()...)
}

// partitionOf names the sweep's partition, if it names one.
func partitionOf(s *Sweep) string {
	if s.Resources.Partition == "" {
		return " (the cluster's default partition)"
	}
	return " in partition " + s.Resources.Partition
}

// stepRun is what DoctorOnNode's step left.
type stepRun struct {
	node      string
	log, out  string      // srun's output and error; the task's output
	exit      *slurm.Exit // nil when the step never ended
	id        string      // the step's id; "" when srun made no step
	runner    string
	mpi       string
	container *Container
	version   string
}

var (
	// srun without pyxis's plugin does not know its options.
	noPyxis = regexp.MustCompile(`unrecognized option '?--container-`)
	// srun's and slurmstepd's errors of the MPI plugin: "srun: error:
	// Couldn't find the specified plugin name for mpi/pmix ...",
	// "slurmstepd: error: mpi/pmix_v4: pmixp_..."; pyxis's, of enroot's
	// PMIx hook, are the image's.
	mpiError = regexp.MustCompile(`(?i)error.*(\bmpi/|\bmpi:|pmix)`)
)

// findings checks, in the order srun meets them, that srun took pyxis's
// options, that the MPI plugin started the step, that the image started
// and that the runner ran; it stops at the first that failed.
func (r *stepRun) findings() []Finding {
	var fs []Finding
	if r.container != nil {
		if lines := grep(r.log, noPyxis.MatchString); lines != "" {
			return append(fs, Finding{"pyxis", CheckFail, r.node + ": " + lines +
				": pyxis is not loaded there (plugstack.conf; docs/slurm.md, Installing enroot and pyxis)"})
		}
		fs = append(fs, Finding{"pyxis", CheckOK, "srun on " + r.node + " takes --container-image"})
	}
	if lines := grep(r.log, mpiLine); lines != "" {
		return append(fs, Finding{"mpi", CheckFail, fmt.Sprintf("%s: srun --mpi=%s: %s", r.node, r.mpi, lines)})
	}
	if r.id == "" {
		return append(fs, Finding{"step", CheckFail, r.node + ": srun started no step" + said(r.log)})
	}
	fs = append(fs, Finding{"mpi", CheckOK, fmt.Sprintf("srun --mpi=%s started step %s on %s", r.mpi, r.id, r.node)})
	if r.container != nil {
		why := containerFailure([]byte(r.log+r.out), r.container.Image)
		if why != "" && !strings.Contains(why, "holds no "+ImageRunner) {
			return append(fs, Finding{"image", CheckFail, r.node + ": " + why})
		}
		fs = append(fs, Finding{"image", CheckOK, "pyxis and enroot started " + r.container.Image + " on " + r.node})
		if why != "" {
			return append(fs, Finding{"runner", CheckFail, r.node + ": " + why})
		}
	}
	return append(fs, r.runnerFinding())
}

// runnerFinding checks the runner's --version on the node as doctor
// checks it here, and its version against this efaxx's, as the image
// check does.
func (r *stepRun) runnerFinding() Finding {
	v := grep(r.out, runnerVersionLine.MatchString)
	switch {
	case r.exit == nil:
		return Finding{"runner", CheckFail, fmt.Sprintf("%s: %s --version did not end%s", r.node, r.runner, said(r.log+r.out))}
	case r.exit.Code != 0:
		return Finding{"runner", CheckFail, fmt.Sprintf("%s: %s --version: srun exit code %d%s", r.node, r.runner, r.exit.Code, said(r.log+r.out))}
	case v == "":
		return Finding{"runner", CheckFail, fmt.Sprintf("%s: %s is not efaxx-runner: its --version printed no \"efaxx-runner VERSION (COMMIT)\"%s",
			r.node, r.runner, said(r.out))}
	case r.version != "" && v != "efaxx-runner "+r.version:
		return Finding{"runner", CheckWarn, fmt.Sprintf("%s: %s at %s, this efaxx is %s: rebuild it to match", r.node, v, r.runner, r.version)}
	}
	return Finding{"runner", CheckOK, fmt.Sprintf("%s: %s at %s", r.node, v, r.runner)}
}

// mpiLine reports whether a line of srun's log is the MPI plugin's error.
func mpiLine(l string) bool { return mpiError.MatchString(l) && !strings.Contains(l, "pyxis:") }

// grep returns the lines of text that match, trimmed and joined.
func grep(text string, match func(string) bool) string {
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); match(l) {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "; ")
}

// said returns ": " and the last lines of what a node printed, or "".
func said(text string) string {
	if t := tailLines(text, 3); t != "" {
		return ": " + t
	}
	return ""
}
