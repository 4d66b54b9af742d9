package harness

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"efaxx/slurm"
	"efaxx/slurm/slurmtest"
)

// extraValues are values sbatch takes for each option an extra may not
// set, unlike the ones efaxx's script below sets; "" for an option
// without a value.
var extraValues = map[string]string{
	"job-name": "other", "chdir": "/", "output": "/tmp/other", "error": "/tmp/other", "array": "0-3",
	"parsable": "", "test-only": "", "wait": "", "nodes": "7", "ntasks": "7",
	"ntasks-per-node": "7", "cpus-per-task": "7", "gpus-per-node": "7", "partition": "other", "account": "other",
	"qos": "other", "time": "77", "constraint": "other", "exclusive": "user",
	"export": "ALL,EFAXX_X=1", "export-file": "/nonexistent/env", "get-user-env": "", "clusters": "other", "cluster": "other",
}

// refusedOptions are the options an extra may not set: those efaxx or a
// key sets, and those unsafe for what they would do.
func refusedOptions() []string {
	return slices.Sorted(slices.Values(append(slices.Collect(maps.Keys(setByEfaxx)), slices.Collect(maps.Keys(unsafeExtra))...)))
}

// TestExtraAsSbatchReadsIt: every prefix and alias of every option an
// extra may not set (setByEfaxx and unsafeExtra), and a few it may, each checked by efaxx and then
// read by sbatch's own parser: an extra efaxx accepts leaves every option
// of a script efaxx renders as efaxx set it, and one it refuses sets one
// of them in a script of its own (or sbatch refuses it too).
func TestExtraAsSbatchReadsIt(t *testing.T) {
	if got, want := slices.Sorted(maps.Keys(extraValues)), refusedOptions(); !slices.Equal(got, want) {
		t.Fatalf("extraValues has %v, setByEfaxx and unsafeExtra %v: give every refused option a value", got, want)
	}
	dir := t.TempDir()
	script := func(extra string) string {
		j := &slurm.Job{Name: "efaxx-x", Dir: dir, Alloc: slurm.Alloc{Nodes: 2, NTasks: 4, NTasksPerNode: 2,
			CPUsPerTask: 1, GPUsPerNode: 1, Partition: "debug", Account: "acct", QOS: "normal", Time: "10",
			Constraint: "c1", Exclusive: true},
			Steps: []slurm.Step{{Dir: filepath.Join(dir, "step"), Name: "s", Command: []string{"true"}, MPI: "none"}}}
		if extra != "" {
			j.Alloc.Extra = []string{extra}
		}
		text, err := slurm.Render(t.Context(), j)
		if err != nil {
			t.Fatalf("render with %q: %v", extra, err)
		}
		path := filepath.Join(dir, "job.sh")
		if err := os.WriteFile(path, text, 0o755); err != nil {
			t.Fatal(err)
		}
		return path
	}
	base := slurmtest.SbatchParse(t, "-v", script(""))
	if base.Defined == nil || base.Defined["job-name"] != "efaxx-x" || base.Defined["ntasks"] != "4" {
		t.Fatalf("sbatch -v on efaxx's script read %v:\n%s", base.Defined, base.Stderr)
	}
	var extras []string
	for _, name := range slurm.SbatchOptionNames() {
		opt, _ := slurm.SbatchOption(name)
		v, refused := extraValues[opt]
		if !refused {
			continue
		}
		for i := 1; i <= len(name); i++ {
			e := "--" + name[:i]
			if v != "" {
				e += "=" + v
			}
			extras = append(extras, e)
		}
	}
	extras = append(extras, "--comment=efaxx", "--mail-type=END", "--exclude=h9", "--gres=gpu:1", "--hold",
		"--ntasks-per-core=1", "--wrap=true", "--help", "--tim=3", "--exclusiv")
	alone := filepath.Join(t.TempDir(), "alone.sh")
	accepted := 0
	for _, e := range extras {
		if err := checkExtra(e); err == nil {
			got := slurmtest.SbatchParse(t, "-v", script(e))
			if changed := changedOptions(base.Defined, got.Defined); len(changed) > 0 || got.Defined == nil {
				t.Errorf("efaxx accepts %s, and sbatch reads efaxx's script with it as setting %v:\n%s", e, changed, got.Stderr)
			}
			accepted++
			continue
		}
		if err := os.WriteFile(alone, []byte("#!/bin/sh\n#SBATCH "+e+"\ntrue\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		got := slurmtest.SbatchParse(t, "-v", alone)
		if got.Defined != nil && len(changedOptions(nil, got.Defined)) == 0 {
			t.Errorf("efaxx refuses %s, and sbatch reads it alone as setting none of efaxx's options: %v", e, got.Defined)
		}
	}
	if accepted < 8 {
		t.Errorf("%d extras accepted, want the 8 harmless ones at least", accepted)
	}
	t.Logf("%d extras read by sbatch: %d accepted, %d refused", len(extras), accepted, len(extras)-accepted)
}

// changedOptions returns the options an extra may not set that got
// reads otherwise than base (nil: set at all).
func changedOptions(base, got map[string]string) []string {
	var out []string
	for _, opt := range refusedOptions() {
		if v, ok := got[opt]; ok && v != base[opt] {
			out = append(out, opt+"="+v)
		}
	}
	slices.Sort(out)
	return out
}
