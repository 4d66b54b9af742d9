package harness

import (
	"strings"
	"testing"
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
		{"nothing", "\n\n", ""},
		{"a long line: its last 500 bytes", "x\n" + strings.Repeat("y", 600) + "z\n", strings.Repeat("y", 499) + "z"},
		{"long lines: the last 500 bytes from a line's start", strings.Repeat(strings.Repeat("w", 150)+"\n", 4) + "end\n",
			strings.Repeat(strings.Repeat("w", 150)+"; ", 3) + "end"},
	} {
		if got := crashLines(c.text, 5); got != c.want {
			t.Errorf("%s: crashLines = %q, want %q", c.name, got, c.want)
		}
	}
}
