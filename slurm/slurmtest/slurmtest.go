// Package slurmtest starts a real Slurm cluster on this machine for a
// test, with slurm/testbed/testbed, and stops it when the test ends.
//
// Each cluster has its own munged and free ports, so it disturbs no other
// Slurm on the machine; one with hosts waits until no other testbed holds
// the namespaces. Start also holds a lock file across test binaries (go
// test runs packages in parallel) until its cluster is down again, so that
// two clusters never share the two cores; the next Start takes down a
// cluster that a killed test binary left behind.
package slurmtest

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// LockFile serializes the clusters of all test binaries; it holds the
// directory of the cluster last started.
const LockFile = "/tmp/efaxx-testbed.lock"

// Options says what cluster to start.
type Options struct {
	Hosts      int    // 0: one node in this network namespace; 2 to 4: namespace hosts with shaped NICs
	Accounting bool   // also start MariaDB and slurmdbd, so sacct answers
	MinJobAge  int    // seconds slurmctld keeps a finished job; 0 for the testbed's default (300)
	Rate       string // tc rate of every NIC; "" for the testbed's default (1gbit)
	Slow       string // one slow NIC, "h1/nic3=250mbit"; "" for none
}

// Cluster is a running testbed.
type Cluster struct {
	Options
	Dir  string // its state directory
	Conf string // its slurm.conf; Start sets SLURM_CONF to it for the test
}

// Start brings a cluster up for tb, and takes it down when tb ends, also
// when tb fails. It fails tb when it cannot: the Slurm tests need root,
// slurm-wlm, munge, and for accounting slurmdbd and mariadb-server, which
// make deps installs. With -short it skips tb.
func Start(tb testing.TB, o Options) *Cluster {
	tb.Helper()
	if testing.Short() {
		tb.Skip("slurmtest: -short: the Slurm tests start a cluster of daemons as root (make test runs them)")
	}
	if os.Geteuid() != 0 {
		tb.Fatal("slurmtest: the Slurm tests start daemons and network namespaces: run them as root (make test does)")
	}
	script := Script()
	lock := acquire(tb)
	c := &Cluster{Options: o, Dir: shortTempDir(tb)}
	c.Conf = filepath.Join(c.Dir, "etc", "slurm.conf")
	if err := os.WriteFile(LockFile, []byte(c.Dir), 0o644); err != nil {
		lock.Close()
		tb.Fatalf("slurmtest: %v", err)
	}
	tb.Cleanup(func() {
		if out, err := run(script, "down", "--dir", c.Dir); err != nil {
			tb.Errorf("slurmtest: testbed down: %v\n%s", err, out)
		}
		lock.Close() // releases the lock
	})
	if o.Hosts > 0 {
		waitNamespaces(tb)
	}
	args := []string{"up", "--dir", c.Dir, "--hosts", fmt.Sprint(o.Hosts), "--port-base", fmt.Sprint(freePorts(tb))}
	if o.Accounting {
		args = append(args, "--accounting")
	}
	if o.MinJobAge > 0 {
		args = append(args, "--min-job-age", fmt.Sprint(o.MinJobAge))
	}
	if o.Rate != "" {
		args = append(args, "--rate", o.Rate)
	}
	if o.Slow != "" {
		args = append(args, "--slow", o.Slow)
	}
	start := time.Now()
	if out, err := run(script, args...); err != nil {
		tb.Fatalf("slurmtest: testbed %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	tb.Logf("slurmtest: cluster up in %v (%s)", time.Since(start).Round(time.Millisecond), c.Dir)
	tb.Setenv("SLURM_CONF", c.Conf)
	return c
}

// freePorts returns the first of three free TCP ports in a row, for
// slurmctld, slurmd and slurmdbd.
func freePorts(tb testing.TB) int {
	tb.Helper()
	for base := 17817; base < 18817; base += 10 {
		free := true
		for p := base; p < base+3 && free; p++ {
			l, err := net.Listen("tcp", fmt.Sprintf(":%d", p))
			if err != nil {
				free = false
				continue
			}
			l.Close()
		}
		if free {
			return base
		}
	}
	tb.Fatal("slurmtest: no three free ports in a row between 17817 and 18817")
	return 0
}

// waitNamespaces waits while another testbed with hosts is up: they share
// the namespaces' names and subnets.
func waitNamespaces(tb testing.TB) {
	tb.Helper()
	deadline := time.Now().Add(10 * time.Minute)
	for {
		out, err := exec.Command("ip", "netns", "list").Output()
		if err != nil {
			tb.Fatalf("slurmtest: ip netns list: %v", err)
		}
		if !strings.Contains("\n"+string(out), "\nefx-h") {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("slurmtest: another testbed with hosts (namespaces efx-h*) stayed up 10 minutes:\n%s", out)
		}
		tb.Logf("slurmtest: waiting for another testbed's hosts to go down")
		time.Sleep(5 * time.Second)
	}
}

// Script returns the path of slurm/testbed/testbed.
func Script() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "testbed", "testbed")
}

// acquire takes the lock, waiting for another test binary's cluster to go
// down, and first takes down a cluster a killed binary left behind.
func acquire(tb testing.TB) *os.File {
	tb.Helper()
	f, err := os.OpenFile(LockFile, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		tb.Fatalf("slurmtest: %v", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		tb.Fatalf("slurmtest: lock %s: %v", LockFile, err)
	}
	if prev, _ := os.ReadFile(LockFile); len(prev) > 0 {
		if _, err := os.Stat(filepath.Join(string(prev), "etc", "slurm.conf")); err == nil {
			tb.Logf("slurmtest: taking down the cluster left in %s", prev)
			if out, err := run(Script(), "down", "--dir", string(prev)); err != nil {
				tb.Logf("slurmtest: %v\n%s", err, out)
			}
		}
	}
	return f
}

// shortTempDir returns a new directory for the cluster's state. Slurm puts
// unix sockets under it, whose paths must stay under 108 bytes, so it is
// not under tb.TempDir(), whose names grow with the test's name.
func shortTempDir(tb testing.TB) string {
	dir, err := os.MkdirTemp("", "efaxx-slurm-")
	if err != nil {
		tb.Fatalf("slurmtest: %v", err)
	}
	return dir
}

// run runs the testbed script, bounded in time, and returns its output.
func run(script string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, script, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.Bytes(), err
}

// Slurm runs a Slurm command against the cluster and returns its output.
func (c *Cluster) Slurm(tb testing.TB, name string, args ...string) string {
	tb.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), "SLURM_CONF="+c.Conf)
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}
