package slurm_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"efaxx/slurm"
)

// TestExecCommanderOwnGroup: a command runs in a process group of its
// own, so that a Ctrl-C at the terminal does not kill an sbatch midway.
func TestExecCommanderOwnGroup(t *testing.T) {
	// The shell's pid, and its process group from /proc.
	out, err := (&slurm.ExecCommander{}).Run(t.Context(), "sh", "-c", `echo $$ $(cut -d" " -f5 /proc/$$/stat)`)
	if err != nil {
		t.Fatal(err)
	}
	if f := strings.Fields(string(out)); len(f) != 2 || f[0] != f[1] {
		t.Errorf("pid and process group = %q, want a group led by the command", out)
	}
}

// TestExecCommanderStopped: a command stopped through its context says
// so, and carries the cause, rather than blaming Slurm for not answering.
func TestExecCommanderStopped(t *testing.T) {
	stop := errors.New("interrupted (SIGINT)")
	ctx, cancel := context.WithCancelCause(t.Context())
	time.AfterFunc(50*time.Millisecond, func() { cancel(stop) })
	_, err := (&slurm.ExecCommander{}).Run(ctx, "sleep", "10")
	if !errors.Is(err, stop) || strings.Contains(err.Error(), "no answer") {
		t.Errorf("Run = %v, want the cause, not a timeout", err)
	}
}
