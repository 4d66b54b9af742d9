package main

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"efaxx/results/record"
	"efaxx/slurm/slurmtest"
)

// The container tests run sweeps as a cluster with pyxis does: a testbed
// of two hosts whose slurmds load pyxis, with enroot built from its pinned
// release (enroot/runtime), and an image that enroot/mkimage builds from
// this machine's Debian mirror with this test's efaxx-runner and efaxx.

// containerSweep writes h1 to h2 over nic0 in the image, with a mount,
// a workdir inside it, and variables, PATH among them, that must reach the
// ranks and never the job script.
const containerSweep = `name = "NAME"
benchmark = "write"
[params]
provider = "tcp"
nics = "nic0"
pinning = "none"
ranks = 2
sizes = "1MiB"
iterations = 4
warmup = 1
timeout = "60s"
[slurm]
nodes = 2
time = "5"
`

// inImage is containerSweep's [container] table.
const inImage = `[container]
image = "IMAGE"
mounts = ["MOUNT:/data"]
workdir = "/data"
env = { GREETING = "hello from inside", PATH = "/opt/conda/bin" }
`

// TestContainers runs container sweeps through pyxis on two hosts, the
// same sweep without a container, and each way a container sweep fails;
// the subtests share the cluster and the image, and run in order.
func TestContainers(t *testing.T) {
	runner(t) // -short skips it
	image := buildImage(t)
	c := slurmtest.Start(t, slurmtest.Options{Hosts: 2, Pyxis: true})
	e := newClusterEnv(t)
	t.Run("doctor", func(t *testing.T) { e.t = t; testContainerDoctor(e, image) })
	t.Run("doctor on node", func(t *testing.T) { e.t = t; testContainerDoctorOnNode(e, image, imageWithoutRunner(t, image)) })
	t.Run("sweep", func(t *testing.T) { e.t = t; testContainerSweep(e, c, image) })
	t.Run("no runner", func(t *testing.T) { e.t = t; testImageWithoutRunner(e, c, image) })
	t.Run("cannot start", func(t *testing.T) { e.t = t; testContainerCannotStart(e, c, image) })
	t.Run("cancel", func(t *testing.T) { e.t = t; testContainerCancel(e, c, image) })
}

// buildImage builds the image with enroot/mkimage, into the test's
// directory, from efaxx-runner and efaxx linked as make build links them
// but with the version the efaxx of this test has, "dev (unknown)". The
// root filesystem is cached (make image builds it first).
func buildImage(t *testing.T) string {
	t.Helper()
	bin := t.TempDir()
	for _, cmd := range []string{"efaxx", "efaxx-runner"} {
		build := exec.Command("go", "build", "-ldflags", "-X main.version="+version+" -X main.commit="+commit,
			"-o", filepath.Join(bin, cmd), "efaxx/cmd/"+cmd)
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", cmd, err, out)
		}
	}
	image := filepath.Join(t.TempDir(), "efaxx.sqsh")
	start := time.Now()
	mk, _ := filepath.Abs("../../enroot/mkimage")
	if out, err := exec.Command(mk, "-o", image, "--bin", bin).CombinedOutput(); err != nil {
		t.Fatalf("enroot/mkimage: %v\n%s", err, out)
	}
	t.Logf("image built in %v: %s", time.Since(start).Round(time.Millisecond), image)
	return image
}

// sweepIn returns containerSweep named name, in image with mount as the
// source of /data; image "" leaves [container] out.
func (e *clusterEnv) sweepIn(name, image, mount string) string {
	text := strings.Replace(containerSweep, "NAME", name, 1)
	if image != "" {
		text += strings.NewReplacer("IMAGE", image, "MOUNT", mount).Replace(inImage)
	}
	return e.sweep(name, text)
}

// testContainerDoctor: doctor sees pyxis, enroot and the image, and a
// missing image fails doctor and submit with its path.
func testContainerDoctor(e *clusterEnv, image string) {
	out := e.must(0, "doctor", e.sweepIn("ctr-doctor", image, e.dir))
	for _, want := range []string{"ok    pyxis", "ok    enroot     enroot 4.1.2", "ok    image      " + image,
		"holds efaxx-runner dev (unknown)"} {
		if !strings.Contains(out, want) {
			e.t.Errorf("doctor output lacks %q:\n%s", want, out)
		}
	}
	missing := filepath.Join(e.dir, "no-such.sqsh")
	sweep := e.sweepIn("ctr-missing", missing, e.dir)
	if out := e.must(1, "doctor", sweep); !strings.Contains(out, "FAIL  image      container image "+missing+": no such file or directory") {
		e.t.Errorf("doctor of a missing image:\n%s", out)
	}
	code, _, stderr := e.run("submit", sweep)
	if code == 0 || !strings.Contains(stderr, "container image "+missing+": no such file or directory") {
		e.t.Errorf("submit of a missing image = %d, %q; want an error naming the path", code, stderr)
	}
	if n := count(e.t, e.db, `SELECT COUNT(*) FROM jobs`); n != 0 {
		e.t.Errorf("jobs recorded after refused submits = %d, want 0", n)
	}
}

// testContainerSweep: the sweep runs in the image on h1 and h2, each rank
// records the image's digest, its OS and the variables it saw, the job
// script never exported them, and nothing is left in enroot once the job
// has ended; the same sweep without [container] runs on the hosts.
func testContainerSweep(e *clusterEnv, c *slurmtest.Cluster, image string) {
	t := e.t
	ctr, plain := e.sweepIn("ctr", image, e.dir), e.sweepIn("bare", "", "")
	session, bare := e.submit(ctr), e.submit(plain)
	session, bare = e.watchOK(session, ctr), e.watchOK(bare, plain)
	digest := fileDigest(t, image)
	for _, tt := range []struct {
		session string
		want    func(r record.Rank) bool
	}{
		{session, func(r record.Rank) bool {
			return r.InContainer && r.OS == "Debian GNU/Linux 12 (bookworm)" && r.Image != nil && r.Image.Ref == image &&
				r.Image.Digest == digest && r.Image.Env["GREETING"] == "hello from inside" && r.Image.Env["PATH"] == "/opt/conda/bin"
		}},
		{bare, func(r record.Rank) bool { return !r.InContainer && r.Image == nil && r.OS != "" }},
	} {
		ranks := sessionRanks(t, e, tt.session)
		if len(ranks) != 2 || ranks[0].Host == ranks[1].Host {
			t.Errorf("session %s: ranks %+v, want 2 on two hosts", tt.session, ranks)
		}
		for _, r := range ranks {
			t.Logf("session %s: rank %d on %s: os %q, in container %v, image %+v", tt.session, r.Rank, r.Host, r.OS, r.InContainer, r.Image)
			if !tt.want(r) {
				t.Errorf("session %s: rank %d on %s: os %q, in container %v, image %+v", tt.session, r.Rank, r.Host, r.OS, r.InContainer, r.Image)
			}
		}
	}
	var status, dir string
	sqlRow(t, e.db, `SELECT r.status, j.dir FROM runs r JOIN jobs j ON j.id = r.job_id WHERE j.session = '`+session+`'`, &status, &dir)
	script, _ := os.ReadFile(filepath.Join(dir, "job.sh"))
	if status != "ok" || strings.Contains(string(script), "export") || !strings.Contains(string(script), "'GREETING=hello from inside'") {
		t.Errorf("run %s; the job script must hand the variables to env(1) in the container, never export them:\n%s", status, script)
	}
	if exit, _ := os.ReadFile(filepath.Join(dir, "job.exit")); !strings.HasPrefix(string(exit), "rc=0 signal=-") {
		t.Errorf("job.exit = %q, want rc=0: the script's own commands ran with the host's PATH", exit)
	}
	if out := e.must(0, "show", "1"); !strings.Contains(out, "in_container     true") || !strings.Contains(out, digest) {
		t.Errorf("show of the container run lacks where it ran:\n%s", out)
	}
	checkNoContainers(t, c)
}

// sessionRanks returns the fingerprints of the ranks a session stored.
func sessionRanks(t *testing.T, e *clusterEnv, session string) []record.Rank {
	t.Helper()
	db, err := sql.Open("sqlite3", e.db)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT k.fingerprint FROM ranks k JOIN runs r ON r.id = k.run_id
		JOIN jobs j ON j.id = r.job_id WHERE j.session = ? ORDER BY k.rank`, session)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []record.Rank
	for rows.Next() {
		var text string
		var r record.Rank
		if err := rows.Scan(&text); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(text), &r); err != nil {
			t.Fatalf("fingerprint %s: %v", text, err)
		}
		out = append(out, r)
	}
	return out
}

func fileDigest(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// testImageWithoutRunner: an image that lacks efaxx-runner fails the
// point, saying so.
func testImageWithoutRunner(e *clusterEnv, c *slurmtest.Cluster, image string) {
	t := e.t
	broken := imageWithoutRunner(t, image)
	session := e.submit(e.sweepIn("ctr-norunner", broken, e.dir))
	e.run("status", "--watch", "--interval", "300ms", session)
	want := "the container image " + broken + " holds no /usr/local/bin/efaxx-runner"
	status, reason := sessionRun(t, e, session)
	t.Logf("run %s: %s", status, reason)
	if status != "failed" || !strings.Contains(reason, want) {
		t.Errorf("run %s: %q, want failed with %q", status, reason, want)
	}
	checkNoContainers(t, c)
}

// imageWithoutRunner returns a copy of image without efaxx-runner.
func imageWithoutRunner(t *testing.T, image string) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "root")
	broken := filepath.Join(t.TempDir(), "no-runner.sqsh")
	for _, cmd := range [][]string{{"unsquashfs", "-q", "-d", root, image}, {"rm", root + "/usr/local/bin/efaxx-runner"},
		{"mksquashfs", root, broken, "-quiet", "-no-progress", "-comp", "zstd", "-Xcompression-level", "3"}} {
		if out, err := exec.Command(cmd[0], cmd[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(cmd, " "), err, out)
		}
	}
	return broken
}

// testContainerCannotStart: a mount whose source the nodes lack keeps the
// container from starting; the job fails and the run keeps pyxis's reason.
func testContainerCannotStart(e *clusterEnv, c *slurmtest.Cluster, image string) {
	t := e.t
	session := e.submit(e.sweepIn("ctr-nostart", image, "/nonexistent-efaxx-mount"))
	e.run("status", "--watch", "--interval", "300ms", session)
	status, reason := sessionRun(t, e, session)
	t.Logf("run %s: %s", status, reason)
	if status != "failed" || !strings.Contains(reason, "the container did not start: pyxis: ") ||
		!strings.Contains(reason, "/nonexistent-efaxx-mount") {
		t.Errorf("run %s: %q, want failed with pyxis's reason naming the mount", status, reason)
	}
	var state string
	sqlRow(t, e.db, `SELECT state FROM jobs WHERE session = '`+session+`'`, &state)
	if state != "FAILED" {
		t.Errorf("job state %s, want FAILED", state)
	}
	checkNoContainers(t, c)
}

// testContainerCancel: cancelling a job while its step runs in the
// container leaves no container on any host.
func testContainerCancel(e *clusterEnv, c *slurmtest.Cluster, image string) {
	t := e.t
	sweep := e.sweepIn("ctr-cancel", image, e.dir)
	text, _ := os.ReadFile(sweep)
	// 64 MiB at 1 Gbit/s a thousand times: many minutes.
	long := strings.NewReplacer(`sizes = "1MiB"`, `sizes = "64MiB"`, "iterations = 4", "iterations = 1000").Replace(string(text))
	session := e.submit(e.sweep("ctr-cancel", long))
	// Cancel once both ranks run in their containers and have written
	// their fingerprints.
	deadline := time.Now().Add(2 * time.Minute)
	for {
		files, _ := filepath.Glob(filepath.Join(e.workdir, "ctr-cancel", session, "000-*", "rank-*.ndjson"))
		if len(files) == 2 && strings.Contains(c.Enroot(t, "h1", "list"), "pyxis_") && strings.Contains(c.Enroot(t, "h2", "list"), "pyxis_") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the ranks did not start in their containers within 2 minutes:\n%s", e.must(0, "status", session))
		}
		time.Sleep(500 * time.Millisecond)
	}
	e.must(0, "cancel", session)
	e.run("status", "--watch", "--interval", "300ms", session)
	status, reason := sessionRun(t, e, session)
	t.Logf("run %s: %s", status, reason)
	if status != "cancelled" {
		t.Errorf("run %s: %q, want cancelled", status, reason)
	}
	checkNoContainers(t, c)
}

// sessionRun returns the status and reason of a session's one run.
func sessionRun(t *testing.T, e *clusterEnv, session string) (status, reason string) {
	t.Helper()
	sqlRow(t, e.db, `SELECT r.status, r.reason FROM runs r JOIN jobs j ON j.id = r.job_id WHERE j.session = '`+session+`'`,
		&status, &reason)
	return status, reason
}

// checkNoContainers waits until every node is idle again (pyxis removes a
// job's containers in the job's epilog, after the job has ended) and then
// requires enroot on each host to list nothing.
func checkNoContainers(t *testing.T, c *slurmtest.Cluster) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		out := c.Slurm(t, "sinfo", "-h", "-N", "-o", "%N %T")
		if strings.Count(out, " idle\n") == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("nodes not idle a minute after the job (a failed epilog drains them):\n%s", out)
		}
		time.Sleep(200 * time.Millisecond)
	}
	for _, h := range []string{"h1", "h2"} {
		if out := c.Enroot(t, h, "list"); strings.TrimSpace(out) != "" {
			t.Errorf("enroot list on %s after the job:\n%s", h, out)
		}
	}
}
