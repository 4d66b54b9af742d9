package slurm_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"efaxx/slurm"
	"efaxx/slurm/mock"
)

// fakeSlurm answers each command from a table: the command's name to its
// output, or to an error.
type fakeSlurm map[string]any

func (f fakeSlurm) runner() *mock.Commander {
	return &mock.Commander{RunFunc: func(_ context.Context, name string, args ...string) ([]byte, error) {
		key := name
		if name == "scontrol" {
			key += " " + args[len(args)-1]
		}
		switch v := f[key].(type) {
		case string:
			return []byte(v), nil
		case error:
			return nil, v
		}
		return nil, errors.New("unexpected command " + key)
	}}
}

var (
	noAccounting = &slurm.CommandError{Name: "sacct", Code: 1, Stderr: "Slurm accounting storage is disabled\n"}
	invalidJob   = &slurm.CommandError{Name: "squeue", Code: 1, Stderr: "slurm_load_jobs error: Invalid job id specified\n"}
	ctldDown     = &slurm.CommandError{Name: "squeue", Code: 1, Stderr: "slurm_load_jobs error: Unable to contact slurm controller (connect failure)\n"}
)

func track(t *testing.T, id string, dir string) slurm.Tracked {
	t.Helper()
	jid, err := slurm.ParseID(id)
	if err != nil {
		t.Fatal(err)
	}
	return slurm.Tracked{ID: jid, Dir: dir, TimeLimit: time.Minute}
}

func writeMarker(t *testing.T, dir, name, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestQueryFallbacks walks the chain with accounting off: squeue knows job
// 11, scontrol knows job 12, and jobs 13 to 16 are judged by their markers.
func TestQueryFallbacks(t *testing.T) {
	dirs := map[string]string{}
	for _, id := range []string{"11", "12", "13", "14", "15", "16"} {
		dirs[id] = t.TempDir()
	}
	writeMarker(t, dirs["13"], slurm.JobStartMarker, "job=13 nodes=h[1-2] start=1000")
	writeMarker(t, dirs["13"], slurm.JobExitMarker, "rc=0 signal=- end=1010")
	writeMarker(t, dirs["14"], slurm.JobStartMarker, "job=14 nodes=h1 start=1000")
	writeMarker(t, dirs["14"], slurm.JobExitMarker, "rc=143 signal=TERM end=1020")
	writeMarker(t, dirs["15"], slurm.JobStartMarker, "job=15 nodes=h1 start=1000")
	writeMarker(t, dirs["15"], slurm.JobExitMarker, "rc=143 signal=TERM end=1060")
	writeMarker(t, dirs["16"], slurm.JobStartMarker, "job=16 nodes=h1 start=1000")
	c := &slurm.Client{Commander: fakeSlurm{
		"sacct":       noAccounting,
		"squeue":      "11|RUNNING|None|h1|1000|NONE|1:00|efaxx-x\n",
		"scontrol 12": "JobId=12 JobName=efaxx-x JobState=FAILED Reason=NonZeroExitCode ExitCode=1:0 StartTime=1000 EndTime=1005 NodeList=h2 TimeLimit=00:01:00\n",
		"scontrol 13": invalidJob, "scontrol 14": invalidJob, "scontrol 15": invalidJob, "scontrol 16": invalidJob,
	}.runner()}
	var jobs []slurm.Tracked
	for _, id := range []string{"11", "12", "13", "14", "15", "16"} {
		jobs = append(jobs, track(t, id, dirs[id]))
	}
	rep, err := c.Query(context.Background(), jobs)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"11": "squeue RUNNING", "12": "scontrol FAILED (exit code 1:0, NonZeroExitCode)",
		"13": "marker COMPLETED", "14": "marker CANCELLED (signal TERM)",
		"15": "marker TIMEOUT (signal TERM at the time limit)",
		"16": "marker LOST (left no exit marker: killed, or its node failed)",
	}
	for id, w := range want {
		j := rep.States[id]
		if j == nil {
			t.Errorf("job %s: no state", id)
		} else if got := j.Source + " " + j.Describe(); got != w {
			t.Errorf("job %s = %q, want %q", id, got, w)
		}
	}
	if n := rep.States["13"]; n == nil || n.NodeList != "h[1-2]" || n.End != time.Unix(1010, 0) {
		t.Errorf("job 13 = %+v, want node list and end from its markers", n)
	}
	if len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "accounting storage is disabled") {
		t.Errorf("notes = %q, want sacct's message", rep.Notes)
	}
}

// TestQueryEndFromSlurmsLine: without accounting, once slurmctld has
// forgotten them, jobs stopped by SIGTERM are told apart by the line
// slurmstepd wrote into their output, though efaxx does not know their
// time limit (the sweep set none: the partition's default applied).
func TestQueryEndFromSlurmsLine(t *testing.T) {
	lines := map[string]string{
		"51": "slurmstepd-h1: error: *** JOB 51 ON h1 CANCELLED AT 2026-11-28T04:58:22 DUE TO TIME LIMIT ***",
		"52": "slurmstepd-h1: error: *** JOB 52 ON h1 CANCELLED AT 2026-11-28T04:58:22 DUE TO PREEMPTION ***",
		"53": "slurmstepd-h1: error: *** JOB 53 ON h1 CANCELLED AT 2026-11-28T04:58:22 ***",
	}
	f := fakeSlurm{"sacct": noAccounting, "squeue": invalidJob}
	var jobs []slurm.Tracked
	for _, id := range []string{"51", "52", "53"} {
		dir := t.TempDir()
		writeMarker(t, dir, slurm.JobStartMarker, "job="+id+" nodes=h1 start=1000")
		writeMarker(t, dir, slurm.JobExitMarker, "rc=143 signal=TERM end=1020")
		writeMarker(t, dir, "slurm-"+id+".out", "bash: a line of the script's own\n"+lines[id])
		f["scontrol "+id] = invalidJob
		tr := track(t, id, dir)
		tr.TimeLimit = 0
		jobs = append(jobs, tr)
	}
	rep, err := (&slurm.Client{Commander: f.runner()}).Query(context.Background(), jobs)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"51": "TIMEOUT (signal TERM at the time limit)", "52": "PREEMPTED (signal TERM)", "53": "CANCELLED (signal TERM)",
	}
	for id, w := range want {
		if j := rep.States[id]; j == nil || j.Describe() != w {
			t.Errorf("job %s = %+v, want %s", id, j, w)
		}
	}
}

// TestQueryPrefersFinal: sacct's final state wins, but when sacct lags
// (still RUNNING), slurmctld's word wins, keeping sacct's steps.
func TestQueryPrefersFinal(t *testing.T) {
	c := &slurm.Client{Commander: fakeSlurm{
		"sacct": "21|COMPLETED|0:0|None|h1|1000|1010|1|efaxx\n21.0|COMPLETED|0:0||h1|1001|1009||p000\n" +
			"22|RUNNING|0:0|None|h1|1000|Unknown|1|efaxx\n22.0|COMPLETED|0:0||h1|1001|1009||p000\n",
		"squeue": "22|COMPLETING|None|h1|1000|1011|1:00|efaxx\n",
	}.runner()}
	rep, err := c.Query(context.Background(), []slurm.Tracked{track(t, "21", t.TempDir()), track(t, "22", t.TempDir())})
	if err != nil {
		t.Fatal(err)
	}
	if j := rep.States["21"]; j.Source != "sacct" || j.State != slurm.Completed || j.Step("p000") == nil {
		t.Errorf("job 21 = %+v", j)
	}
	if j := rep.States["22"]; j.Source != "squeue" || j.State != slurm.Completing || j.Step("p000") == nil {
		t.Errorf("job 22 = %+v, want squeue's state with sacct's steps", j)
	}
	for _, call := range c.Commander.(*mock.Commander).Calls {
		if call[0] == "squeue" && !strings.Contains(strings.Join(call, " "), "-j 22 ") {
			t.Errorf("squeue asked about more than the lagging job: %q", call)
		}
	}
}

// TestQueryRequeued: a job that sacct has ended in a state after which
// Slurm requeues jobs is asked of slurmctld, whose pending job wins, so
// that a sync does not settle a job that runs again; one that slurmctld
// has ended too keeps sacct's word and steps.
func TestQueryRequeued(t *testing.T) {
	c := &slurm.Client{Commander: fakeSlurm{
		"sacct": "41|NODE_FAIL|0:0|None|h1|1000|1010|1|efaxx\n41.0|CANCELLED|0:0||h1|1001|1010||p000\n" +
			"42|PREEMPTED|0:0|None|h1|1000|1010|1|efaxx\n42.0|CANCELLED|0:0||h1|1001|1010||p000\n",
		"squeue": "41|PENDING|BeginTime|h1|1200|NONE|1:00|efaxx\n42|PREEMPTED|None|h1|1000|1010|1:00|efaxx\n",
	}.runner()}
	rep, err := c.Query(context.Background(), []slurm.Tracked{track(t, "41", t.TempDir()), track(t, "42", t.TempDir())})
	if err != nil {
		t.Fatal(err)
	}
	if j := rep.States["41"]; j == nil || j.Source != "squeue" || j.State != slurm.Pending || len(j.Steps) != 0 {
		t.Errorf("job 41 = %+v, want squeue's PENDING without the ended run's steps", j)
	}
	if j := rep.States["42"]; j == nil || j.Source != "sacct" || j.State != "PREEMPTED" || j.Step("p000") == nil {
		t.Errorf("job 42 = %+v, want sacct's PREEMPTED with its steps", j)
	}
}

// TestQueryControllerDown: with slurmctld silent, a job without an exit
// marker is unknown for now, never declared lost.
func TestQueryControllerDown(t *testing.T) {
	done := t.TempDir()
	writeMarker(t, done, slurm.JobExitMarker, "rc=1 signal=- end=1010")
	c := &slurm.Client{Commander: fakeSlurm{"sacct": noAccounting, "squeue": ctldDown}.runner()}
	rep, err := c.Query(context.Background(), []slurm.Tracked{track(t, "31", t.TempDir()), track(t, "32", done)})
	if err != nil {
		t.Fatal(err)
	}
	if j, ok := rep.States["31"]; ok {
		t.Errorf("job 31 = %+v, want unknown while slurmctld is down", j)
	}
	if j := rep.States["32"]; j == nil || j.State != slurm.Failed || j.ExitCode != "1:0" {
		t.Errorf("job 32 = %+v, want FAILED from its exit marker", j)
	}
	if len(rep.Notes) != 2 || !strings.Contains(rep.Notes[1], "Unable to contact slurm controller") {
		t.Errorf("notes = %q", rep.Notes)
	}
}

// TestSubmit: sbatch is given the script's options on its command line
// too, where they win over SBATCH_* variables of the environment, as they
// would not on the script's #SBATCH lines.
func TestSubmit(t *testing.T) {
	c := &slurm.Client{Commander: fakeSlurm{"sbatch": "4711;ci\n"}.runner()}
	job := &slurm.Job{Name: "efaxx-x", Dir: "/w", Alloc: slurm.Alloc{Nodes: 1, Partition: "p 5", Time: "5", Extra: []string{"--comment=a #b"}}}
	id, cluster, err := c.Submit(context.Background(), job, "/w/job.sh")
	if err != nil || id.String() != "4711" || cluster != "ci" {
		t.Fatalf("Submit = %v, %q, %v", id, cluster, err)
	}
	want := []string{"sbatch", "--parsable", "--job-name=efaxx-x", "--chdir=/w", "--output=/w/slurm-%j.out", "--nodes=1",
		"--partition=p 5", "--time=5", "--comment=a #b", "/w/job.sh"}
	if got := c.Commander.(*mock.Commander).Calls[0]; !equal(got, want) {
		t.Errorf("ran %q, want %q", got, want)
	}
	refused := &slurm.CommandError{Name: "sbatch", Code: 1,
		Stderr: "sbatch: error: invalid partition specified: nope\nsbatch: error: Batch job submission failed: Invalid partition name specified\n"}
	c = &slurm.Client{Commander: fakeSlurm{"sbatch": refused}.runner()}
	_, _, err = c.Submit(context.Background(), job, "/w/job.sh")
	var ce *slurm.CommandError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "invalid partition specified: nope") {
		t.Errorf("Submit error = %v, want sbatch's message", err)
	}
}

func TestMPIPluginsAndPartitions(t *testing.T) {
	c := &slurm.Client{Commander: &mock.Commander{RunFunc: func(_ context.Context, name string, args ...string) ([]byte, error) {
		if name == "sinfo" {
			return []byte("debug|up|0/2/0/2|infinite\ngpu|down|1/0/1/2|1-00:00:00\n"), nil
		}
		return []byte("MPI plugin types are...\n\tpmix\n\tnone\n\tpmi2\nspecific pmix plugin versions available: pmix_v4\n"), nil
	}}}
	plugins, err := c.MPIPlugins(context.Background())
	if err != nil || strings.Join(plugins, ",") != "pmix,none,pmi2,pmix_v4" {
		t.Errorf("MPIPlugins = %q, %v", plugins, err)
	}
	parts, err := c.Partitions(context.Background())
	if err != nil || len(parts) != 2 || parts[0] != (slurm.Partition{Name: "debug", Up: true, Idle: 2, Total: 2, TimeLimit: "infinite"}) ||
		parts[1].Up || parts[1].Idle != 0 {
		t.Errorf("Partitions = %+v, %v", parts, err)
	}
}

func TestReadStepMarkers(t *testing.T) {
	dir := t.TempDir()
	writeMarker(t, dir, slurm.StepStartMarker, "start=1795381380.25")
	writeMarker(t, dir, slurm.StepExitMarker, "rc=3 signal=- end=1795381381.000000001")
	writeMarker(t, dir, "step-4711.3.out", "task output")
	m, err := slurm.ReadStepMarkers(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.Start != time.Unix(1795381380, 250_000_000) || m.Exit == nil || m.Exit.Code != 3 || m.Exit.Signal != "" ||
		m.Exit.End != time.Unix(1795381381, 1) || m.StepID != "4711.3" || m.Output != filepath.Join(dir, "step-4711.3.out") {
		t.Errorf("ReadStepMarkers = %+v (exit %+v)", m, m.Exit)
	}
	empty, err := slurm.ReadStepMarkers(t.TempDir())
	if err != nil || !empty.Start.IsZero() || empty.Exit != nil || empty.StepID != "" {
		t.Errorf("ReadStepMarkers of an empty directory = %+v, %v", empty, err)
	}
}

// TestQuerySacctSilent: a sacct that gave no answer in time (a hung
// slurmdbd) is not asked again at the next Query, which would wait the
// same timeout at every refresh of a watch; slurmctld still answers.
func TestQuerySacctSilent(t *testing.T) {
	silent := fmt.Errorf("sacct: no answer within 1m0s: %w", context.DeadlineExceeded)
	r := fakeSlurm{"sacct": silent, "squeue": "11|RUNNING|None|h1|1000|NONE|1:00|efaxx-x\n"}.runner()
	c := &slurm.Client{Commander: r}
	jobs := []slurm.Tracked{track(t, "11", t.TempDir())}
	for i := range 2 {
		rep, err := c.Query(context.Background(), jobs)
		if err != nil {
			t.Fatal(err)
		}
		if j := rep.States["11"]; j == nil || j.State != slurm.Running {
			t.Fatalf("query %d: job 11 = %+v, want running from squeue", i, j)
		}
	}
	asked := 0
	for _, call := range r.Calls {
		if call[0] == "sacct" {
			asked++
		}
	}
	if asked != 1 {
		t.Errorf("sacct asked %d times in two queries, want 1: %q", asked, r.Calls)
	}
}

// TestJobsByDir: squeue's jobs by their working directory, which may hold
// the separator; and the job a directory's start marker names.
func TestJobsByDir(t *testing.T) {
	c := &slurm.Client{Commander: fakeSlurm{"squeue": "11|/w/a b/jobs/0-n1r2\n12_3|/w/x|y\n"}.runner()}
	dirs, err := c.JobsByDir(context.Background())
	if err != nil || fmt.Sprint(dirs) != "map[/w/a b/jobs/0-n1r2:11 /w/x|y:12_3]" {
		t.Errorf("JobsByDir = %v, %v", dirs, err)
	}
	dir := t.TempDir()
	if id, ok, err := slurm.JobInDir(dir); ok || err != nil {
		t.Errorf("JobInDir of a directory without a start marker = %v, %v, %v; want none", id, ok, err)
	}
	writeMarker(t, dir, slurm.JobStartMarker, "job=4711 nodes=h1 start=1795381380.25")
	if id, ok, err := slurm.JobInDir(dir); !ok || err != nil || id.String() != "4711" {
		t.Errorf("JobInDir = %v, %v, %v; want 4711", id, ok, err)
	}
}
