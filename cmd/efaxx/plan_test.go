package main

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// countingContext is a context that is never done but counts how often
// its Err is asked, and says it was cancelled once that has been asked
// more than limit times (never, with limit < 0): it stops a command at a
// chosen point of its work, the same point each time.
type countingContext struct {
	context.Context
	asked, limit int
}

func (c *countingContext) Err() error {
	c.asked++
	if c.limit >= 0 && c.asked > c.limit {
		return context.Canceled
	}
	return nil
}

// bigSweep writes a sweep of n write points (iterations 1..n) on Slurm,
// and returns its path.
func bigSweep(t *testing.T, n int) string {
	iters := make([]string, n)
	for i := range iters {
		iters[i] = fmt.Sprint(i + 1)
	}
	return writeFile(t, filepath.Join(t.TempDir(), "big.toml"), "name = \"big\"\nbenchmark = \"write\"\n[params]\niterations = ["+
		strings.Join(iters, ",")+"]\n[slurm]\ntime = \"10\"\n")
}

// TestPlanInterrupted: a plan, with or without its Slurm jobs, stops when
// its context is done, at any point of its work, with exit status 130 and
// efaxx: interrupted; a context a signal ended gives that signal's status.
// Each pass over the points looks at the context at every point: the
// expansion and the table; with --slurm also the steps of the jobs, their
// scripts and the table of steps.
func TestPlanInterrupted(t *testing.T) {
	const points = 2000
	sweep := bigSweep(t, points)
	for _, tt := range []struct {
		slurm  string
		passes int
	}{{"--slurm", 5}, {"--slurm=false", 2}} {
		args := []string{"efaxx", "plan", tt.slurm, sweep, "--runner", "/opt/efaxx/bin/efaxx-runner"}
		whole := &countingContext{Context: t.Context(), limit: -1}
		if code := run(whole, args, new(bytes.Buffer), new(bytes.Buffer)); code != 0 || whole.asked < tt.passes*points {
			t.Fatalf("plan %s = %d, asked its context %d times, want 0 and at least %d times a point (%d)",
				tt.slurm, code, whole.asked, tt.passes, tt.passes*points)
		}
		for _, limit := range []int{0, whole.asked / 4, whole.asked / 2, whole.asked * 3 / 4, whole.asked - 1} {
			var stdout, stderr bytes.Buffer
			code := run(&countingContext{Context: t.Context(), limit: limit}, args, &stdout, &stderr)
			if code != 130 || stderr.String() != "efaxx: interrupted\n" {
				t.Errorf("plan %s cancelled after %d of %d checks = %d, stderr %q; want 130, efaxx: interrupted",
					tt.slurm, limit, whole.asked, code, stderr.String())
			}
		}
	}

	ctx, cancel := context.WithCancelCause(t.Context())
	cancel(interrupted{syscall.SIGTERM})
	var stdout, stderr bytes.Buffer
	if code := run(ctx, []string{"efaxx", "plan", sweep}, &stdout, &stderr); code != 143 || stdout.Len() != 0 ||
		stderr.String() != "efaxx: terminated (SIGTERM)\n" {
		t.Errorf("plan after SIGTERM = %d, stdout %d bytes, stderr %q; want 143, nothing, efaxx: terminated (SIGTERM)",
			code, stdout.Len(), stderr.String())
	}
}

// TestPlanShowsLongLines: plan prints every line of a script, however
// long: the lines after a long one (a point of 200,000 sizes made a 1.4
// MB runner line) were dropped without a word. A point's sizes are now
// 4096 at most and any one word 128 KiB; a nics value of that length
// (131071 bytes and its NUL) makes a line twice bufio.Scanner's default.
func TestPlanShowsLongLines(t *testing.T) {
	nics := strings.Repeat("n", 131071)
	sweep := writeFile(t, filepath.Join(t.TempDir(), "sizes.toml"), "name = \"sizes\"\nbenchmark = \"write\"\n[params]\nnics = \""+
		nics+"\"\n[slurm]\ntime = \"10\"\n")
	code, stdout, stderr := efaxx(t, "plan", "--runner", "/opt/efaxx-runner", sweep)
	if code != 0 || !strings.HasSuffix(stdout, "exit \"$efaxx_failed\"\n") || !strings.Contains(stdout, "--nic "+nics+" \\\n") {
		t.Errorf("plan = %d, want the whole script, its end and its long line included\nstderr:\n%s\nend of stdout:\n%s",
			code, stderr, stdout[max(0, len(stdout)-500):])
	}
}
