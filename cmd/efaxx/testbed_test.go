package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"efaxx/results/record"
	"efaxx/slurm/slurmtest"
)

// The testbed tests measure the published multi-rail shapes for real: 4
// hosts (network namespaces, each with its own slurmd) with 4 NICs shaped
// to 1 Gbit/s, ranks started by srun --mpi=pmix, 64 MiB writes over tcp.
// Margins are generous; every number comes from verified data.

const (
	shaped   = 1e9      // bit/s of every NIC
	slow     = 250e6    // bit/s of the slowed NIC
	testSize = 64 << 20 // the acceptance size
)

// testbed brings up the cluster for the test and takes it down after.
func testbed(t *testing.T) (env []string) {
	t.Helper()
	// slurmtest holds a lock across test binaries: another testbed on this
	// machine is waited for, never collided with.
	c := slurmtest.Start(t, slurmtest.Options{Hosts: 4, Rate: "1gbit"})
	return append(os.Environ(), "SLURM_CONF="+c.Conf,
		"OMPI_MCA_btl_tcp_if_include=10.78.0.0/24", "OMPI_MCA_oob_tcp_if_include=10.78.0.0/24")
}

// shape sets a NIC's rate on one host of the running testbed.
func shape(t *testing.T, env []string, host, nic, rate string) {
	t.Helper()
	script, _ := filepath.Abs("../../slurm/testbed/testbed")
	cmd := exec.Command(script, "shape", "--dir", filepath.Dir(filepath.Dir(slurmConf(env))), host, nic, rate)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("testbed shape %s %s %s: %v\n%s", host, nic, rate, err, out)
	}
}

func slurmConf(env []string) string {
	for _, kv := range env {
		if len(kv) > 11 && kv[:11] == "SLURM_CONF=" {
			return kv[11:]
		}
	}
	return ""
}

// srunWrite runs the write benchmark on nodes hosts, one rank each, over 4
// rails, and returns rank 0's samples. Every rate counts bytes delivered,
// so it checks that no rate exceeds limit, the sum of the shaped rates of
// the rails the strategy uses (Gbps), and that rank 0's rate and its
// targets' (together, for round-robin's peers at once) agree within 2%.
// A step that fails those checks is measured once more, as the bench
// takes a disturbed measurement again: on this 2-vCPU VM a rank held off
// its core for a tenth of a second (seen once in a CI run: rank 0 0.903
// Gbps, its target 0.942) moves a clock by 4%. A runner that counts
// undelivered bytes fails both.
func srunWrite(t *testing.T, env []string, nodes int, strategy string, limit float64, extra ...string) []record.Sample {
	t.Helper()
	for try := 1; ; try++ {
		samples, problems := measureWrite(t, env, nodes, strategy, limit, extra...)
		if len(problems) == 0 {
			return samples
		}
		if try == 1 {
			t.Logf("%s; measuring again", strings.Join(problems, "; "))
			continue
		}
		for _, p := range problems {
			t.Error(p)
		}
		return samples
	}
}

// measureWrite is one srunWrite step: rank 0's samples, and what in them
// breaks srunWrite's checks.
func measureWrite(t *testing.T, env []string, nodes int, strategy string, limit float64, extra ...string) ([]record.Sample, []string) {
	t.Helper()
	var out string
	var start time.Time
	for attempt := 1; ; attempt++ {
		out = t.TempDir()
		// -w h1: rank 0 always runs on h1, whose nic3 the slow-NIC steps
		// shape on its way out; left to Slurm, a busy h1 (a step still
		// completing) moved rank 0 elsewhere and the slow NIC off the path.
		args := []string{"-N", strconv.Itoa(nodes), "-n", strconv.Itoa(nodes), "-w", "h1", "--mpi=pmix", "--kill-on-bad-exit=1",
			runner(t), "--benchmark", "write", "--provider", "tcp", "--nic", "nic[0-3]", "--rails", "4",
			"--strategy", strategy, "--link-gbps", "1", "--pin", "none", "--sizes", strconv.Itoa(testSize),
			"--iterations", "4", "--warmup", "1", "--timeout", "60s", "--out", out}
		cmd := exec.Command("srun", append(args, extra...)...)
		cmd.Env = env
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		start = time.Now()
		err := cmd.Run()
		if err == nil {
			break
		}
		if attempt == 1 && crashedAtStart(out, stderr.String()) {
			// A known crash outside efaxx, not a measurement: retried once.
			t.Logf("srun %s: a rank died of SIGSEGV at PC 0 before writing its rank file "+
				"(seen inside MPI_Init under srun --mpi=pmix); running the step again\n%s", strategy, stderr.String())
			continue
		}
		t.Fatalf("srun %s: %v\n%s", strategy, err, stderr.String())
	}
	samples := rankSamples(t, filepath.Join(out, record.RankFile(0)))
	t.Logf("%s on %d hosts (%v): %s", strategy, nodes, time.Since(start).Round(time.Millisecond), describe(samples))
	// Gbps the targets received, each by its own clock. Under round-robin
	// rank 0 writes to all of them at once and its one rate counts every
	// byte until the last has landed; theirs is then all their bytes over
	// the longest of their times (a sum of their own rates would count a
	// target that finished early at its own higher rate: 2.76 against
	// rank 0's 2.68 Gbps once, the peers 2-3% apart).
	var targets, bits float64
	var longest uint64
	for rank := 1; rank < nodes; rank++ {
		for _, s := range rankSamples(t, filepath.Join(out, record.RankFile(rank))) {
			targets += 8 * float64(s.BytesRecv) * float64(s.Iterations) / float64(s.ElapsedNs)
			bits += 8 * float64(s.BytesRecv) * float64(s.Iterations)
			longest = max(longest, s.ElapsedNs)
		}
	}
	if strategy == "round-robin" && longest > 0 {
		targets = bits / float64(longest)
	}
	var sent float64
	var problems []string
	for _, s := range samples {
		if g := gbps(s); g > limit {
			problems = append(problems, fmt.Sprintf("%s to peer %s: %.3f Gbps, more than its rails' shaped %.2f Gbps",
				strategy, s.Peers, g, limit))
		}
		sent += gbps(s)
	}
	if r := sent / targets; r < 0.98 || r > 1.02 {
		problems = append(problems, fmt.Sprintf("%s: rank 0 sent %.3f Gbps, its targets received %.3f: want within 2%%",
			strategy, sent, targets))
	}
	return samples, problems
}

// crashedAtStart says whether a failed step is the startup crash that
// rarely hits a rank under srun --mpi=pmix: a SIGSEGV at PC 0, reported by
// libinfinipath's handler, before any rank wrote its file.
func crashedAtStart(out, stderr string) bool {
	files, _ := filepath.Glob(filepath.Join(out, "rank-*.ndjson"))
	return len(files) == 0 && strings.Contains(stderr, "terminated with signal 11 at PC=0")
}

func rankSamples(t *testing.T, path string) []record.Sample {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []record.Sample
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		v, err := record.Decode(sc.Bytes())
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		switch r := v.(type) {
		case *record.Sample:
			out = append(out, *r)
		case *record.End:
			if r.Status != record.StatusOK {
				t.Fatalf("rank 0 failed: %s", r.Error)
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s: no samples", path)
	}
	return out
}

// gbps is a sample's one-way payload rate (bytes sent by the initiator).
func gbps(s record.Sample) float64 {
	return 8 * float64(s.BytesSent) * float64(s.Iterations) / float64(s.ElapsedNs)
}

func describe(ss []record.Sample) string {
	var b bytes.Buffer
	for _, s := range ss {
		b.WriteString("peer " + s.Peers + " " + strconv.FormatFloat(gbps(s), 'f', 2, 64) + " Gbps p50 " +
			time.Duration(s.Lat.P50).Round(time.Millisecond).String() + " rail bytes " + fmtList(s.RailBytes) + "; ")
	}
	return b.String()
}

func fmtList(v []uint64) string {
	s := "["
	for i, x := range v {
		if i > 0 {
			s += " "
		}
		s += strconv.FormatUint(x>>20, 10) + "M"
	}
	return s + "]"
}

// onceMore measures again, once, when the first sample fails good; the
// caller judges whichever sample it returns.
func onceMore(t *testing.T, what string, measure func() record.Sample, good func(record.Sample) bool) record.Sample {
	t.Helper()
	s := measure()
	if !good(s) {
		t.Logf("%s = %.2f Gbps, short of its check: measuring once more", what, gbps(s))
		s = measure()
	}
	return s
}

// TestTestbedRails asserts the published shapes on 4 shaped rails.
func TestTestbedRails(t *testing.T) {
	env := testbed(t)

	rail := shaped / 1e9
	// The testbed's hosts share the VM's two cores: one slow run (0.90 Gbps
	// for a 1 Gbps rail, 2.9 for four, once each in CI, against 0.99 and
	// 3.97 in most) says little of the rails; two in a row do.
	single := onceMore(t, "single", func() record.Sample { return srunWrite(t, env, 2, "single", rail)[0] },
		func(s record.Sample) bool { return gbps(s) >= 0.9*rail })
	if g := gbps(single); g < 0.9*rail {
		t.Errorf("single = %.3f Gbps, want within 10%% of the shaped %.1f Gbps", g, rail)
	}
	split := onceMore(t, "split", func() record.Sample { return srunWrite(t, env, 2, "split", 4*rail)[0] },
		func(s record.Sample) bool { return gbps(s)/gbps(single) >= 3 })
	if r := gbps(split) / gbps(single); r < 3 {
		t.Errorf("split over 4 rails = %.2f x single, want >= 3", r)
	}

	// Round-robin from rank 0 to its 3 peers at once, against single to
	// each in turn: 3 rails carry 3 buffers in the time of one.
	single4 := srunWrite(t, env, 4, "single", rail)
	rr := srunWrite(t, env, 4, "round-robin", 3*rail)[0]
	if rr.Peers != "all" || rr.BytesSent != 3*testSize {
		t.Fatalf("round-robin sample = peers %q, %d bytes per iteration; want all 3 peers", rr.Peers, rr.BytesSent)
	}
	var singleLat uint64
	for _, s := range single4 {
		singleLat = max(singleLat, s.Lat.P50)
	}
	if r := gbps(rr) / gbps(single4[0]); r < 2.5 {
		t.Errorf("round-robin aggregate = %.2f x single, want >= 2.5", r)
	}
	if r := float64(rr.Lat.P50) / float64(singleLat); r > 1.3 {
		t.Errorf("round-robin per-buffer latency = %.2f x single, want <= 1.3", r)
	}

	// One NIC slowed to 250 Mbit/s: adaptive moves work off it, split waits for it.
	shape(t, env, "h1", "nic3", "250mbit")
	sum := (3*shaped + slow) / 1e9
	// Chunks of 256 KiB give adaptive finer grains to balance the last
	// few with (it measures 2.8 Gbps with 1 MiB, 3.1 with 256 KiB).
	adaptive := onceMore(t, "adaptive with a slow NIC",
		func() record.Sample { return srunWrite(t, env, 2, "adaptive", sum, "--chunk", "262144")[0] },
		func(s record.Sample) bool { return gbps(s) >= 0.8*sum })
	splitSlow := srunWrite(t, env, 2, "split", sum)[0]
	t.Logf("slow nic3: adaptive %.2f Gbps, split %.2f Gbps; sum of rates %.2f, 4 x slow %.2f",
		gbps(adaptive), gbps(splitSlow), sum, 4*slow/1e9)
	if g := gbps(adaptive); g < 0.8*sum {
		t.Errorf("adaptive with a slow NIC = %.2f Gbps, want >= 0.8 x %.2f", g, sum)
	}
	if g := gbps(splitSlow); g > 1.5*4*slow/1e9 {
		t.Errorf("split with a slow NIC = %.2f Gbps, want it to fall toward 4 x slow = %.2f", g, 4*slow/1e9)
	}
	if rb := adaptive.RailBytes; len(rb) != 4 || rb[3] >= rb[0] {
		t.Errorf("adaptive rail bytes = %v, want the slow rail 3 to carry less than rail 0", rb)
	}
	// Adaptive moves a byte's op between rails from one iteration to the
	// next, so a later write can pass an earlier one to the same place on
	// the slow rail: it must keep to its slots (one at 4 MiB), never run
	// ahead into one the target has not checked (which failed a check
	// here, 4 MiB in 1 MiB ops, 8 in flight per rail).
	srunWrite(t, env, 2, "adaptive", sum, "--sizes", "4194304", "--chunk", "1048576", "--window", "8",
		"--iterations", "200", "--warmup", "5")
}
