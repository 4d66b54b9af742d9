package slurm

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// sbatchNames are sbatch's long options as Slurm 22.05 reads them, on its
// command line and in a script's #SBATCH lines alike (getopt_long), hidden
// ones included. TestSbatchOptions holds this list to the sbatch installed.
var sbatchNames = []string{
	"account", "acctg-freq", "array", "batch", "bb", "bbf", "begin", "chdir", "cluster", "cluster-constraint",
	"clusters", "comment", "constraint", "container", "context", "contiguous", "core-spec", "cores-per-socket",
	"cpu-freq", "cpus-per-gpu", "cpus-per-task", "deadline", "delay-boot", "dependency", "distribution", "error",
	"exclude", "exclusive", "export", "export-file", "extra-node-info", "get-user-env", "gid", "gpu-bind",
	"gpu-freq", "gpus", "gpus-per-node", "gpus-per-socket", "gpus-per-task", "gres", "gres-flags", "help", "hint",
	"hold", "ignore-pbs", "input", "job-name", "kill-on-invalid-dep", "licenses", "mail-type", "mail-user",
	"mcs-label", "mem", "mem-bind", "mem-per-cpu", "mem-per-gpu", "mincpus", "network", "nice", "no-kill",
	"no-requeue", "nodefile", "nodelist", "nodes", "ntasks", "ntasks-per-core", "ntasks-per-gpu",
	"ntasks-per-node", "ntasks-per-socket", "ntasks-per-tres", "open-mode", "output", "overcommit",
	"oversubscribe", "parsable", "partition", "power", "prefer", "priority", "profile", "propagate", "qos",
	"quiet", "reboot", "requeue", "reservation", "signal", "sockets-per-node", "spread-job", "switches",
	"tasks-per-node", "test-only", "thread-spec", "threads-per-core", "time", "time-min", "tmp", "uid", "usage",
	"use-min-nodes", "verbose", "version", "wait", "wait-all-nodes", "wckey", "wrap",
}

// sbatchAliases are the long options that set another one.
var sbatchAliases = map[string]string{"tasks-per-node": "ntasks-per-node"}

// ErrSbatchOption is wrapped by SbatchOption's errors.
var ErrSbatchOption = errors.New("not an sbatch option")

// SbatchOption returns the option sbatch reads the long option name as,
// as getopt_long does: a name is itself, or else the one option it is a
// prefix of ("arr" is "array", "tasks-per" sets "ntasks-per-node"); a
// prefix of several options that set different ones is ambiguous, and a
// name no option starts with is unknown: both are errors wrapping
// ErrSbatchOption, as sbatch refuses them.
func SbatchOption(name string) (string, error) {
	if slices.Contains(sbatchNames, name) {
		return sbatchSets(name), nil
	}
	var matches []string
	sets := map[string]bool{}
	for _, n := range sbatchNames {
		if strings.HasPrefix(n, name) {
			matches = append(matches, "--"+n)
			sets[sbatchSets(n)] = true
		}
	}
	switch {
	case name == "" || len(matches) == 0:
		return "", fmt.Errorf("--%s: %w (Slurm 22.05's sbatch)", name, ErrSbatchOption)
	case len(sets) > 1:
		return "", fmt.Errorf("--%s is ambiguous: sbatch could read it as %s: %w", name, strings.Join(matches, ", "),
			ErrSbatchOption)
	}
	return sbatchSets(strings.TrimPrefix(matches[0], "--")), nil
}

// SbatchOptionNames returns sbatch's long options, sorted.
func SbatchOptionNames() []string { return slices.Clone(sbatchNames) }

// sbatchSets returns the option that the long option name sets.
func sbatchSets(name string) string {
	if a, ok := sbatchAliases[name]; ok {
		return a
	}
	return name
}
