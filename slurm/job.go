package slurm

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// Job is a batch job: one allocation and the srun steps that run in it, one
// after the other.
type Job struct {
	Name   string   // --job-name
	Dir    string   // absolute: the script, Slurm's output and the job's markers go here; the job runs in it
	Header []string // comment lines written below the #SBATCH lines, one line each
	Alloc  Alloc
	Env    []EnvVar // exported by the script before its first step, in order
	Steps  []Step
}

// Alloc is what the job asks of sbatch. A zero field is left out, so the
// cluster's default applies.
type Alloc struct {
	Nodes         int    // --nodes
	NTasks        int    // --ntasks
	NTasksPerNode int    // --ntasks-per-node
	CPUsPerTask   int    // --cpus-per-task
	GPUsPerNode   int    // --gpus-per-node
	Partition     string // --partition
	Account       string // --account
	QOS           string // --qos
	Time          string // --time, in one of Slurm's forms ("30", "1:00:00", "1-12")
	Constraint    string // --constraint
	Exclusive     bool   // --exclusive
	Extra         []string
}

// EnvVar is one environment variable the script exports.
type EnvVar struct {
	Name  string // a shell variable name
	Value string // any text without control characters
}

// Step is one srun inside the job. Its standard output and error go to
// Dir/launcher.log, and the script writes the step's markers into Dir.
type Step struct {
	Name          string // srun --job-name: sacct lists the step under it
	Dir           string // absolute; created by the script if missing
	Nodes         int    // srun --nodes; 0 leaves it out
	NTasks        int    // srun --ntasks; 0 leaves it out
	NTasksPerNode int    // srun --ntasks-per-node; 0 leaves it out
	CPUsPerTask   int    // srun --cpus-per-task, the job's again: srun 22.05 to 23.02 do not inherit it; 0 leaves it out
	MPI           string // srun --mpi ("pmix", "pmi2", "none"); "" leaves the cluster's MpiDefault
	Container     *Container
	Command       []string // the program and its arguments, run by srun once per task
}

// Container runs a step in a container through pyxis.
type Container struct {
	Image   string   // --container-image: a squashfs path or a registry reference
	Name    string   // --container-name, made job-scoped: the script appends _$SLURM_JOB_ID
	Mounts  []string // --container-mounts, each SRC:DST[:FLAGS]
	Workdir string   // --container-workdir; "" leaves the image's
	// Env is set inside the container only, over the image's own: the
	// command runs under ContainerEnv with NAME=VALUE words, so neither
	// the job script nor srun ever sees these values.
	Env []EnvVar
}

// ContainerEnv is env(1) in the image, by its path, which sets a
// container's Env for the step's command.
const ContainerEnv = "/usr/bin/env"

// LogName is the file, in a step's directory, that holds srun's output.
const LogName = "launcher.log"

var (
	envName       = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	containerName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)
	sbatchOption  = regexp.MustCompile(`^--[a-z][a-z0-9-]*(=.*)?$`)
	mpiPlugin     = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
)

// Validate reports the first value of j that a script cannot carry: line
// breaks and other control characters anywhere, the words sbatch reads as
// job separators on #SBATCH lines, relative directories, and the few
// values with a syntax of their own (variable names, mounts, options).
func (j *Job) Validate() error {
	if len(j.Steps) == 0 {
		return errors.New("job has no steps")
	}
	if err := CheckDir("job directory", j.Dir); err != nil {
		return err
	}
	if err := CheckSbatchValue("job name", j.Name); err != nil {
		return err
	}
	for _, h := range j.Header {
		if err := CheckValue("header line", h); err != nil {
			return err
		}
	}
	if err := j.Alloc.validate(); err != nil {
		return err
	}
	for _, e := range j.Env {
		if err := e.validate(); err != nil {
			return err
		}
	}
	for i := range j.Steps {
		if err := j.Steps[i].validate(); err != nil {
			return fmt.Errorf("step %d: %w", i, err)
		}
	}
	return nil
}

// CheckDir accepts an absolute path that Slurm's output file patterns and
// a script line can carry.
func CheckDir(what, dir string) error {
	if err := CheckSbatchValue(what, dir); err != nil {
		return err
	}
	if !filepath.IsAbs(dir) {
		return fmt.Errorf("%s %q: not an absolute path", what, dir)
	}
	if strings.Contains(dir, `\`) {
		// A backslash in an --output path turns Slurm's %j patterns off.
		return fmt.Errorf("%s %q: holds a backslash, which Slurm's file name patterns cannot carry", what, dir)
	}
	return nil
}

func (a *Alloc) validate() error {
	for _, f := range []struct{ what, v string }{
		{"partition", a.Partition}, {"account", a.Account}, {"qos", a.QOS},
		{"time", a.Time}, {"constraint", a.Constraint},
	} {
		if err := CheckSbatchValue(f.what, f.v); err != nil {
			return err
		}
	}
	for _, n := range []int{a.Nodes, a.NTasks, a.NTasksPerNode, a.CPUsPerTask, a.GPUsPerNode} {
		if n < 0 {
			return fmt.Errorf("negative count %d in the allocation", n)
		}
	}
	for _, opt := range a.Extra {
		if err := CheckSbatchValue("sbatch option", opt); err != nil {
			return err
		}
		if !sbatchOption.MatchString(opt) {
			return fmt.Errorf("sbatch option %q: want --name or --name=value", opt)
		}
	}
	return nil
}

func (e EnvVar) validate() error {
	if !envName.MatchString(e.Name) {
		return fmt.Errorf("environment variable name %q: want letters, digits and '_', not starting with a digit", e.Name)
	}
	return CheckValue("environment variable "+e.Name, e.Value)
}

func (s *Step) validate() error {
	if err := CheckDir("step directory", s.Dir); err != nil {
		return err
	}
	if err := CheckValue("step name", s.Name); err != nil {
		return err
	}
	if s.MPI != "" && !mpiPlugin.MatchString(s.MPI) {
		return fmt.Errorf("mpi plugin %q: want a plugin name like pmix", s.MPI)
	}
	if len(s.Command) == 0 {
		return errors.New("no command")
	}
	for _, w := range s.Command {
		if err := CheckValue("command word", w); err != nil {
			return err
		}
	}
	if s.Container == nil {
		return nil
	}
	if len(s.Container.Env) > 0 && strings.Contains(s.Command[0], "=") {
		// env(1) would take the program for one more variable.
		return fmt.Errorf("command %q: holds '=', which %s reads as a variable", s.Command[0], ContainerEnv)
	}
	return s.Container.validate()
}

func (c *Container) validate() error {
	if c.Image == "" {
		return errors.New("container without an image")
	}
	if !containerName.MatchString(c.Name) {
		return fmt.Errorf("container name %q: want letters, digits, '_', '.' and '-'", c.Name)
	}
	for _, v := range append([]string{c.Image, c.Workdir}, c.Mounts...) {
		if err := CheckValue("container value", v); err != nil {
			return err
		}
	}
	for _, m := range c.Mounts {
		if strings.Contains(m, ",") {
			return fmt.Errorf("container mount %q: holds a comma, which separates mounts", m)
		}
		if err := checkPyxisShell("container mount", m); err != nil {
			return err
		}
	}
	if err := checkPyxisShell("container workdir", c.Workdir); err != nil {
		return err
	}
	for _, e := range c.Env {
		if err := e.validate(); err != nil {
			return fmt.Errorf("container %w", err)
		}
	}
	return nil
}

// PyxisShellChars are the characters a mount, or a path under one, may not
// hold: pyxis writes each mount into a script as echo "SRC DST FLAGS",
// escaping only whitespace and backslashes, and enroot sources that
// script, so within the double quotes '$' and '`' would expand or run
// commands, and '"' and '\\' would end or escape the word.
const PyxisShellChars = "$`\"\\"

// checkPyxisShell refuses a value holding one of PyxisShellChars.
func checkPyxisShell(what, v string) error {
	if i := strings.IndexAny(v, PyxisShellChars); i >= 0 {
		return fmt.Errorf("%s %q: holds %q, which pyxis and enroot read through a shell", what, v, v[i:i+1])
	}
	return nil
}
