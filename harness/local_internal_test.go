package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"efaxx/slurm"
)

func TestCounted(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{{0, "0 samples"}, {1, "1 sample"}, {2, "2 samples"}} {
		if got := counted(c.n, "sample"); got != c.want {
			t.Errorf("counted(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}

// ipathCrash is a Slurm step's output (srun --output, every task's lines)
// where one rank died at start-up of a fault in C code, which the Go
// runtime forwarded to libinfinipath's handler, and srun stopped the
// others (the testbed, 2026-11-28).
const ipathCrash = "\nefaxx-runner:16385 terminated with signal 11 at PC=0 SP=7ffed3f21958.  Backtrace:\n" +
	"/lib/x86_64-linux-gnu/libinfinipath.so.4(+0x431f)[0x7f4f43c8c31f]\n/work/main/bin/efaxx-runner[0x48d440]\n" +
	"efaxx-runner: stopped by SIGTERM\nefaxx-runner: stopped by SIGTERM\n" +
	"slurmstepd-h1: error: *** STEP 13.1 ON h1 CANCELLED AT 2026-11-28T10:00:44 ***\nefaxx-runner: stopped by SIGTERM\n"

func TestCrashLines(t *testing.T) {
	goTrace := "efaxx-runner: removed /dev/shm/1:2:3\n" +
		"SIGSEGV: segmentation violation\nPC=0x5452e0 m=0 sigcode=1 addr=0x0\nsignal arrived during cgo execution\n\n" +
		"goroutine 1 gp=0x1 m=0 mp=0x2 [syscall, locked to thread]:\nruntime.cgocall(0x53b970, 0x71c6ac82798)\n" +
		"\t/usr/local/go/src/runtime/cgocall.go:167 +0x4b\n\nrip    0x5452e0\nrflags 0x10246\ncs     0x33\n"
	for _, c := range []struct{ name, text, want string }{
		{"go crash: its head, not the registers", goTrace, "SIGSEGV: segmentation violation; PC=0x5452e0 m=0 sigcode=1 addr=0x0; " +
			"signal arrived during cgo execution; goroutine 1 gp=0x1 m=0 mp=0x2 [syscall, locked to thread]:; " +
			"runtime.cgocall(0x53b970, 0x71c6ac82798)"},
		{"go panic near the end", "a\nb\npanic: boom\n\ngoroutine 1 [running]:\n", "panic: boom; goroutine 1 [running]:"},
		{"no crash report: the last lines", "1\n2\n3\n\n4\n5\n6\n", "2; 3; 4; 5; 6"},
		{"libinfinipath's report, then peers stopped", ipathCrash, "efaxx-runner:16385 terminated with signal 11 at " +
			"PC=0 SP=7ffed3f21958.  Backtrace:; /lib/x86_64-linux-gnu/libinfinipath.so.4(+0x431f)[0x7f4f43c8c31f]; " +
			"/work/main/bin/efaxx-runner[0x48d440]; efaxx-runner: stopped by SIGTERM; efaxx-runner: stopped by SIGTERM"},
		{"nothing", "\n\n", ""},
		{"a long line: its last 500 bytes", "x\n" + strings.Repeat("y", 600) + "z\n", strings.Repeat("y", 499) + "z"},
		{"long lines: the last 500 bytes from a line's start", strings.Repeat(strings.Repeat("w", 150)+"\n", 4) + "end\n",
			strings.Repeat(strings.Repeat("w", 150)+"; ", 3) + "end"},
	} {
		if got, _ := crashLines(c.text, 5, false); got != c.want {
			t.Errorf("%s: crashLines = %q, want %q", c.name, got, c.want)
		}
	}
}

// ipathCrashLabeled is ipathCrash as srun --label writes it (Slurm 22.05
// on the testbed, stdout and stderr alike; slurmstepd's own line under
// task 0; with 10 tasks or more the numbers are right-aligned, " 3: "):
// rank 1 crashed, its report's lines among rank 0's and rank 2's.
const ipathCrashLabeled = "1: efaxx-runner:16385 terminated with signal 11 at PC=0 SP=7ffed3f21958.  Backtrace:\n" +
	"0: efaxx-runner: stopped by SIGTERM\n1: /lib/x86_64-linux-gnu/libinfinipath.so.4(+0x431f)[0x7f4f43c8c31f]\n" +
	"2: efaxx-runner: stopped by SIGTERM\n1: /work/main/bin/efaxx-runner[0x48d440]\n" +
	"0: slurmstepd-h1: error: *** STEP 13.1 ON h1 CANCELLED AT 2026-11-28T10:00:44 ***\n"

// TestCrashLinesLabeled: in a step's output, where srun --label puts every
// task's number before its lines, a crash report is the crashed task's
// lines alone, named by its rank; without a crash, the last lines as
// they are.
func TestCrashLinesLabeled(t *testing.T) {
	for _, c := range []struct {
		name, text string
		n          int
		crashed    bool
		want       string
	}{
		{"rank 1's report, not its peers' lines", ipathCrashLabeled, 3, true,
			"rank 1: efaxx-runner:16385 terminated with signal 11 at PC=0 SP=7ffed3f21958.  Backtrace:; " +
				"/lib/x86_64-linux-gnu/libinfinipath.so.4(+0x431f)[0x7f4f43c8c31f]; /work/main/bin/efaxx-runner[0x48d440]"},
		{"two digits, right-aligned", " 3: x\n12: panic: boom\n 3: y\n12: goroutine 1 [running]:\n", 2, true,
			"rank 12: panic: boom; goroutine 1 [running]:"},
		{"no crash: the last lines", "0: a\n1: b\n0: c\n", 2, false, "1: b; 0: c"},
	} {
		got, crashed := crashLines(c.text, c.n, true)
		if got != c.want || crashed != c.crashed {
			t.Errorf("%s: crashLines = %q, %v; want %q, %v", c.name, got, crashed, c.want, c.crashed)
		}
	}
	// Unlabeled text keeps a line that looks like a label as it is.
	if got, _ := crashLines("12: panic: boom\n", 2, false); got != "12: panic: boom" {
		t.Errorf("unlabeled crashLines = %q, want the line as it is", got)
	}
}

// TestLaunchErrorQuotesTheCrash: when a rank crashed before any rank wrote
// an end record, the reason quotes the crashed rank's stderr, not rank
// 0's, which mpirun stopped; without a crash report, the lowest rank
// without an end record.
func TestLaunchErrorQuotesTheCrash(t *testing.T) {
	dir := t.TempDir()
	stderr := func(r int, text string) {
		d := filepath.Join(dir, rankOutput, "1", fmt.Sprintf("rank.%d", r))
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "stderr"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stderr(0, "efaxx-runner: stopped by SIGTERM\n")
	stderr(1, "efaxx-runner: stopped by SIGTERM\n")
	stderr(2, "efaxx-runner:16385 terminated with signal 11 at PC=0 SP=7ffed3f21958.  Backtrace:\n")
	got := launchError(dir, 3)
	if want := "rank 2's stderr: efaxx-runner:16385 terminated with signal 11"; !strings.Contains(got, want) {
		t.Errorf("launchError = %q, want it to quote %q", got, want)
	}
	stderr(2, "efaxx-runner: stopped by SIGTERM\n")
	if got, want := launchError(dir, 3), "rank 0's stderr: efaxx-runner: stopped by SIGTERM"; !strings.Contains(got, want) {
		t.Errorf("launchError without a crash = %q, want the lowest rank's %q", got, want)
	}
}

// TestStepOutputTailQuotesTheCrash: a Slurm step's reason names the crash
// in its tasks' output, not the peers srun stopped after it.
func TestStepOutputTailQuotesTheCrash(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "step-13.1.out")
	if err := os.WriteFile(out, []byte(ipathCrashLabeled), 0o644); err != nil {
		t.Fatal(err)
	}
	got := stepOutputTail(dir, slurm.StepMarkers{Output: out})
	if want := "rank 1: efaxx-runner:16385 terminated with signal 11 at PC=0"; !strings.Contains(got, want) {
		t.Errorf("stepOutputTail = %q, want it to name %q", got, want)
	}
}
