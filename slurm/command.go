package slurm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"
)

// Commander runs one command (sbatch, sacct, ...) and returns its standard
// output. A command that exits non-zero gives a *CommandError.
type Commander interface {
	Run(ctx context.Context, name string, args ...string) ([]byte, error)
}

// CommandError is a command that ran and exited non-zero, with what it
// said on standard error: Slurm's own message.
type CommandError struct {
	Name   string
	Args   []string
	Code   int
	Stderr string
}

// ErrNoCluster is what a Slurm command's error wraps when there is no
// cluster to ask where it ran: no cluster is configured (no slurm.conf, no
// SLURM_CONF, no DNS SRV record; Slurm's own words: "Could not establish a
// configuration source"), or Slurm is not installed (a *NotInstalledError).
// NoClusterHere says which.
var ErrNoCluster = errors.New("no Slurm cluster is configured")

// NotInstalledError is a Slurm command that is not on PATH: Slurm is not
// installed here. It wraps ErrNoCluster and the error that said so
// (exec.ErrNotFound), whose words it keeps.
type NotInstalledError struct {
	Name string // the command: sinfo, srun, sbatch, ...
	Err  error
}

func (e *NotInstalledError) Error() string   { return e.Err.Error() }
func (e *NotInstalledError) Unwrap() []error { return []error{ErrNoCluster, e.Err} }

// NoClusterHere says, for a user, why err (which wraps ErrNoCluster) found
// no cluster: Slurm is not installed, or no cluster is configured.
func NoClusterHere(err error) string {
	var ni *NotInstalledError
	if errors.As(err, &ni) {
		return fmt.Sprintf("Slurm is not installed here (no %s on PATH)", ni.Name)
	}
	return "no Slurm cluster is configured here (no slurm.conf, SLURM_CONF or DNS SRV record)"
}

// run runs a Slurm command through c's Commander. A command not found on
// PATH says Slurm is not installed: its error is a *NotInstalledError, so
// that it wraps ErrNoCluster as a command that finds no configuration does.
func (c *Client) run(ctx context.Context, name string, args ...string) ([]byte, error) {
	out, err := c.Commander.Run(ctx, name, args...)
	if err != nil && errors.Is(err, exec.ErrNotFound) {
		err = &NotInstalledError{Name: name, Err: err}
	}
	return out, err
}

// Unwrap returns ErrNoCluster when the command found no cluster to ask.
func (e *CommandError) Unwrap() error {
	if strings.Contains(e.Stderr, "Could not establish a configuration source") {
		return ErrNoCluster
	}
	return nil
}

// Error returns "sbatch: exit status 1: sbatch: error: ...".
func (e *CommandError) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" {
		return fmt.Sprintf("%s: exit status %d", e.Name, e.Code)
	}
	return fmt.Sprintf("%s: exit status %d: %s", e.Name, e.Code, strings.Join(strings.Fields(msg), " "))
}

// ExecCommander runs commands as processes. Times come out as Unix seconds
// (SLURM_TIME_FORMAT=%s), and every command is bounded by Timeout so that a
// slurmctld that does not answer cannot hang efaxx.
type ExecCommander struct {
	Timeout time.Duration // per command; 0 means one minute
}

var _ Commander = (*ExecCommander)(nil)

// Run runs name with args and returns its standard output.
func (r *ExecCommander) Run(ctx context.Context, name string, args ...string) ([]byte, error) {
	timeout := r.Timeout
	if timeout == 0 {
		timeout = time.Minute
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), "SLURM_TIME_FORMAT=%s")
	if name == "sbatch" {
		cmd.Env = slices.DeleteFunc(cmd.Env, func(kv string) bool {
			k, _, _ := strings.Cut(kv, "=")
			return sbatchEnvIgnored[k] || strings.HasPrefix(k, pyxisEnvPrefix)
		})
	}
	// In a process group of its own, a Ctrl-C at the terminal reaches
	// efaxx alone, which stops each command through ctx, or lets it finish.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return stdout.Bytes(), nil
	case parent.Err() != nil:
		// The caller stopped it, not Slurm's silence; the cause (a
		// signal) says how efaxx should exit.
		return nil, fmt.Errorf("%s: stopped: %w", name, context.Cause(parent))
	case ctx.Err() != nil:
		return nil, fmt.Errorf("%s: no answer within %s: %w", name, timeout, ctx.Err())
	case errors.As(err, &exit):
		return stdout.Bytes(), &CommandError{Name: name, Args: args, Code: exit.ExitCode(), Stderr: stderr.String()}
	}
	return nil, fmt.Errorf("%s: %w", name, err)
}

// MaybeSubmitted reports whether err, from sbatch, leaves it unknown
// whether slurmctld took the job: sbatch gave no answer in time, or its
// message to slurmctld timed out ("Socket timed out on send/recv
// operation"), which a busy slurmctld may have handled all the same.
func MaybeSubmitted(err error) bool {
	var ce *CommandError
	return errors.Is(err, context.DeadlineExceeded) ||
		errors.As(err, &ce) && strings.Contains(ce.Stderr, "Socket timed out")
}

// sbatchEnvIgnored are the variables of sbatch's environment that would
// set what efaxx's scripts set no option for but cannot have: an array
// (its tasks would share the steps' run directories, and efaxx would
// track the array as one job), --wait (sbatch would block until the job
// ends, and be killed at the Commander's timeout, its job untracked),
// another cluster than the one efaxx's squeue, sacct and scancel ask
// (SLURM_CLUSTERS stays: squeue, scontrol and scancel read it too, and
// follow the job there), or a file of its own for the script's standard
// error (Slurm's word on how the job ended goes there, which efaxx reads
// from the job's output). These are the options a sweep's extra may not
// set either.
var sbatchEnvIgnored = map[string]bool{
	"SBATCH_ARRAY_INX": true, "SBATCH_WAIT": true, "SBATCH_CLUSTERS": true, "SBATCH_ERROR": true,
}

// pyxisEnvPrefix starts the variables that pyxis reads as its
// --container-* options where a command line sets none: in sbatch (the
// job script would run in a container), and in each srun step, whose
// environment sbatch hands the job. A PYXIS_CONTAINER_IMAGE of the user's
// shell would run a sweep without [container] in an image, and
// PYXIS_CONTAINER_WORKDIR or _REMAP_ROOT change a container sweep's: the
// sweep alone says how its steps run.
const pyxisEnvPrefix = "PYXIS_CONTAINER_"

// invalidJobID reports whether err is Slurm saying it knows none of the
// job ids it was asked about.
func invalidJobID(err error) bool {
	var ce *CommandError
	return errors.As(err, &ce) && strings.Contains(ce.Stderr, "Invalid job id")
}
