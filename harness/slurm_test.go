package harness_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"efaxx/harness"
	"efaxx/results"
	"efaxx/results/record"
	"efaxx/slurm"
	"efaxx/slurm/mock"
)

// These tests drive the Slurm executor with faked Slurm commands and
// markers written by hand, to reach the endings a real cluster gives only
// rarely: time limits, dead nodes, jobs Slurm has forgotten. The tests
// under cmd/efaxx run the same code against a real Slurm.

// fakeSlurm answers sbatch with the next of its ids, and the state queries
// with a fixed answer: sacct without accounting, and slurmctld that has
// forgotten every job, unless states says otherwise.
type fakeSlurm struct {
	ids     []string
	sbatch  []error // error of each sbatch call, by order; nil or short for success
	calls   int
	sacct   string // sacct output; "" for no accounting
	squeue  string // squeue output; "" for no job known
	scancel int    // scancel calls
}

func (f *fakeSlurm) runner() *mock.Commander {
	return &mock.Commander{RunFunc: func(_ context.Context, name string, args ...string) ([]byte, error) {
		switch name {
		case "sbatch":
			i := f.calls
			f.calls++
			if i < len(f.sbatch) && f.sbatch[i] != nil {
				return nil, f.sbatch[i]
			}
			return []byte(f.ids[i] + "\n"), nil
		case "sacct":
			if f.sacct == "" {
				return nil, &slurm.CommandError{Name: "sacct", Code: 1, Stderr: "Slurm accounting storage is disabled"}
			}
			return []byte(f.sacct), nil
		case "squeue", "scontrol":
			if f.squeue == "" || name == "scontrol" {
				return nil, &slurm.CommandError{Name: name, Code: 1, Stderr: "slurm_load_jobs error: Invalid job id specified"}
			}
			return []byte(f.squeue), nil
		case "scancel":
			f.scancel++
			return nil, nil
		}
		return nil, fmt.Errorf("unexpected command %s", name)
	}}
}

func newExecutor(t *testing.T, f *fakeSlurm) *harness.SlurmExecutor {
	t.Helper()
	db, err := results.Open(t.Context(), filepath.Join(t.TempDir(), "efaxx.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return &harness.SlurmExecutor{Client: &slurm.Client{Commander: f.runner()}, DB: db, Workdir: t.TempDir(),
		RunnerBinary: harness.RunnerBinary{Path: "/opt/efaxx/efaxx-runner", Version: "efaxx-runner test"}}
}

const threePoints = head + "[params]\nprovider = \"tcp\"\nsizes = [\"4KiB\"]\niterations = [10, 20, 30]\n[slurm]\ntime = \"1\"\n"

func TestSubmitStopsAtRefusedJob(t *testing.T) {
	refused := &slurm.CommandError{Name: "sbatch", Code: 1, Stderr: "sbatch: error: Batch job submission failed: Requested node configuration is not available"}
	x := newExecutor(t, &fakeSlurm{ids: []string{"101"}, sbatch: []error{nil, refused}})
	s := mustParse(t, head+"[params]\nranks = [2, 4]\n")
	sub, err := x.Submit(t.Context(), s, harness.SubmitOptions{})
	if err == nil || !strings.Contains(err.Error(), "Requested node configuration is not available") {
		t.Fatalf("Submit error = %v, want sbatch's message", err)
	}
	jobs, _ := x.DB.Jobs(t.Context(), results.JobFilter{})
	if len(sub.Jobs) != 1 || len(jobs) != 1 || jobs[0].JobID != "101" || jobs[0].Shape != "nodes=1 ranks=2" {
		t.Errorf("recorded %+v, submission %+v; want job 101 alone", jobs, sub.Jobs)
	}
}

// TestSubmitTimedOut: sbatch's message to slurmctld timed out, which a
// busy slurmctld may have handled: the error says the job may exist and
// how to look for it.
func TestSubmitTimedOut(t *testing.T) {
	timedOut := &slurm.CommandError{Name: "sbatch", Code: 1,
		Stderr: "sbatch: error: Batch job submission failed: Socket timed out on send/recv operation"}
	x := newExecutor(t, &fakeSlurm{sbatch: []error{timedOut}})
	_, err := x.Submit(t.Context(), mustParse(t, threePoints), harness.SubmitOptions{})
	if err == nil || !strings.Contains(err.Error(), "Socket timed out") ||
		!strings.Contains(err.Error(), "may have taken the job all the same") || !strings.Contains(err.Error(), "squeue --me --name=efaxx-x") {
		t.Errorf("Submit error = %v, want sbatch's message and how to find the job it may have submitted", err)
	}
	refused := &slurm.CommandError{Name: "sbatch", Code: 1, Stderr: "sbatch: error: invalid partition specified: nope"}
	x = newExecutor(t, &fakeSlurm{sbatch: []error{refused}})
	if _, err := x.Submit(t.Context(), mustParse(t, threePoints), harness.SubmitOptions{}); err == nil || strings.Contains(err.Error(), "may have") {
		t.Errorf("Submit error of a refused job = %v, want sbatch's message alone", err)
	}
}

// TestSubmitSaysEachJob: the caller hears of the plan before the first
// sbatch, and of each job as sbatch accepts it, not all at the end.
func TestSubmitSaysEachJob(t *testing.T) {
	f := &fakeSlurm{ids: []string{"101", "102"}}
	x := newExecutor(t, f)
	var events []string
	_, err := x.Submit(t.Context(), mustParse(t, head+"[params]\nranks = [2, 4]\n"), harness.SubmitOptions{
		Planned: func(sub *harness.Submission) {
			events = append(events, fmt.Sprintf("planned %d jobs after %d sbatch", len(sub.Plan.Jobs), f.calls))
		},
		Submitted: func(j results.Job) {
			events = append(events, fmt.Sprintf("job %s after %d sbatch", j.JobID, f.calls))
		},
	})
	want := "planned 2 jobs after 0 sbatch; job 101 after 1 sbatch; job 102 after 2 sbatch"
	if got := strings.Join(events, "; "); err != nil || got != want {
		t.Errorf("Submit = %v, events %q; want %q", err, got, want)
	}
}

func TestSubmitSkipsPointsInFlight(t *testing.T) {
	x := newExecutor(t, &fakeSlurm{ids: []string{"101", "102"}})
	s := mustParse(t, threePoints)
	if _, err := x.Submit(t.Context(), s, harness.SubmitOptions{}); err != nil {
		t.Fatal(err)
	}
	sub, err := x.Submit(t.Context(), s, harness.SubmitOptions{})
	if err != nil || sub.Plan != nil || len(sub.Skipped) != 3 || sub.Skipped[0].Why != "in a job not yet synced to its end" {
		t.Errorf("second Submit = %+v, %v; want all 3 points skipped as in flight", sub, err)
	}
}

// submitted submits threePoints as job 201 and returns the job's record.
func submitted(t *testing.T, f *fakeSlurm) (*harness.SlurmExecutor, results.Job) {
	t.Helper()
	f.ids = []string{"201"}
	x := newExecutor(t, f)
	if _, err := x.Submit(t.Context(), mustParse(t, threePoints), harness.SubmitOptions{}); err != nil {
		t.Fatal(err)
	}
	jobs, err := x.DB.Jobs(t.Context(), results.JobFilter{})
	if err != nil || len(jobs) != 1 {
		t.Fatalf("jobs = %+v, %v", jobs, err)
	}
	return x, jobs[0]
}

// The job started at t0; its time limit is one minute.
var t0 = time.Unix(1795381380, 0)

func marker(t *testing.T, dir, name, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func unix(t time.Time) string { return fmt.Sprintf("%d.000000000", t.Unix()) }

// ranEnded writes what step dir leaves when its 2 ranks measured 4KiB
// and srun exited 0.
func ranEnded(t *testing.T, dir, stepID string) {
	t.Helper()
	marker(t, dir, slurm.StepStartMarker, "start="+unix(t0))
	for r := range 2 {
		var lines []string
		for _, rec := range []any{
			record.Rank{Type: record.TypeRank, Rank: r, World: 2, Host: "h1", Benchmark: "write", Provider: "tcp;ofi_rxm"},
			record.Sample{Type: record.TypeSample, Rank: r, Peer: 1 - r, Role: "target", Size: 4096, BytesRecv: 4096,
				Iterations: 10, ElapsedNs: 1e6, Lat: record.Lat{Min: 1, P50: 2, P99: 3, Max: 4}},
			record.End{Type: record.TypeEnd, Rank: r, Status: record.StatusOK, ElapsedNs: 2e6},
		} {
			b, _ := json.Marshal(rec)
			lines = append(lines, string(b))
		}
		marker(t, dir, record.RankFile(r), strings.Join(lines, "\n"))
	}
	marker(t, dir, "step-"+stepID+".out", "")
	marker(t, dir, slurm.StepExitMarker, "rc=0 signal=- end="+unix(t0.Add(5*time.Second)))
}

// runsBySession returns "status: reason" of each run of the job, in step
// order.
func runsOf(t *testing.T, x *harness.SlurmExecutor) []string {
	t.Helper()
	views, err := x.Jobs(t.Context(), results.JobFilter{})
	if err != nil || len(views) != 1 {
		t.Fatalf("Jobs = %+v, %v", views, err)
	}
	var out []string
	for _, s := range views[0].Steps {
		if s.Run == nil {
			out = append(out, s.Status)
			continue
		}
		out = append(out, fmt.Sprintf("%s %s %s: %s", s.Run.Status, s.Run.Step, s.Run.NodeList, s.Run.Reason))
	}
	return out
}

// TestSyncTimeoutFromMarkers: no accounting, and slurmctld has forgotten
// the job; its markers say SIGTERM came after the whole time limit. The
// step that ended keeps ok, the one in progress and the one never started
// end timeout, and the job is settled: a second sync does nothing.
func TestSyncTimeoutFromMarkers(t *testing.T) {
	x, job := submitted(t, &fakeSlurm{})
	ranEnded(t, job.Steps[0].Dir, "201.0")
	marker(t, job.Steps[1].Dir, slurm.StepStartMarker, "start="+unix(t0.Add(5*time.Second)))
	marker(t, job.Dir, slurm.JobStartMarker, "job=201 nodes=h1 start="+unix(t0))
	marker(t, job.Dir, slurm.JobExitMarker, "rc=143 signal=TERM end="+unix(t0.Add(time.Minute)))
	rep, err := x.Sync(t.Context(), results.JobFilter{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"ok 201.0 h1: ",
		"timeout  h1: timed out; slurm job 201 TIMEOUT (signal TERM at the time limit) while the step ran; no end record from ranks 0-1",
		"timeout  h1: timed out; slurm job 201 TIMEOUT (signal TERM at the time limit) before the step started",
	}
	if got := runsOf(t, x); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("runs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(rep.Jobs) != 1 || rep.Jobs[0].Source != "marker" || rep.Jobs[0].Settled.IsZero() {
		t.Errorf("job after sync = %+v, want settled from its markers", rep.Jobs)
	}
	again, err := x.Sync(t.Context(), results.JobFilter{})
	if err != nil || len(again.Jobs) != 0 || len(again.Runs) != 0 {
		t.Errorf("second sync = %+v, %v; want nothing done", again, err)
	}
}

// TestSyncCancelledPending: a job cancelled while it pended for
// Resources; its steps never started, so its reason names neither the
// pending reason nor end records its ranks could not write.
func TestSyncCancelledPending(t *testing.T) {
	x, _ := submitted(t, &fakeSlurm{squeue: "201|CANCELLED|Resources||0|1795381400|1:00|efaxx-x\n"})
	if _, err := x.Sync(t.Context(), results.JobFilter{}); err != nil {
		t.Fatal(err)
	}
	for i, got := range runsOf(t, x) {
		if want := "cancelled  : cancelled; slurm job 201 CANCELLED before the step started"; got != want {
			t.Errorf("step %d = %q, want %q", i, got, want)
		}
	}
}

// TestSyncNodeFail: sacct says the job's node failed while its second
// step ran; that step fails with Slurm's words, and sacct's step rows give
// the step ids and nodes.
func TestSyncNodeFail(t *testing.T) {
	f := &fakeSlurm{}
	x, job := submitted(t, f)
	ranEnded(t, job.Steps[0].Dir, "201.0")
	marker(t, job.Steps[1].Dir, slurm.StepStartMarker, "start="+unix(t0.Add(5*time.Second)))
	f.sacct = "201|NODE_FAIL|0:0|None|h[1-2]|1795381380|1795381400|1|efaxx-x\n" +
		"201.0|COMPLETED|0:0||h[1-2]|1795381380|1795381385||" + job.Steps[0].Name + "\n" +
		"201.1|NODE_FAIL|0:0||h[1-2]|1795381385|1795381400||" + job.Steps[1].Name + "\n"
	if _, err := x.Sync(t.Context(), results.JobFilter{}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"ok 201.0 h[1-2]: ",
		"failed 201.1 h[1-2]: slurm job 201 NODE_FAIL while the step ran",
		"failed  h[1-2]: slurm job 201 NODE_FAIL before the step started",
	}
	if got := runsOf(t, x); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("runs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestSyncRunningThenDone: while slurmctld says RUNNING, a started step is
// stored as running and an unstarted one is left pending; the job is not
// settled until it ends.
func TestSyncRunningThenDone(t *testing.T) {
	f := &fakeSlurm{squeue: "201|RUNNING|None|h1|1795381380|NONE|1:00|efaxx-x\n"}
	x, job := submitted(t, f)
	ranEnded(t, job.Steps[0].Dir, "201.0")
	marker(t, job.Steps[1].Dir, slurm.StepStartMarker, "start="+unix(t0.Add(5*time.Second)))
	rep, err := x.Sync(t.Context(), results.JobFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if got := runsOf(t, x); got[0] != "ok 201.0 h1: " || !strings.HasPrefix(got[1], "running") || got[2] != harness.StepPending {
		t.Errorf("runs while RUNNING = %q", got)
	}
	if !rep.Jobs[0].Settled.IsZero() {
		t.Error("a running job was settled")
	}
	// The step stored ok is left alone; the running one is stored again.
	if rep, err = x.Sync(t.Context(), results.JobFilter{}); err != nil || len(rep.Runs) != 1 || rep.Runs[0].Status != record.StatusRunning {
		t.Errorf("second sync while RUNNING stored %+v, %v; want the running step alone", rep.Runs, err)
	}
	ranEnded(t, job.Steps[1].Dir, "201.1")
	ranEnded(t, job.Steps[2].Dir, "201.2")
	f.squeue = "201|COMPLETED|None|h1|1795381380|1795381400|1:00|efaxx-x\n"
	if rep, err = x.Sync(t.Context(), results.JobFilter{}); err != nil || rep.Jobs[0].Settled.IsZero() {
		t.Fatalf("sync after the end = %+v, %v; want the job settled", rep, err)
	}
	for i, got := range runsOf(t, x) {
		if want := fmt.Sprintf("ok 201.%d h1: ", i); got != want {
			t.Errorf("step %d = %q, want %q", i, got, want)
		}
	}
}

// TestSyncWaitsForLateFiles: Slurm says the job completed before the
// login node sees what its script and ranks wrote (a shared filesystem's
// lag). The job is not settled while its exit marker is missing, so the
// files that arrive later are stored; past exitLag, a job that never
// wrote one is settled as it is.
func TestSyncWaitsForLateFiles(t *testing.T) {
	f := &fakeSlurm{squeue: "201|COMPLETED|None|h1|1795381380|1795381400|1:00|efaxx-x\n"}
	x, job := submitted(t, f)
	x.Now = func() time.Time { return t0.Add(25 * time.Second) } // 5s after the end
	rep, err := x.Sync(t.Context(), results.JobFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Jobs[0].Settled.IsZero() || !strings.Contains(strings.Join(rep.Notes, "\n"), "sbatch job 201 has ended, but its script's exit marker is not there yet") {
		t.Fatalf("job without its exit marker, 5s after its end = %+v, notes %q; want it unsettled, and said why", rep.Jobs[0], rep.Notes)
	}
	for i := range job.Steps {
		ranEnded(t, job.Steps[i].Dir, fmt.Sprintf("201.%d", i))
	}
	marker(t, job.Dir, slurm.JobStartMarker, "job=201 nodes=h1 start="+unix(t0))
	marker(t, job.Dir, slurm.JobExitMarker, "rc=0 signal=- end="+unix(t0.Add(20*time.Second)))
	if rep, err = x.Sync(t.Context(), results.JobFilter{}); err != nil || rep.Jobs[0].Settled.IsZero() {
		t.Fatalf("sync once the files show = %+v, %v; want the job settled", rep, err)
	}
	for i, got := range runsOf(t, x) {
		if want := fmt.Sprintf("ok 201.%d h1: ", i); got != want {
			t.Errorf("step %d = %q, want %q", i, got, want)
		}
	}

	// A job cancelled while it pended ran no script: Slurm gives it a
	// start time, but no nodes. One whose node died, or whose script
	// SIGKILL stopped, never writes the marker. One that completed and
	// shows none two minutes after its end is settled as it is.
	f.ids = []string{"201", "202", "203", "204", "205"}
	f.squeue = "202|CANCELLED|Resources||1795381400|1795381400|1:00|efaxx-x\n" +
		"203|NODE_FAIL|None|h1|1795381380|1795381400|1:00|efaxx-x\n" +
		"205|COMPLETED|None|h1|1795381380|1795381400|1:00|efaxx-x\n"
	f.sacct = "204|FAILED|0:9|NonZeroExitCode|h1|1795381380|1795381400|1|efaxx-x\n"
	for _, iters := range []string{"[40]", "[50]", "[60]", "[70]"} {
		if _, err := x.Submit(t.Context(), mustParse(t, strings.Replace(threePoints, "[10, 20, 30]", iters, 1)), harness.SubmitOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range []string{"202", "203", "204"} {
		if rep, err = x.Sync(t.Context(), results.JobFilter{JobIDs: []string{id}}); err != nil || rep.Jobs[0].Settled.IsZero() {
			t.Errorf("sync of job %s 5s after its end = %+v, %v; want it settled at once", id, rep, err)
		}
	}
	if rep, err = x.Sync(t.Context(), results.JobFilter{JobIDs: []string{"205"}}); err != nil || !rep.Jobs[0].Settled.IsZero() {
		t.Errorf("sync of job 205 5s after its end = %+v, %v; want it waited for", rep, err)
	}
	x.Now = func() time.Time { return t0.Add(20*time.Second + 2*time.Minute) }
	if rep, err = x.Sync(t.Context(), results.JobFilter{JobIDs: []string{"205"}}); err != nil || rep.Jobs[0].Settled.IsZero() {
		t.Errorf("sync of a job without its exit marker 2 minutes after its end = %+v, %v; want it settled", rep, err)
	}
}

// writerFunc is an io.Writer that calls itself.
type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

// TestSyncProgressAndInterrupt: a sync says how far it is as it goes, and
// stops when it is interrupted (Ctrl-C) after the step it is storing; the
// job is not settled, and the next sync stores the rest.
func TestSyncProgressAndInterrupt(t *testing.T) {
	defer func(d time.Duration) { *harness.SyncProgressEvery = d }(*harness.SyncProgressEvery)
	*harness.SyncProgressEvery = 0
	f := &fakeSlurm{squeue: "201|COMPLETED|None|h1|1795381380|1795381400|1:00|efaxx-x\n"}
	x, job := submitted(t, f)
	for i := range job.Steps {
		ranEnded(t, job.Steps[i].Dir, fmt.Sprintf("201.%d", i))
	}
	marker(t, job.Dir, slurm.JobExitMarker, "rc=0 signal=- end="+unix(t0.Add(20*time.Second)))
	stop := errors.New("interrupted (SIGINT)")
	ctx, cancel := context.WithCancelCause(t.Context())
	var lines []string
	x.Progress = writerFunc(func(b []byte) (int, error) {
		lines = append(lines, string(b))
		cancel(stop) // Ctrl-C as the first step is looked at
		return len(b), nil
	})
	rep, err := x.Sync(ctx, results.JobFilter{})
	if !errors.Is(err, stop) || len(rep.Runs) != 1 || len(lines) != 1 || !strings.HasSuffix(lines[0], " sync: 1 of 3 steps looked at\n") {
		t.Fatalf("interrupted sync = %+v, %v, progress %q; want it stopped after one step, said so", rep, err, lines)
	}
	if got := runsOf(t, x); got[0] != "ok 201.0 h1: " || got[1] != harness.StepPending || got[2] != harness.StepPending {
		t.Errorf("runs after the interrupted sync = %q, want the first stored", got)
	}
	lines = nil
	x.Progress = writerFunc(func(b []byte) (int, error) { lines = append(lines, string(b)); return len(b), nil })
	if rep, err = x.Sync(t.Context(), results.JobFilter{}); err != nil || rep.Jobs[0].Settled.IsZero() || len(lines) != 3 {
		t.Errorf("next sync = %+v, %v, progress %q; want the job settled, 3 steps said", rep, err, lines)
	}
}

// TestSyncGoesOnPastABrokenJob: a job whose session lost its plan fails
// its sync, and another job is still stored.
func TestSyncGoesOnPastABrokenJob(t *testing.T) {
	x := brokenAndDone(t)
	rep, err := x.Sync(t.Context(), results.JobFilter{})
	if err == nil || !strings.Contains(err.Error(), "sbatch job 301") {
		t.Errorf("Sync error = %v, want one naming job 301", err)
	}
	if len(rep.Runs) != 1 || rep.Runs[0].Status != record.StatusOK {
		t.Errorf("runs stored = %+v, want job 302's one ok run", rep.Runs)
	}
}

// brokenAndDone submits two jobs that have ended: 301, whose session's
// plan is then deleted, and 302, whose one step ran.
func brokenAndDone(t *testing.T) *harness.SlurmExecutor {
	t.Helper()
	f := &fakeSlurm{ids: []string{"301", "302"},
		squeue: "301|COMPLETED|None|h1|1795381380|1795381400|1:00|x\n302|COMPLETED|None|h1|1795381380|1795381400|1:00|x\n"}
	x := newExecutor(t, f)
	var jobs []results.Job
	for _, text := range []string{threePoints, strings.Replace(threePoints, "[10, 20, 30]", "[40]", 1)} {
		sub, err := x.Submit(t.Context(), mustParse(t, text), harness.SubmitOptions{})
		if err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, sub.Jobs...)
	}
	if err := os.Remove(filepath.Join(jobs[0].SessionDir, harness.PlanFile)); err != nil {
		t.Fatal(err)
	}
	ranEnded(t, jobs[1].Steps[0].Dir, "302.0")
	return x
}

// TestSyncSettlesJobWhoseSessionIsGone: a job whose session directory was
// deleted is followed while Slurm runs it, with a note naming the
// directory, and settled as failed once Slurm no longer knows it: every
// later sync leaves it alone, where it stayed unsettled for good.
func TestSyncSettlesJobWhoseSessionIsGone(t *testing.T) {
	f := &fakeSlurm{squeue: "201|RUNNING|None|h1|1795381380|NONE|1:00|efaxx-x\n"}
	x, job := submitted(t, f)
	// Step 0 ended and step 1 runs, each stored by a sync before the
	// directory went.
	ranEnded(t, job.Steps[0].Dir, "201.0")
	marker(t, job.Steps[1].Dir, slurm.StepStartMarker, "start="+unix(t0.Add(5*time.Second)))
	if _, err := x.Sync(t.Context(), results.JobFilter{}); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(job.SessionDir); err != nil {
		t.Fatal(err)
	}
	rep, err := x.Sync(t.Context(), results.JobFilter{})
	if err != nil || len(rep.Notes) != 2 || !strings.Contains(rep.Notes[1], "session directory "+job.SessionDir+" is gone") {
		t.Fatalf("Sync of a running job without its session = %+v, %v; want a note naming the directory", rep, err)
	}
	f.squeue = "" // slurmctld forgot the job; sacct never knew it
	if _, err := x.Sync(t.Context(), results.JobFilter{}); err != nil {
		t.Fatalf("Sync once the job is gone from Slurm: %v", err)
	}
	views, err := x.Jobs(t.Context(), results.JobFilter{})
	if err != nil {
		t.Fatal(err)
	}
	j := views[0].Job
	want := "session directory " + job.SessionDir + " is gone: the results of its steps not stored are lost (Slurm no longer knows it)"
	if !views[0].Done() || j.State != "FAILED" || j.Reason != want {
		t.Errorf("job = %s %q, settled %v; want FAILED %q, settled", j.State, j.Reason, j.Settled, want)
	}
	// The step stored ok stays so; the one stored running, which no
	// ingest can end now, is failed rather than running for good.
	want = "[ok 201.0 h1:  failed  h1: session directory " + job.SessionDir +
		" went while it ran: its samples up to then are kept, the rest are lost lost]"
	if got := fmt.Sprint(runsOf(t, x)); got != want {
		t.Errorf("steps = %s, want %s", got, want)
	}
	rep, err = x.Sync(t.Context(), results.JobFilter{})
	if err != nil || len(rep.Jobs) != 0 {
		t.Errorf("Sync after the job settled = %+v, %v; want nothing to do", rep, err)
	}
}

// TestWatchShowsSyncBeforeError: a watch whose sync fails for one job
// shows what it stored of the others before it ends with the error, where
// it ended at once and the runs stored, and their warnings, went unsaid.
func TestWatchShowsSyncBeforeError(t *testing.T) {
	x := brokenAndDone(t)
	var shown []*harness.SyncReport
	err := x.Watch(t.Context(), results.JobFilter{}, time.Millisecond, func(_ []harness.JobView, rep *harness.SyncReport) error {
		shown = append(shown, rep)
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "sbatch job 301") {
		t.Errorf("Watch error = %v, want one naming job 301", err)
	}
	if len(shown) != 1 || len(shown[0].Runs) != 1 || shown[0].Runs[0].Status != record.StatusOK {
		t.Errorf("Watch showed %+v, want one refresh with job 302's ok run", shown)
	}
}

func TestCancelNeedsActiveJobs(t *testing.T) {
	f := &fakeSlurm{squeue: "201|RUNNING|None|h1|1795381380|NONE|1:00|efaxx-x\n"}
	x, _ := submitted(t, f)
	jobs, err := x.Cancel(t.Context(), results.JobFilter{Sweep: "x"})
	if err != nil || len(jobs) != 1 || jobs[0].JobID != "201" {
		t.Fatalf("Cancel = %+v, %v", jobs, err)
	}
	if _, err := x.Cancel(t.Context(), results.JobFilter{Sweep: "other"}); !errors.Is(err, harness.ErrNoJobs) {
		t.Errorf("Cancel of a sweep without jobs = %v, want ErrNoJobs", err)
	}
}

// TestCancelAsksSlurmFirst: a job stored as pending that has completed
// since the last sync is not cancelled, nor said to be.
func TestCancelAsksSlurmFirst(t *testing.T) {
	f := &fakeSlurm{squeue: "201|COMPLETED|None|h1|1795381380|1795381400|1:00|efaxx-x\n"}
	x, _ := submitted(t, f)
	jobs, err := x.Cancel(t.Context(), results.JobFilter{Sweep: "x"})
	if !errors.Is(err, harness.ErrNoJobs) || len(jobs) != 0 || f.scancel != 0 {
		t.Errorf("Cancel of a completed job = %+v, %v, %d scancel calls; want ErrNoJobs and none", jobs, err, f.scancel)
	}
}

func TestJobFilterFor(t *testing.T) {
	tests := []struct {
		names []string
		want  results.JobFilter
	}{
		{nil, results.JobFilter{}},
		{[]string{"4711", "4712_3"}, results.JobFilter{JobIDs: []string{"4711", "4712_3"}}},
		{[]string{"20261122-210259-abcc6a49"}, results.JobFilter{Session: "20261122-210259-abcc6a49"}},
		{[]string{"demo"}, results.JobFilter{Sweep: "demo"}},
		{[]string{"testdata/expand/demo.toml"}, results.JobFilter{Sweep: "demo"}},
	}
	for _, tt := range tests {
		got, err := harness.JobFilterFor(tt.names)
		if err != nil || fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("JobFilterFor(%q) = %+v, %v, want %+v", tt.names, got, err, tt.want)
		}
	}
	if _, err := harness.JobFilterFor([]string{"demo", "4711"}); err == nil {
		t.Error("JobFilterFor accepted a sweep and a job id together")
	}
}

// TestSubmitInterruptedRecordsJob: the context is cancelled while sbatch
// runs, after slurmctld took the job. sbatch must be let finish, its job
// recorded, and Submit stop there with the context's cause.
func TestSubmitInterruptedRecordsJob(t *testing.T) {
	stop := errors.New("interrupted (SIGINT)")
	ctx, cancel := context.WithCancelCause(t.Context())
	f := &fakeSlurm{}
	x := newExecutor(t, f)
	calls := 0
	x.Client.Commander = &mock.Commander{RunFunc: func(cmdCtx context.Context, name string, args ...string) ([]byte, error) {
		if name != "sbatch" {
			return f.runner().Run(cmdCtx, name, args...)
		}
		calls++
		cancel(stop)
		// Like sbatch killed through its context.
		select {
		case <-cmdCtx.Done():
			return nil, cmdCtx.Err()
		case <-time.After(100 * time.Millisecond):
			return []byte("401\n"), nil
		}
	}}
	sub, err := x.Submit(ctx, mustParse(t, head+"[params]\nranks = [2, 4]\n"), harness.SubmitOptions{})
	if !errors.Is(err, stop) {
		t.Errorf("Submit error = %v, want the context's cause", err)
	}
	jobs, _ := x.DB.Jobs(t.Context(), results.JobFilter{})
	if calls != 1 || len(jobs) != 1 || jobs[0].JobID != "401" || sub == nil || len(sub.Jobs) != 1 {
		t.Errorf("%d sbatch calls, recorded %+v; want one call and job 401 recorded", calls, jobs)
	}
}

// killSlurm is a Slurm whose sbatch stops the Submit that runs it dead, as
// a SIGKILL of efaxx would, while kill is set: nothing of Submit runs
// after it. When take is set, slurmctld took the job first, as job 201,
// and squeue --me knows it by its working directory from then on.
type killSlurm struct {
	kill, take bool
	known      string // squeue --me's answer: "id|dir" of each job slurmctld took
	queue      string // squeue -j's answer
}

func (k *killSlurm) runner() *mock.Commander {
	return &mock.Commander{RunFunc: func(_ context.Context, name string, args ...string) ([]byte, error) {
		switch {
		case name == "sbatch" && k.kill:
			for _, a := range args {
				if dir, ok := strings.CutPrefix(a, "--chdir="); ok && k.take {
					k.known = "201|" + dir + "\n"
					k.queue = "201|RUNNING|None|h1|1795381380|NONE|1:00|efaxx-x\n"
				}
			}
			runtime.Goexit()
		case name == "sbatch":
			return []byte("202\n"), nil
		case name == "squeue" && args[0] == "--me":
			return []byte(k.known), nil
		case name == "squeue" && k.queue != "":
			return []byte(k.queue), nil
		case name == "sacct":
			return nil, &slurm.CommandError{Name: "sacct", Code: 1, Stderr: "Slurm accounting storage is disabled"}
		}
		return nil, &slurm.CommandError{Name: name, Code: 1, Stderr: "slurm_load_jobs error: Invalid job id specified"}
	}}
}

// killedSubmit submits threePoints through a submit that k stops at its
// sbatch, and returns the executor.
func killedSubmit(t *testing.T, k *killSlurm) *harness.SlurmExecutor {
	t.Helper()
	x := newExecutor(t, &fakeSlurm{})
	x.Client.Commander = k.runner()
	k.kill = true
	done := make(chan struct{})
	go func() {
		defer close(done)
		x.Submit(t.Context(), mustParse(t, threePoints), harness.SubmitOptions{})
		t.Error("Submit went on after its sbatch")
	}()
	<-done
	k.kill = false
	return x
}

// TestSyncRecordsJobOfKilledSubmit: efaxx was killed between sbatch's
// answer and the store's record of the job. The next sync finds the job
// in Slurm by its directory and follows it, where it ran untracked.
func TestSyncRecordsJobOfKilledSubmit(t *testing.T) {
	k := &killSlurm{take: true}
	x := killedSubmit(t, k)
	rep, err := x.Sync(t.Context(), results.JobFilter{})
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := x.DB.Jobs(t.Context(), results.JobFilter{})
	if err != nil || len(jobs) != 1 {
		t.Fatalf("jobs after the sync = %+v, %v; want the job sbatch took", jobs, err)
	}
	j := jobs[0]
	if j.JobID != "201" || j.State != "RUNNING" || j.Sweep != "x" || len(j.Steps) != 3 || k.known != "201|"+j.Dir+"\n" {
		t.Errorf("job = %+v, want job 201 in %s, RUNNING, with 3 steps", j, k.known)
	}
	if len(rep.Jobs) != 1 || !strings.Contains(strings.Join(rep.Notes, "\n"), "sbatch job 201 of session "+j.Session) {
		t.Errorf("sync report = %+v, want job 201 and a note that it is recorded now", rep)
	}
}

// TestSyncDropsSubmissionSlurmNeverHad: efaxx was killed before sbatch
// took the job. Its points count as in flight (its sbatch may be running
// still) until a sync, two minutes on, finds no job in Slurm and says so;
// they are then submitted again.
func TestSyncDropsSubmissionSlurmNeverHad(t *testing.T) {
	now := time.Now()
	k := &killSlurm{}
	x := killedSubmit(t, k)
	x.Now = func() time.Time { return now }
	s := mustParse(t, threePoints)
	for _, after := range []time.Duration{0, time.Minute} {
		now = now.Add(after)
		if _, err := x.Sync(t.Context(), results.JobFilter{}); err != nil {
			t.Fatal(err)
		}
		sub, err := x.Submit(t.Context(), s, harness.SubmitOptions{})
		if err != nil || sub.Plan != nil || len(sub.Skipped) != 3 {
			t.Fatalf("Submit %v after the killed one = %+v, %v; want its 3 points skipped as in flight", after, sub, err)
		}
	}
	now = now.Add(2 * time.Minute)
	rep, err := x.Sync(t.Context(), results.JobFilter{})
	if err != nil || !strings.Contains(strings.Join(rep.Notes, "\n"), "was never submitted") {
		t.Fatalf("Sync 3 minutes on = %+v, %v; want a note that the job was never submitted", rep, err)
	}
	sub, err := x.Submit(t.Context(), s, harness.SubmitOptions{})
	if err != nil || len(sub.Jobs) != 1 || sub.Jobs[0].JobID != "202" || len(sub.Jobs[0].Steps) != 3 {
		t.Errorf("Submit once the killed submission is dropped = %+v, %v; want job 202 with the 3 points", sub, err)
	}
}
