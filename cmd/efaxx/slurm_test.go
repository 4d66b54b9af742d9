package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"efaxx/harness"
	"efaxx/slurm"
	"efaxx/slurm/slurmtest"
)

// The tests in this file run efaxx against a real Slurm (slurmctld, slurmd
// and munged, and for accounting slurmdbd and MariaDB) that they start on
// this machine with slurm/testbed/testbed, and take down when they end.

// demoSweep is a 2-task sweep of two points: one job, two steps.
const demoSweep = `name = "slurm-demo"
benchmark = ["sendrecv", "write"]
[params]
provider = "tcp"
nics = "lo"
ranks = 2
sizes = "4KiB..1MiB x16"
iterations = 20
warmup = 2
timeout = "30s"
[slurm]
time = "5"
`

// clusterEnv is one test's store, workdir and sweeps.
type clusterEnv struct {
	t       *testing.T
	dir, db string
	workdir string
}

func newClusterEnv(t *testing.T) *clusterEnv {
	dir := t.TempDir()
	return &clusterEnv{t: t, dir: dir, db: filepath.Join(dir, "efaxx.db"), workdir: filepath.Join(dir, "runs")}
}

// run runs efaxx with the env's store and workdir.
func (e *clusterEnv) run(args ...string) (int, string, string) {
	e.t.Helper()
	return efaxx(e.t, append([]string{"--db", e.db, "--workdir", e.workdir}, args...)...)
}

// must runs efaxx and fails the test unless it exits with want.
func (e *clusterEnv) must(want int, args ...string) string {
	e.t.Helper()
	code, stdout, stderr := e.run(args...)
	if code != want {
		e.t.Fatalf("efaxx %s = %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, want, stdout, stderr)
	}
	return stdout
}

// sweep writes a sweep file and returns its path.
func (e *clusterEnv) sweep(name, text string) string {
	return writeFile(e.t, filepath.Join(e.dir, name+".toml"), text)
}

// submit submits a sweep and returns the session id of its jobs. A sweep
// without a container runs the runner this test built; one with a
// container, the image's, and submit refuses --runner for it.
func (e *clusterEnv) submit(sweep string, extra ...string) string {
	e.t.Helper()
	s, err := harness.Load(sweep)
	if err != nil {
		e.t.Fatal(err)
	}
	args := []string{"submit"}
	if s.Resources.Container == nil {
		args = append(args, "--runner", runner(e.t))
	}
	out := e.must(0, append(args, append(extra, sweep)...)...)
	m := regexp.MustCompile(`status --watch (\S+)`).FindStringSubmatch(out)
	if m == nil {
		e.t.Fatalf("submit printed no session:\n%s", out)
	}
	return m[1]
}

// watch runs status --watch for a session and returns its output.
func (e *clusterEnv) watch(session string, want int) string {
	e.t.Helper()
	return e.must(want, "status", "--watch", "--interval", "300ms", session)
}

// watchOK watches session, which must end ok, and returns the session
// that did. A step whose rank died of the startup crash outside efaxx
// (libinfinipath's handler reporting a SIGSEGV at PC 0 before any rank
// wrote a record, under srun --mpi=pmix; TestTestbedRails meets it too)
// is submitted once more, with --retry failed.
func (e *clusterEnv) watchOK(session, sweep string) string {
	e.t.Helper()
	code, stdout, stderr := e.run("status", "--watch", "--interval", "300ms", session)
	if code == 0 {
		return session
	}
	if !strings.Contains(stdout, "terminated with signal 11 at PC=0") { // the crash report the reason quotes
		e.t.Fatalf("efaxx status --watch %s = %d, want 0\nstdout:\n%s\nstderr:\n%s", session, code, stdout, stderr)
	}
	e.t.Logf("session %s: a rank died of the start-up crash; submitting it again\n%s", session, stdout)
	retry := e.submit(sweep, "--retry", "failed")
	e.watch(retry, 0)
	return retry
}

// tables counts the rows of every table of the store.
func (e *clusterEnv) tables() map[string]int {
	n := map[string]int{}
	for _, table := range []string{"sweeps", "points", "runs", "ranks", "samples", "jobs"} {
		n[table] = count(e.t, e.db, "SELECT COUNT(*) FROM "+table)
	}
	return n
}

func hostname(t *testing.T) string {
	out, err := exec.Command("hostname", "-s").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// TestSlurmAccounting runs efaxx against a cluster with accounting, so
// sacct answers; the subtests share the cluster and run in order.
func TestSlurmAccounting(t *testing.T) {
	c := slurmtest.Start(t, slurmtest.Options{Accounting: true})
	e := newClusterEnv(t)
	t.Run("doctor", func(t *testing.T) { e.t = t; testDoctor(e) })
	t.Run("submit", func(t *testing.T) { e.t = t; testSubmitCompletes(e, "sacct") })
	t.Run("resubmit", func(t *testing.T) { e.t = t; testResubmitSkipsOK(e) })
	t.Run("fail", func(t *testing.T) { e.t = t; testFailMidway(e) })
	t.Run("cancel", func(t *testing.T) { e.t = t; testCancel(e) })
	t.Run("partition", func(t *testing.T) { e.t = t; testBadPartition(e) })
	t.Run("hostile", func(t *testing.T) { e.t = t; testHostileStrings(e, c) })
}

// testDoctor: on this cluster, without pyxis, doctor passes a sweep
// without a container and fails one with a container and a partition that
// does not exist.
func testDoctor(e *clusterEnv) {
	out := e.must(0, "doctor", "--runner", runner(e.t))
	for _, want := range []string{"ok    slurm      partitions: debug", "pmix", "warn  pyxis", "ok    runner     efaxx-runner"} {
		if !strings.Contains(out, want) {
			e.t.Errorf("doctor output lacks %q:\n%s", want, out)
		}
	}
	sweep := e.sweep("boxed", "name = \"boxed\"\nbenchmark = \"write\"\n[slurm]\npartition = \"gpu\"\n[container]\nimage = \"/nowhere/efaxx.sqsh\"\n")
	out = e.must(1, "doctor", sweep)
	for _, want := range []string{`FAIL  slurm      no partition "gpu"`, "FAIL  pyxis", "FAIL  image"} {
		if !strings.Contains(out, want) {
			e.t.Errorf("doctor output lacks %q:\n%s", want, out)
		}
	}
}

// testSubmitCompletes: a 2-task sweep goes through sbatch and srun, the job
// completes, sync stores the samples with the job id, step ids and node
// list, status shows COMPLETED, and syncing again adds nothing.
func testSubmitCompletes(e *clusterEnv, source string) {
	t := e.t
	session := e.submit(e.sweep("demo", demoSweep))
	if n := count(t, e.db, `SELECT COUNT(*) FROM jobs WHERE session = ? AND state = 'PENDING'`, session); n != 1 {
		t.Fatalf("jobs recorded at submit = %d, want 1 PENDING", n)
	}
	var jobID string
	sqlRow(t, e.db, `SELECT job_id FROM jobs WHERE session = '`+session+`'`, &jobID)
	waitEnded(t, jobID, source)
	if out := e.must(0, "sync"); !strings.Contains(out, "job "+jobID+": COMPLETED ("+source+")") ||
		strings.Count(out, ": ok, 6 new samples") != 2 {
		t.Errorf("sync printed:\n%s\nwant job %s COMPLETED from %s and two ok runs of 6 samples", out, jobID, source)
	}
	if out := e.must(0, "status", "--no-sync", session); !regexp.MustCompile(`COMPLETED\s+` + source).MatchString(out) {
		t.Errorf("status does not show COMPLETED from %s:\n%s", source, out)
	}
	node := hostname(t)
	for step, bench := range []string{"sendrecv", "write"} {
		var status, stepID, nodes, slurmJob string
		var samples int
		sqlRow(t, e.db, `SELECT r.status, r.step_id, r.node_list, j.job_id, r.samples FROM runs r JOIN jobs j ON j.id = r.job_id
			WHERE j.session = '`+session+`' AND r.benchmark = '`+bench+`'`, &status, &stepID, &nodes, &slurmJob, &samples)
		want := jobID + "." + strconv.Itoa(step)
		if status != "ok" || stepID != want || nodes != node || slurmJob != jobID || samples != 6 {
			t.Errorf("%s run: status %s, step %s, nodes %s, job %s, %d samples; want ok, %s, %s, %s, 6",
				bench, status, stepID, nodes, slurmJob, samples, want, node, jobID)
		}
	}
	before := e.tables()
	for range 2 {
		if out := e.must(0, "sync"); !strings.Contains(out, "nothing to sync") {
			t.Errorf("sync of a settled job did something:\n%s", out)
		}
	}
	if after := e.tables(); !equalCounts(before, after) {
		t.Errorf("rows after syncing twice = %v, want %v", after, before)
	}
}

// waitEnded waits, asking efaxx nothing, until the job has ended and the
// source that efaxx should then read knows it: sacct (slurmdbd records a
// job's end a moment after slurmctld), or the job's exit marker with
// slurmctld having forgotten the job.
func waitEnded(t *testing.T, jobID, source string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !ended(jobID, source) {
		if time.Now().After(deadline) {
			out, _ := exec.Command("squeue", "-t", "all").CombinedOutput()
			t.Fatalf("job %s not ended as %s says within 2 minutes:\n%s", jobID, source, out)
		}
		time.Sleep(300 * time.Millisecond)
	}
}

func ended(jobID, source string) bool {
	switch source {
	case "sacct":
		out, err := exec.Command("sacct", "-n", "-X", "-P", "-o", "State", "-j", jobID).Output()
		return err == nil && strings.TrimSpace(string(out)) == "COMPLETED"
	case "marker":
		return exec.Command("scontrol", "show", "job", jobID).Run() != nil
	}
	return false
}

func equalCounts(a, b map[string]int) bool {
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return len(a) == len(b)
}

// testResubmitSkipsOK: submitting the same sweep again submits nothing.
func testResubmitSkipsOK(e *clusterEnv) {
	jobs := count(e.t, e.db, `SELECT COUNT(*) FROM jobs`)
	out := e.must(0, "submit", "--runner", runner(e.t), e.sweep("demo", demoSweep))
	if !strings.Contains(out, "nothing to submit") || strings.Count(out, "has an ok run") != 2 {
		e.t.Errorf("resubmit printed:\n%s\nwant both points skipped", out)
	}
	if n := count(e.t, e.db, `SELECT COUNT(*) FROM jobs`); n != jobs {
		e.t.Errorf("jobs after resubmit = %d, want %d", n, jobs)
	}
}

// testFailMidway: a step whose rank fails at its second size ends failed
// with its reason, keeps the samples of the first size, and the job ends
// FAILED; --retry failed then resubmits that point alone.
func testFailMidway(e *clusterEnv) {
	t := e.t
	sweep := e.sweep("fail", `name = "slurm-fail"
benchmark = ["sendrecv", "write"]
[params]
provider = "tcp"
nics = "lo"
sizes = ["4KiB", "64KiB", "1MiB"]
iterations = 10
warmup = 2
timeout = "20s"
`)
	t.Setenv("EFAXX_TEST_CORRUPT_SIZE", "65536") // sbatch passes the environment on to the ranks
	session := e.submit(sweep)
	out := e.watch(session, 3)
	if !regexp.MustCompile(`FAILED\s+(sacct|squeue|scontrol).*(NonZeroExitCode|exit code 1:0)`).MatchString(out) {
		t.Errorf("status does not show the job FAILED with Slurm's reason:\n%s", out)
	}
	var status, reason string
	sqlRow(t, e.db, `SELECT r.status, r.reason FROM runs r JOIN jobs j ON j.id = r.job_id
		WHERE j.session = '`+session+`' AND r.benchmark = 'write'`, &status, &reason)
	if status != "failed" || !strings.Contains(reason, "payload mismatch") || !strings.Contains(reason, "size 65536") {
		t.Errorf("write run = %s (%s), want failed with a payload mismatch at size 65536", status, reason)
	}
	if n := count(t, e.db, `SELECT COUNT(*) FROM samples s JOIN runs r ON r.id = s.run_id JOIN jobs j ON j.id = r.job_id
		WHERE j.session = ? AND r.benchmark = 'write' AND s.size = 4096`, session); n != 2 {
		t.Errorf("samples kept from before the failure = %d, want 2 (both ranks at 4KiB)", n)
	}

	// --retry failed leaves the points whose latest run is ok, and submits
	// the failed ones again.
	if out := e.must(0, "submit", "--runner", runner(e.t), "--retry", "failed", e.sweep("demo", demoSweep)); !strings.Contains(out, "nothing to submit") ||
		strings.Count(out, "its latest run is ok") != 2 {
		t.Errorf("--retry failed of an ok sweep printed:\n%s", out)
	}
	t.Setenv("EFAXX_TEST_CORRUPT_SIZE", "")
	retry := e.submit(sweep, "--retry", "failed")
	e.watch(retry, 0)
	var got string
	sqlRow(t, e.db, `SELECT group_concat(r.benchmark || ':' || r.status) FROM runs r JOIN jobs j ON j.id = r.job_id
		WHERE j.session = '`+retry+`'`, &got)
	if got != "sendrecv:ok,write:ok" {
		t.Errorf("--retry failed ran %s, want both failed points, ok now", got)
	}
}

// slowSweep is a sweep named name whose first step runs for minutes (16
// MiB 20,000 times over loopback tcp), for tests that act on its job
// while it runs.
func slowSweep(name string) string {
	return `name = "` + name + `"
benchmark = ["sendrecv", "write"]
[params]
provider = "tcp"
nics = "lo"
sizes = ["4KiB", "16MiB"]
iterations = 20000
warmup = 0
timeout = "60s"
[slurm]
time = "10"
`
}

// testCancel: efaxx cancel ends a running job; the step in progress ends
// cancelled with Slurm's reason and keeps what it measured, and the step
// that never started is cancelled too.
func testCancel(e *clusterEnv) {
	t := e.t
	session := e.submit(e.sweep("cancel", slowSweep("slurm-cancel")))
	// Wait until the first step has stored its 4KiB samples: it is then
	// well into 16MiB, which would take many minutes.
	deadline := time.Now().Add(90 * time.Second)
	for count(t, e.db, `SELECT COUNT(*) FROM samples s JOIN runs r ON r.id = s.run_id JOIN jobs j ON j.id = r.job_id
		WHERE j.session = ?`, session) < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("no samples within 90s:\n%s", e.must(0, "status", session))
		}
		time.Sleep(500 * time.Millisecond)
		e.must(0, "sync", session)
	}
	if out := e.must(0, "cancel", session); !strings.Contains(out, "cancelled job") {
		t.Errorf("cancel printed:\n%s", out)
	}
	out := e.watch(session, 3)
	if !regexp.MustCompile(`CANCELLED\s+sacct`).MatchString(out) {
		t.Errorf("status does not show the job CANCELLED:\n%s", out)
	}
	var first, second string
	sqlRow(t, e.db, `SELECT r.status || ': ' || r.reason FROM runs r JOIN jobs j ON j.id = r.job_id
		WHERE j.session = '`+session+`' AND r.benchmark = 'sendrecv'`, &first)
	sqlRow(t, e.db, `SELECT r.status || ': ' || r.reason FROM runs r JOIN jobs j ON j.id = r.job_id
		WHERE j.session = '`+session+`' AND r.benchmark = 'write'`, &second)
	if !regexp.MustCompile(`^cancelled: cancelled; slurm job \d+ CANCELLED by 0 while the step ran`).MatchString(first) {
		t.Errorf("step in progress = %q, want cancelled by Slurm while it ran", first)
	}
	if !regexp.MustCompile(`^cancelled: cancelled; slurm job \d+ CANCELLED by 0 before the step started`).MatchString(second) {
		t.Errorf("step not started = %q, want cancelled before it started", second)
	}
	if n := count(t, e.db, `SELECT COUNT(*) FROM samples s JOIN runs r ON r.id = s.run_id JOIN jobs j ON j.id = r.job_id
		WHERE j.session = ? AND s.size = 4096`, session); n != 2 {
		t.Errorf("4KiB samples kept = %d, want 2", n)
	}
}

// testBadPartition: sbatch refuses a job for a partition that does not
// exist; efaxx says what Slurm said and records no job.
func testBadPartition(e *clusterEnv) {
	sweep := e.sweep("nopart", "name = \"slurm-nopart\"\nbenchmark = \"write\"\n[slurm]\npartition = \"nope\"\n")
	code, stdout, stderr := e.run("submit", "--runner", runner(e.t), sweep)
	if code != 3 || !strings.Contains(stderr, "invalid partition specified: nope") {
		e.t.Errorf("submit = %d, want 3 with sbatch's message\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if n := count(e.t, e.db, `SELECT COUNT(*) FROM jobs WHERE sweep = 'slurm-nopart'`); n != 0 {
		e.t.Errorf("jobs recorded for a refused submission = %d, want 0", n)
	}
}

// testHostileStrings: shell syntax in a sweep's strings is refused when it
// cannot be carried (a line break), and otherwise reaches Slurm verbatim
// and runs nothing: the job completes, its comment reads back exactly, and
// the canary file that every injection would create does not exist.
func testHostileStrings(e *clusterEnv, c *slurmtest.Cluster) {
	t := e.t
	canary := filepath.Join(e.dir, "CANARY")
	injections := []string{"; touch " + canary, "$(touch " + canary + ")", "`touch " + canary + "`",
		"' ; touch " + canary + " ; '", `" ; touch ` + canary + ` ; "`, "#"}
	hostile := strings.Join(injections, " ")

	for _, key := range []string{"partition", "account", "constraint"} {
		bad := e.sweep("newline", "name = \"bad\"\nbenchmark = \"write\"\n[slurm]\n"+key+" = \"x\\ntouch "+canary+"\"\n")
		code, _, stderr := e.run("validate", bad)
		if code != 1 || !strings.Contains(stderr, "slurm."+key+": ") || !strings.Contains(stderr, "holds control character U+000A") {
			t.Errorf("validate with a line break in %s = %d:\n%s", key, code, stderr)
		}
	}

	// The comment adds a backslash, which sbatch's parser would eat if it
	// were not escaped; a path may not hold one (see slurm.CheckDir).
	text := demoSweep + "extra = [" + strconv.Quote("--comment="+hostile+` \`) + "]\n"
	text = strings.Replace(text, `name = "slurm-demo"`, `name = "slurm-hostile"`, 1)
	text = strings.Replace(text, `benchmark = ["sendrecv", "write"]`, `benchmark = "write"`, 1)
	text = strings.Replace(text, `iterations = 20`, `iterations = 21`, 1) // a point of its own
	e.workdir = filepath.Join(e.dir, "work "+hostile)                     // the session's paths hold it too
	defer func() { e.workdir = filepath.Join(e.dir, "runs") }()
	session := e.submit(e.sweep("hostile", text))
	e.watch(session, 0)
	var jobID string
	sqlRow(t, e.db, `SELECT job_id FROM jobs WHERE session = '`+session+`'`, &jobID)
	info := c.Slurm(t, "scontrol", "show", "job", jobID)
	if comment := "Comment=" + hostile + ` \`; !strings.Contains(info, comment+"\n") && !strings.Contains(info, comment+" ") {
		t.Errorf("Slurm's comment is not the sweep's, verbatim:\nwant %s\n%s", comment, info)
	}
	if _, err := os.Stat(canary); err == nil {
		t.Fatal("an injected command ran: the canary file exists")
	}
	if n := count(t, e.db, `SELECT COUNT(*) FROM runs r JOIN jobs j ON j.id = r.job_id WHERE j.session = ? AND r.status = 'ok'`, session); n != 1 {
		t.Errorf("ok runs in the hostile workdir = %d, want 1", n)
	}
}

// TestSlurmNoAccounting tracks a job on a cluster without slurmdbd, where
// sacct cannot answer: slurmctld while it remembers the job, then the
// markers the job script left, once slurmctld has forgotten it.
func TestSlurmNoAccounting(t *testing.T) {
	slurmtest.Start(t, slurmtest.Options{MinJobAge: 2})
	e := newClusterEnv(t)
	session := e.submit(e.sweep("demo", demoSweep))
	var jobID, dir string
	sqlRow(t, e.db, `SELECT job_id, dir FROM jobs WHERE session = '`+session+`'`, &jobID, &dir)
	waitEnded(t, jobID, "marker")
	if _, err := os.Stat(filepath.Join(dir, "job.exit")); err != nil {
		t.Fatalf("slurmctld forgot job %s, which left no exit marker: %v", jobID, err)
	}
	// runs syncs first, before it checks --sweep: the sweep's runs are
	// there to be selected.
	code, stdout, stderr := e.run("runs", "--sweep", "slurm-demo", "--columns", "run,status")
	if code != 0 || strings.Count(stdout, " ok") != 2 || !strings.Contains(stderr, "accounting storage is disabled") {
		t.Errorf("runs --sweep slurm-demo before any sync = %d, want its 2 ok runs, and sacct's reason noted\nstdout:\n%s\nstderr:\n%s",
			code, stdout, stderr)
	}
	code, stdout, stderr = e.run("status", session)
	if code != 0 || !regexp.MustCompile(`COMPLETED\s+marker`).MatchString(stdout) {
		t.Errorf("status = %d, want COMPLETED from the markers\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for step := range 2 {
		want := jobID + "." + strconv.Itoa(step)
		if n := count(t, e.db, `SELECT COUNT(*) FROM runs WHERE step_id = ? AND status = 'ok' AND samples = 6 AND node_list = ?`,
			want, hostname(t)); n != 1 {
			t.Errorf("ok runs of step %s with 6 samples = %d, want 1", want, n)
		}
	}
}

// TestSlurmSessionGone: the session directory of a running job is deleted.
// status says so and follows the job on; efaxx cancel ends it, and it is
// then settled as failed, naming the directory, its steps lost: later
// syncs leave it alone, where every sync failed on it for good.
func TestSlurmSessionGone(t *testing.T) {
	slurmtest.Start(t, slurmtest.Options{MinJobAge: 2})
	e := newClusterEnv(t)
	session := e.submit(e.sweep("gone", slowSweep("slurm-gone")))
	var sessionDir string
	sqlRow(t, e.db, `SELECT session_dir FROM jobs WHERE session = '`+session+`'`, &sessionDir)
	deadline := time.Now().Add(90 * time.Second)
	for started, _ := filepath.Glob(filepath.Join(sessionDir, "000-*", "step.start")); len(started) == 0; started, _ =
		filepath.Glob(filepath.Join(sessionDir, "000-*", "step.start")) {
		if time.Now().After(deadline) {
			t.Fatalf("the first step did not start within 90s:\n%s", e.must(0, "status", session))
		}
		time.Sleep(300 * time.Millisecond)
	}
	if err := os.RemoveAll(sessionDir); err != nil {
		t.Fatal(err)
	}
	gone := "session directory " + sessionDir + " is gone"
	if code, stdout, stderr := e.run("status", session); code != 0 || !strings.Contains(stderr, gone+"; the job is settled as failed once it ends") {
		t.Errorf("status of the running job = %d, want 0 and a note naming the directory\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	e.must(0, "cancel", session)
	out := e.watch(session, 3)
	if !regexp.MustCompile(`FAILED\s+\S+\s+\S+\s+2 lost\s+` + regexp.QuoteMeta(gone) + `: the results of its steps not stored are lost`).MatchString(out) {
		t.Errorf("status does not show the job FAILED, its 2 steps lost, naming the directory:\n%s", out)
	}
	if out := e.must(0, "sync"); !strings.Contains(out, "nothing to sync") {
		t.Errorf("sync after the job settled did something:\n%s", out)
	}
}

// TestSlurmSubmitKilled: efaxx submit is killed with SIGKILL the moment
// sbatch has answered, before the store records the job: its sbatch is a
// wrapper that kills its parent once the real sbatch has printed the id.
// The job runs all the same; status finds it in Slurm by its directory and
// stores its results, where it ran untracked and status knew no job.
func TestSlurmSubmitKilled(t *testing.T) {
	slurmtest.Start(t, slurmtest.Options{})
	e := newClusterEnv(t)
	sbatch, err := exec.LookPath("sbatch")
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	writeFile(t, filepath.Join(bin, "sbatch"), "#!/bin/sh\nout=$("+slurm.Quote(sbatch)+` "$@") || exit
kill -KILL "$PPID"
printf '%s\n' "$out"
`)
	if err := os.Chmod(filepath.Join(bin, "sbatch"), 0o755); err != nil {
		t.Fatal(err)
	}
	sweep := e.sweep("killed", strings.Replace(demoSweep, `name = "slurm-demo"`, `name = "slurm-killed"`, 1))
	cmd := efaxxProcess("--db", e.db, "--workdir", e.workdir, "submit", "--runner", runner(t), sweep)
	cmd.Env = append(cmd.Env, "PATH="+bin+":"+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("submit was not killed at its sbatch (%v):\n%s", err, out)
	}
	if n := count(t, e.db, `SELECT COUNT(*) FROM jobs`); n != 0 {
		t.Fatalf("jobs recorded before the kill = %d, want 0: the kill came too late", n)
	}
	e.watch("slurm-killed", 0)
	if n := count(t, e.db, `SELECT COUNT(*) FROM runs r JOIN jobs j ON j.id = r.job_id
		WHERE j.sweep = 'slurm-killed' AND j.state = 'COMPLETED' AND r.status = 'ok' AND r.samples = 6`); n != 2 {
		t.Errorf("ok runs of the killed submit's job = %d, want 2", n)
	}
}

// TestTestbed runs sweeps on a testbed of two hosts, one rank per host:
// the write benchmark, and an external MPI program.
func TestTestbed(t *testing.T) {
	slurmtest.Start(t, slurmtest.Options{Hosts: 2, Rate: "1gbit"})
	e := newClusterEnv(t)
	t.Run("write", func(t *testing.T) { e.t = t; testTestbedWrite(e) })
	t.Run("external", func(t *testing.T) { e.t = t; testTestbedExternal(e) })
}

// testTestbedWrite submits sweeps/testbed/write.toml: h1 writes to h2
// over nic0, which tc shapes to 1 Gbit/s. The bandwidth stored at 64 MiB
// must be within 10% of that rate, and the bytes must have gone out
// through h1's shaped nic0, not loopback.
func testTestbedWrite(e *clusterEnv) {
	t := e.t
	before := tcSent(t, "efx-h1", "nic0")
	session := e.submit("../../sweeps/testbed/write.toml")
	e.watch(session, 0)

	var run int64
	var status, hosts, nodes, domains string
	sqlRow(t, e.db, `SELECT r.id, r.status, r.hosts, r.node_list,
			(SELECT group_concat(json_extract(k.fingerprint, '$.domain')) FROM ranks k WHERE k.run_id = r.id)
		FROM runs r JOIN jobs j ON j.id = r.job_id WHERE j.session = '`+session+`'`,
		&run, &status, &hosts, &nodes, &domains)
	if status != "ok" || hosts != `["h1","h2"]` || nodes != "h[1-2]" || domains != "nic0,nic0" {
		t.Fatalf("run %d: %s on hosts %s, nodes %s, domains %s; want ok, one rank on each of h1 and h2, over nic0",
			run, status, hosts, nodes, domains)
	}
	var gbps float64
	sqlRow(t, e.db, `SELECT 8.0 * bytes_sent * iterations / elapsed_ns FROM samples
		WHERE run_id = `+strconv.FormatInt(run, 10)+` AND size = 67108864 AND role = 'initiator'`, &gbps)
	t.Logf("write at 64 MiB over nic0 shaped to 1 Gbit/s: %.3f Gbps", gbps)
	if gbps < 0.9 || gbps > 1.1 {
		load, _ := os.ReadFile("/proc/loadavg")
		t.Errorf("write at 64 MiB = %.3f Gbps, want within 10%% of the shaped 1 Gbit/s (load average %s: "+
			"both ranks poll their fabric, so other work on this machine's cores slows them)", gbps, strings.TrimSpace(string(load)))
	}
	// 1 warm-up and 10 timed iterations of 64 MiB, plus 11 of 1 MiB, left
	// h1 through nic0's shaper.
	if sent, want := tcSent(t, "efx-h1", "nic0")-before, uint64(11*(64<<20+1<<20)); sent < want {
		t.Errorf("h1 nic0 sent %d bytes during the run, want at least %d", sent, want)
	}
}

// tcSent returns the bytes the root qdisc of a namespace's NIC has sent.
func tcSent(t *testing.T, ns, nic string) uint64 {
	t.Helper()
	out, err := exec.Command("tc", "-n", ns, "-s", "qdisc", "show", "dev", nic).Output()
	if err != nil {
		t.Fatalf("tc -n %s -s qdisc show dev %s: %v", ns, nic, err)
	}
	m := regexp.MustCompile(`Sent (\d+) bytes`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("tc printed no byte count:\n%s", out)
	}
	n, _ := strconv.ParseUint(string(m[1]), 10, 64)
	return n
}
