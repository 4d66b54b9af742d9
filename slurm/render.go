package slurm

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
)

// Marker files the job script writes. Each is one line of key=value pairs,
// written to a temporary file and renamed, so a reader never sees half.
// TIME is Unix seconds with nanoseconds, "1795381380.123456789".
const (
	JobStartMarker  = "job.start"  // in the job directory: job=ID nodes=NODELIST start=TIME
	JobExitMarker   = "job.exit"   // in the job directory: rc=N signal=SIG|- end=TIME
	StepStartMarker = "step.start" // in a step directory: start=TIME
	StepExitMarker  = "step.exit"  // in a step directory: rc=N signal=SIG|- end=TIME
)

// OutputName is Slurm's output file of the job script, in the job directory;
// %j is the job id.
const OutputName = "slurm-%j.out"

// StepOutput is the file, in a step's directory, that its tasks' output
// goes to; %J is the step's id, "4711.3".
const StepOutput = "step-%J.out"

// stepOutput returns srun's --output for a step in dir; a % of the path is
// doubled, as srun would read it as a pattern.
func stepOutput(dir string) string {
	return strings.ReplaceAll(dir, "%", "%%") + "/" + StepOutput
}

// Render writes the sbatch script of j. The #SBATCH lines carry the
// allocation, each value escaped for sbatch; the body runs the steps one
// after the other, every value quoted for the shell, and records through
// traps how the job and each step ended. The job exits 1 when a step
// failed, so Slurm reports it FAILED. It stops when ctx is done, returning
// its error: a job may have a million steps.
func Render(ctx context.Context, j *Job) ([]byte, error) {
	if err := j.Validate(); err != nil {
		return nil, fmt.Errorf("render job %q: %w", j.Name, err)
	}
	var b bytes.Buffer
	b.WriteString("#!/bin/bash\n")
	for _, opt := range sbatchOptions(j) {
		b.WriteString("#SBATCH " + escapeSbatch(opt) + "\n")
	}
	for _, h := range j.Header {
		b.WriteString(strings.TrimRight("# "+h, " ") + "\n")
	}
	b.WriteString(prologue)
	fmt.Fprintf(&b, "efaxx_job_dir=%s\n", Quote(j.Dir))
	b.WriteString(traps)
	for _, e := range j.Env {
		fmt.Fprintf(&b, "export %s=%s\n", e.Name, Quote(e.Value))
	}
	for i := range j.Steps {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		s := &j.Steps[i]
		fmt.Fprintf(&b, "\n# step %d: %s\n", i, s.Name)
		writeWords(&b, append([]string{"efaxx_step", Quote(s.Dir)}, srunWords(s)...))
	}
	b.WriteString("\nexit \"$efaxx_failed\"\n")
	return b.Bytes(), nil
}

// sbatchOptions returns the #SBATCH options of j, unescaped, in a fixed
// order: identity and files, then the allocation, then the extras.
func sbatchOptions(j *Job) []string {
	a := &j.Alloc
	opts := []string{
		"--job-name=" + j.Name,
		"--chdir=" + j.Dir,
		// % starts a file name pattern; %% is a literal %.
		"--output=" + strings.ReplaceAll(j.Dir, "%", "%%") + "/" + OutputName,
	}
	ints := []struct {
		name string
		n    int
	}{{"nodes", a.Nodes}, {"ntasks", a.NTasks}, {"ntasks-per-node", a.NTasksPerNode},
		{"cpus-per-task", a.CPUsPerTask}, {"gpus-per-node", a.GPUsPerNode}}
	for _, f := range ints {
		if f.n > 0 {
			opts = append(opts, "--"+f.name+"="+strconv.Itoa(f.n))
		}
	}
	strs := []struct{ name, v string }{{"partition", a.Partition}, {"account", a.Account},
		{"qos", a.QOS}, {"time", a.Time}, {"constraint", a.Constraint}}
	for _, f := range strs {
		if f.v != "" {
			opts = append(opts, "--"+f.name+"="+f.v)
		}
	}
	if a.Exclusive {
		opts = append(opts, "--exclusive")
	}
	return append(opts, a.Extra...)
}

// Argv returns the srun command line of s as the script runs it in job
// jobID: what a manifest records.
func (s *Step) Argv(jobID string) []string {
	return srunArgs(s, func(w string) string { return w }, jobID)
}

// srunWords returns the srun command of s as shell words, quoted.
func srunWords(s *Step) []string {
	return srunArgs(s, Quote, `"${SLURM_JOB_ID}"`)
}

// srunArgs returns the srun command of s, each value through quote; jobID
// stands for the job's id, which makes the container's name job-scoped.
func srunArgs(s *Step, quote func(string) string, jobID string) []string {
	w := []string{"srun", "--job-name=" + quote(s.Name)}
	for _, f := range []struct {
		name string
		n    int
	}{{"nodes", s.Nodes}, {"ntasks", s.NTasks}, {"ntasks-per-node", s.NTasksPerNode}, {"cpus-per-task", s.CPUsPerTask}} {
		if f.n > 0 {
			w = append(w, fmt.Sprintf("--%s=%d", f.name, f.n))
		}
	}
	if s.MPI != "" {
		w = append(w, "--mpi="+s.MPI)
	}
	// A rank that fails ends its step at once instead of leaving its peers
	// to wait for their deadlines. The tasks' output goes to a file named
	// after the step's id, which tells the id without accounting, each
	// line after its task's number ("1: "), which tells whose it is.
	w = append(w, "--kill-on-bad-exit=1", "--label", "--output="+quote(stepOutput(s.Dir)))
	if c := s.Container; c != nil {
		w = append(w, containerArgs(c, quote, jobID)...)
		if len(c.Env) > 0 {
			w = append(w, ContainerEnv)
		}
		for _, e := range c.Env {
			w = append(w, quote(e.Name+"="+e.Value))
		}
	}
	for _, word := range s.Command {
		w = append(w, quote(word))
	}
	return w
}

// containerArgs returns the pyxis options of c. The container's name ends
// in the job's id, so the steps of one job share one unpacked image and no
// two jobs share one.
func containerArgs(c *Container, quote func(string) string, jobID string) []string {
	w := []string{
		"--container-image=" + quote(c.Image),
		"--container-name=" + quote(c.Name+"_") + jobID,
	}
	if len(c.Mounts) > 0 {
		w = append(w, "--container-mounts="+quote(strings.Join(c.Mounts, ",")))
	}
	if c.Workdir != "" {
		w = append(w, "--container-workdir="+quote(c.Workdir))
	}
	return append(w, "--no-container-mount-home")
}

// writeWords writes one command, continuing long lines with a backslash
// so a reviewer can read it. An option and the value after it stay on one
// line.
func writeWords(b *bytes.Buffer, words []string) {
	const width = 100
	n := 0
	for i := 0; i < len(words); i++ {
		w := words[i]
		if strings.HasPrefix(w, "-") && !strings.Contains(w, "=") && i+1 < len(words) && !strings.HasPrefix(words[i+1], "-") {
			w += " " + words[i+1]
			i++
		}
		switch {
		case n == 0:
		case n+1+len(w) > width:
			b.WriteString(" \\\n\t")
			n = 8
		default:
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += len(w)
	}
	b.WriteByte('\n')
}

// prologue opens the body of every script.
const prologue = `#
# Written by efaxx. Each step runs in the background so that a signal from
# Slurm (scancel, the time limit) is handled at once; the traps record how
# the job and the step in progress ended, in marker files that efaxx reads
# when Slurm no longer knows the job.
set -u
efaxx_step_dir=
efaxx_failed=0
`

// traps defines the marker helpers, installs the traps, marks the start,
// and defines efaxx_step. The job directory is set before it.
const traps = `
# efaxx_mark FILE TEXT: write a marker in one rename, so no reader sees half.
efaxx_mark() { printf '%s\n' "$2" >"$1.tmp" && mv -f "$1.tmp" "$1"; }

# efaxx_exit RC SIGNAL: record how the job ended, and the step it was in.
efaxx_exit() {
	trap - EXIT TERM INT HUP
	local end
	end=$(date +%s.%N)
	[ -z "$efaxx_step_dir" ] || efaxx_mark "$efaxx_step_dir/step.exit" "rc=$1 signal=$2 end=$end"
	efaxx_mark "$efaxx_job_dir/job.exit" "rc=$1 signal=$2 end=$end"
	exit "$1"
}
trap 'efaxx_exit $? -' EXIT
trap 'efaxx_exit 143 TERM' TERM
trap 'efaxx_exit 130 INT' INT
trap 'efaxx_exit 129 HUP' HUP

# efaxx_step DIR COMMAND...: run one step, its output in DIR/launcher.log.
efaxx_step() {
	efaxx_step_dir=$1
	shift
	mkdir -p "$efaxx_step_dir"
	rm -f "$efaxx_step_dir/step.exit" # of a run before a requeue
	efaxx_mark "$efaxx_step_dir/step.start" "start=$(date +%s.%N)"
	"$@" >"$efaxx_step_dir/launcher.log" 2>&1 &
	wait $!
	local rc=$?
	efaxx_mark "$efaxx_step_dir/step.exit" "rc=$rc signal=- end=$(date +%s.%N)"
	efaxx_step_dir=
	[ "$rc" = 0 ] || efaxx_failed=1
}

# A requeued job runs this script again: its last run's end is not this one's.
rm -f "$efaxx_job_dir/job.exit"
efaxx_mark "$efaxx_job_dir/job.start" "job=${SLURM_JOB_ID:-} nodes=${SLURM_JOB_NODELIST:-} start=$(date +%s.%N)"
`
