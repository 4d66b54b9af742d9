package slurmtest

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestReap: testbed reap leaves hosts alone while a process is in one or
// they are under a minute old, and removes them after. The hosts are named
// efxr-h*, so no testbed of other tests is touched.
func TestReap(t *testing.T) {
	if testing.Short() || os.Geteuid() != 0 {
		t.Skip("needs root for ip netns (and a minute): not in -short")
	}
	netns := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("ip", append([]string{"netns"}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("ip netns %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	hosts := []string{"efxr-h1", "efxr-h2"}
	for _, ns := range hosts {
		netns("add", ns)
	}
	t.Cleanup(func() {
		for _, ns := range hosts {
			exec.Command("ip", "netns", "del", ns).Run()
		}
	})
	reap := func() (string, error) {
		cmd := exec.Command(Script(), "reap")
		cmd.Env = append(os.Environ(), "EFAXX_TESTBED_PREFIX=efxr")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	listed := func() bool {
		out, _ := exec.Command("ip", "netns", "list").Output()
		return strings.Contains(string(out), "efxr-h")
	}

	if out, err := reap(); err == nil || !strings.Contains(out, "under a minute old") || !listed() {
		t.Fatalf("reap of hosts just made = %v, %q; want them kept", err, out)
	}
	time.Sleep(61 * time.Second)
	sleeper := exec.Command("ip", "netns", "exec", "efxr-h2", "sleep", "60")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if pids, _ := exec.Command("ip", "netns", "pids", "efxr-h2").Output(); len(pids) > 0 {
			break
		}
	}
	out, err := reap()
	sleeper.Process.Kill()
	sleeper.Wait()
	if err == nil || !strings.Contains(out, "efxr-h2 has processes") || !listed() {
		t.Fatalf("reap with a process in a host = %v, %q; want them kept", err, out)
	}
	if out, err := reap(); err != nil || !strings.Contains(out, "reaped the hosts") || listed() {
		t.Fatalf("reap of old, empty hosts = %v, %q; want them gone", err, out)
	}
}
