package harness

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"
)

// TestAliveZombie: a killed child that nobody has reaped yet is a zombie;
// its shm regions are free to remove, so alive must say no.
func TestAliveZombie(t *testing.T) {
	if !alive(os.Getpid()) {
		t.Fatal("alive(own pid) = false")
	}
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	if !alive(pid) {
		t.Errorf("alive(running sleep) = false")
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	// Not reaped: wait until the kernel shows it as a zombie.
	deadline := time.Now().Add(10 * time.Second)
	for !zombie(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("pid %d never became a zombie", pid)
		}
		time.Sleep(time.Millisecond)
	}
	if alive(pid) {
		t.Errorf("alive(zombie %d) = true", pid)
	}
	cmd.Wait()
	if alive(pid) {
		t.Errorf("alive(reaped %d) = true", pid)
	}
}

func zombie(pid int) bool {
	stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	return bytes.Contains(stat, []byte(") Z "))
}
