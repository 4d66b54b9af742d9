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
	"errors"
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
	Pyxis      bool   // load pyxis in every slurmd, with enroot built from its pinned release (enroot/runtime)
}

// Cluster is a running testbed.
type Cluster struct {
	Options
	Dir  string // its state directory
	Conf string // its slurm.conf; Start sets SLURM_CONF to it for the test, and PATH to Bin too with Pyxis
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
	start := time.Now()
	c, down, err := Up(o, tb.Logf)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := down(); err != nil {
			tb.Error(err)
		}
	})
	tb.Logf("slurmtest: cluster up in %v (%s)", time.Since(start).Round(time.Millisecond), c.Dir)
	tb.Setenv("SLURM_CONF", c.Conf)
	if o.Pyxis {
		tb.Setenv("PATH", c.Bin()+":"+os.Getenv("PATH"))
	}
	return c
}

// Bin is where a cluster started with Pyxis has enroot: its nodes see it
// as /usr/local/bin. Start puts it on the test's PATH.
func (c *Cluster) Bin() string { return filepath.Join(c.Dir, "usr", "bin") }

// Up brings a cluster up outside a test (a benchmark, say): it holds the
// lock while the cluster is up, waiting for another's to go down, and
// returns the function that takes it down and releases the lock. logf
// says what it waits for.
func Up(o Options, logf func(format string, args ...any)) (c *Cluster, down func() error, err error) {
	if os.Geteuid() != 0 {
		return nil, nil, errors.New("slurmtest: a testbed starts daemons and network namespaces: run as root (make test does)")
	}
	script := Script()
	lock, err := acquire(logf)
	if err != nil {
		return nil, nil, err
	}
	// Not under a test's TempDir, whose name grows with the test's: Slurm
	// puts unix sockets under it, whose paths must stay under 108 bytes.
	dir, err := os.MkdirTemp("", "efaxx-slurm-")
	if err == nil {
		err = os.WriteFile(LockFile, []byte(dir), 0o644)
	}
	if err != nil {
		lock.Close()
		return nil, nil, fmt.Errorf("slurmtest: %w", err)
	}
	c = &Cluster{Options: o, Dir: dir, Conf: filepath.Join(dir, "etc", "slurm.conf")}
	down = func() error {
		defer lock.Close() // releases the lock
		if out, err := run(script, "down", "--dir", c.Dir); err != nil {
			return fmt.Errorf("slurmtest: testbed down: %v\n%s", err, out)
		}
		return nil
	}
	fail := func(err error) (*Cluster, func() error, error) {
		if derr := down(); derr != nil {
			logf("%v", derr)
		}
		return nil, nil, err
	}
	if o.Hosts > 0 {
		if err := waitNamespaces(logf); err != nil {
			return fail(err)
		}
	}
	ports, err := freePorts()
	if err != nil {
		return fail(err)
	}
	args := []string{"up", "--dir", c.Dir, "--hosts", fmt.Sprint(o.Hosts), "--port-base", fmt.Sprint(ports)}
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
	if o.Pyxis {
		args = append(args, "--pyxis")
	}
	if out, err := run(script, args...); err != nil {
		return fail(fmt.Errorf("slurmtest: testbed %s: %v\n%s", strings.Join(args, " "), err, out))
	}
	return c, down, nil
}

// freePorts returns the first of three free TCP ports in a row, for
// slurmctld, slurmd and slurmdbd.
func freePorts() (int, error) {
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
			return base, nil
		}
	}
	return 0, errors.New("slurmtest: no three free ports in a row between 17817 and 18817")
}

// waitNamespaces waits while another testbed with hosts is up: they share
// the namespaces' names and subnets. Hosts that no process uses are what a
// killed testbed left (the lock says no test's cluster is up): testbed
// reap removes them, rather than waiting for a down that never comes.
func waitNamespaces(logf func(string, ...any)) error {
	deadline := time.Now().Add(10 * time.Minute)
	for {
		out, err := exec.Command("ip", "netns", "list").Output()
		if err != nil {
			return fmt.Errorf("slurmtest: ip netns list: %w", err)
		}
		if !strings.Contains("\n"+string(out), "\nefx-h") {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("slurmtest: another testbed with hosts (namespaces efx-h*) stayed up 10 minutes:\n%s", out)
		}
		pause := 5 * time.Second
		if out, err := run(Script(), "reap"); err == nil {
			logf("slurmtest: %s", bytes.TrimSpace(out))
			pause = time.Second // ip netns list once more, to be sure
		} else {
			logf("slurmtest: waiting for another testbed's hosts to go down (%s)", bytes.TrimSpace(out))
		}
		time.Sleep(pause)
	}
}

// Script returns the path of slurm/testbed/testbed.
func Script() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "testbed", "testbed")
}

// acquire takes the lock, waiting for another cluster to go down, and
// first takes down a cluster a killed process left behind.
func acquire(logf func(string, ...any)) (*os.File, error) {
	f, err := os.OpenFile(LockFile, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("slurmtest: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("slurmtest: lock %s: %w", LockFile, err)
	}
	if prev, _ := os.ReadFile(LockFile); len(prev) > 0 {
		if _, err := os.Stat(filepath.Join(string(prev), "etc", "slurm.conf")); err == nil {
			logf("slurmtest: taking down the cluster left in %s", prev)
			if out, err := run(Script(), "down", "--dir", string(prev)); err != nil {
				logf("slurmtest: %v\n%s", err, out)
			}
		}
	}
	return f, nil
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

// Enroot runs enroot as host sees it (its paths and network), on a
// cluster started with Pyxis, and returns its output.
func (c *Cluster) Enroot(tb testing.TB, host string, args ...string) string {
	tb.Helper()
	out, err := run(Script(), append([]string{"enroot", "--dir", c.Dir, host}, args...)...)
	if err != nil {
		tb.Fatalf("testbed enroot %s %s: %v\n%s", host, strings.Join(args, " "), err, out)
	}
	return string(out)
}
