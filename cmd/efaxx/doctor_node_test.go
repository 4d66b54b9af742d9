package main

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"efaxx/slurm/slurmtest"
)

// TestDoctorOnNode runs doctor --on-node on a testbed without pyxis: a
// sweep without a container passes on the node, one with a container
// fails the node's pyxis check with what srun said there, and a job that
// cannot start within --wait is cancelled with exit status 3. The
// subtests share the cluster.
func TestDoctorOnNode(t *testing.T) {
	slurmtest.Start(t, slurmtest.Options{})
	e := newClusterEnv(t)
	t.Run("bare", func(t *testing.T) { e.t = t; testNodeBare(e) })
	t.Run("no pyxis", func(t *testing.T) { e.t = t; testNodeNoPyxis(e) })
	t.Run("refused", func(t *testing.T) { e.t = t; testNodeRefused(e) })
	t.Run("busy", func(t *testing.T) { e.t = t; testNodeBusy(e) })
}

// onNode returns what doctor printed after its "on a compute node" line.
func onNode(t *testing.T, out string) string {
	t.Helper()
	_, node, ok := strings.Cut(out, "on a compute node: ")
	if !ok {
		t.Fatalf("doctor --on-node printed no node checks:\n%s", out)
	}
	t.Logf("on a compute node: %s", node)
	return node
}

// wantLines fails t unless each pattern matches a line of out.
func wantLines(t *testing.T, out string, patterns ...string) {
	t.Helper()
	for _, p := range patterns {
		if !regexp.MustCompile(`(?m)^` + p).MatchString(out) {
			t.Errorf("no line matches %q in:\n%s", p, out)
		}
	}
}

// testNodeBare: the runner this test built runs on the node under srun
// --mpi=pmix, and is of this efaxx's version.
func testNodeBare(e *clusterEnv) {
	sweep := e.sweep("node-bare", demoSweep)
	out := onNode(e.t, e.must(0, "doctor", "--on-node", "--runner", runner(e.t), sweep))
	host := regexp.QuoteMeta(hostname(e.t))
	wantLines(e.t, out,
		`ok    node       job \d+ got `+host+` \(the cluster's default partition\)$`,
		`ok    mpi        srun --mpi=pmix started step \d+\.0 on `+host+`$`,
		`ok    runner     `+host+`: efaxx-runner dev \(unknown\) at `+regexp.QuoteMeta(runner(e.t))+`$`)
	if strings.Contains(out, "pyxis") || strings.Contains(out, "image") {
		e.t.Errorf("a sweep without a container has no pyxis or image check:\n%s", out)
	}
	left, _ := filepath.Glob(filepath.Join(e.workdir, ".doctor-*"))
	if len(left) > 0 {
		e.t.Errorf("doctor --on-node left %q", left)
	}
}

// testNodeNoPyxis: srun on the node does not know --container-image, and
// says so; the checks after pyxis are not made.
func testNodeNoPyxis(e *clusterEnv) {
	image := filepath.Join(e.t.TempDir(), "empty.sqsh")
	if out, err := exec.Command("mksquashfs", e.t.TempDir(), image, "-quiet", "-no-progress").CombinedOutput(); err != nil {
		e.t.Fatalf("mksquashfs: %v\n%s", err, out)
	}
	sweep := e.sweep("node-ctr", demoSweep+"[container]\nimage = \""+image+"\"\n")
	out := onNode(e.t, e.must(1, "doctor", "--on-node", sweep))
	wantLines(e.t, out, `ok    node       job \d+ got `,
		`FAIL  pyxis      \S+: srun: unrecognized option '--container-image=`+regexp.QuoteMeta(image)+`'.*: pyxis is not loaded there`)
	for _, name := range []string{"mpi", "image", "runner"} {
		if strings.Contains(out, "  "+name+" ") {
			e.t.Errorf("checks after the failed pyxis check were made:\n%s", out)
		}
	}
}

// testNodeRefused: sbatch refuses the job of a partition that does not
// exist, and the node check says what sbatch said.
func testNodeRefused(e *clusterEnv) {
	sweep := e.sweep("node-gpu", strings.Replace(demoSweep, "[slurm]\n", "[slurm]\npartition = \"gpu\"\n", 1))
	out := onNode(e.t, e.must(1, "doctor", "--on-node", "--runner", runner(e.t), sweep))
	wantLines(e.t, out, `FAIL  node       sbatch: exit status 1: sbatch: error: invalid partition specified: gpu`)
}

// testNodeBusy: a job Slurm will not start within --wait is cancelled,
// and doctor exits 3 with Slurm's reason.
func testNodeBusy(e *clusterEnv) {
	sweep := e.sweep("node-later", strings.Replace(demoSweep, "[slurm]\n", "[slurm]\nextra = [\"--begin=now+1hour\"]\n", 1))
	code, stdout, stderr := e.run("doctor", "--on-node", "--wait", "2s", "--runner", runner(e.t), sweep)
	if code != 3 || !regexp.MustCompile(`job (\d+) was still pending after 2s \(reason: BeginTime\), so it is cancelled: the partition is busy`).MatchString(stderr) {
		e.t.Fatalf("doctor --on-node of a job that begins in an hour = %d, want 3 and why\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	id := regexp.MustCompile(`job (\d+) was`).FindStringSubmatch(stderr)[1]
	state, err := exec.Command("squeue", "-h", "-t", "all", "-j", id, "-o", "%T").Output()
	if err != nil || strings.TrimSpace(string(state)) != "CANCELLED" {
		e.t.Errorf("job %s after doctor gave up on it: %q, %v; want CANCELLED", id, state, err)
	}
	code, _, stderr = e.run("doctor", "--wait", "2s", sweep)
	if code != 2 || !strings.Contains(stderr, "--wait: only with --on-node") {
		e.t.Errorf("doctor --wait without --on-node = %d, %q; want 2", code, stderr)
	}
	if code, _, stderr = e.run("doctor", "--on-node"); code != 2 || !strings.Contains(stderr, "want a SWEEP.toml") {
		e.t.Errorf("doctor --on-node without a sweep = %d, %q; want 2", code, stderr)
	}
}

// testContainerDoctorOnNode: on a testbed with pyxis, the image starts on
// a node and its runner runs there; a mount whose source the nodes lack
// fails the node's image check, and an image without the runner its
// runner check, each with what the node said.
func testContainerDoctorOnNode(e *clusterEnv, image, broken string) {
	out := onNode(e.t, e.must(0, "doctor", "--on-node", e.sweepIn("ctr-node", image, e.dir)))
	wantLines(e.t, out, `ok    node       job \d+ got h\d`,
		`ok    pyxis      srun on h\d takes --container-image$`,
		`ok    mpi        srun --mpi=pmix started step \d+\.0 on h\d$`,
		`ok    image      pyxis and enroot started `+regexp.QuoteMeta(image)+` on h\d$`,
		`ok    runner     h\d: efaxx-runner dev \(unknown\) at /usr/local/bin/efaxx-runner$`)
	out = onNode(e.t, e.must(1, "doctor", "--on-node", e.sweepIn("ctr-node-nostart", image, "/nonexistent-efaxx-mount")))
	wantLines(e.t, out, `ok    mpi        `,
		`FAIL  image      h\d: the container did not start: pyxis: .*/nonexistent-efaxx-mount`)
	out = onNode(e.t, e.must(1, "doctor", "--on-node", e.sweepIn("ctr-node-norunner", broken, e.dir)))
	wantLines(e.t, out, `ok    image      pyxis and enroot started `,
		`FAIL  runner     h\d: the container image `+regexp.QuoteMeta(broken)+` holds no /usr/local/bin/efaxx-runner`)
}
