package slurm_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"efaxx/slurm"
	"efaxx/slurm/slurmtest"
)

// TestSbatchOptions holds efaxx's table of sbatch's long options to the
// sbatch installed: each letter starts the same options in both, each
// option sets what the table says, and sbatch and SbatchOption read
// every prefix of every option alike (the same option, or ambiguous).
func TestSbatchOptions(t *testing.T) {
	names := slurm.SbatchOptionNames()
	script := filepath.Join(t.TempDir(), "job.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\ntrue\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for c := 'a'; c <= 'z'; c++ {
		var want []string
		for _, n := range names {
			if n[0] == byte(c) {
				want = append(want, n)
			}
		}
		p := slurmtest.SbatchParse(t, "--"+string(c))
		got := slices.Sorted(slices.Values(p.Ambiguous))
		switch {
		case p.NeedsValue != "":
			got = []string{p.NeedsValue}
		case p.Ambiguous == nil && !p.Unrecognized:
			got = want[:min(1, len(want))] // one option, taking no value: sbatch went on to read a script
		}
		if !slices.Equal(got, want) {
			t.Errorf("sbatch's options starting with %c: %v, the table's %v\n%s", c, got, want, p.Stderr)
		}
	}
	for _, n := range names {
		opt, err := slurm.SbatchOption(n)
		if err != nil || (opt != n) != slices.Contains([]string{"tasks-per-node"}, n) {
			t.Errorf("SbatchOption(%s) = %q, %v", n, opt, err)
		}
		if sets, ok := sbatchSets(t, script, n); ok && !slices.Contains(sets, opt) {
			t.Errorf("sbatch reads --%s as setting %v, the table says %s", n, sets, opt)
		} else if !ok && !slices.Contains(unprobed, n) {
			t.Errorf("sbatch took no value of --%s that the test tries: add one", n)
		}
		for i := 1; i <= len(n); i++ {
			checkPrefix(t, script, n[:i])
		}
	}
}

// unprobed are the options that cannot be read with -v: quiet, which
// sbatch refuses beside it, and those that print and exit.
var unprobed = []string{"quiet", "help", "usage", "version"}

// checkPrefix checks that sbatch and SbatchOption read --prefix alike.
func checkPrefix(t *testing.T, script, prefix string) {
	t.Helper()
	opt, err := slurm.SbatchOption(prefix)
	p := slurmtest.SbatchParse(t, "--"+prefix)
	switch {
	case p.Ambiguous != nil:
		if err == nil {
			t.Errorf("sbatch finds --%s ambiguous (%v); SbatchOption reads it as %s", prefix, p.Ambiguous, opt)
		}
	case err != nil:
		t.Errorf("SbatchOption(%s): %v; sbatch reads it:\n%s", prefix, err, p.Stderr)
	case p.NeedsValue != "":
		if o, _ := slurm.SbatchOption(p.NeedsValue); o != opt {
			t.Errorf("sbatch reads --%s as --%s, SbatchOption as %s", prefix, p.NeedsValue, opt)
		}
	default: // an option without a value: ask what it defined
		if sets, ok := sbatchSets(t, script, prefix); ok && !slices.Contains(sets, opt) {
			t.Errorf("sbatch reads --%s as setting %v, SbatchOption as %s", prefix, sets, opt)
		}
	}
}

// trialValues are values sbatch takes for one option or another.
var trialValues = []string{"", "1", "x", "/tmp", "0-1", "END", "now", "USR1", "afterok:1", "none", "cyclic", "all",
	"append", "gpu:1", "level", "nomultithread", "yes", "enforce-binding"}

// sbatchSets returns the options sbatch defines for --name, with the first
// value of trialValues it takes, beside script; ok is false when it took
// none.
func sbatchSets(t *testing.T, script, name string) (sets []string, ok bool) {
	t.Helper()
	if slices.Contains(unprobed, name) {
		return nil, false
	}
	for _, v := range append(trialValues, script) { // nodefile reads a file
		arg := "--" + name
		if v != "" {
			arg += "=" + v
		}
		p := slurmtest.SbatchParse(t, "-v", arg, script)
		if p.Defined == nil {
			continue
		}
		for o := range p.Defined { // verbose among them, for -v
			sets = append(sets, o)
		}
		return sets, true
	}
	return nil, false
}
