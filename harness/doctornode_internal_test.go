package harness

import (
	"strings"
	"testing"
	"time"

	"efaxx/slurm"
)

// TestStepRunFindings: what srun's log says decides which check failed,
// and the checks after it are not made. The testbed makes the rest
// (cmd/efaxx TestDoctorOnNode); these are what it cannot: an MPI plugin
// that fails, and enroot's PMIx hook failing, which is the image's.
func TestStepRunFindings(t *testing.T) {
	ok := &slurm.Exit{Code: 0}
	for _, tt := range []struct {
		name     string
		r        stepRun
		want     string // the last finding, "STATUS NAME: DETAIL"
		findings int
	}{
		{"mpi plugin", stepRun{log: "srun: error: Couldn't find the specified plugin name for mpi/pmix looking at all files\n" +
			"srun: error: cannot find mpi plugin for mpi/pmix\n", exit: &slurm.Exit{Code: 1}},
			"FAIL mpi: h1: srun --mpi=pmix: srun: error: Couldn't find the specified plugin name for mpi/pmix looking at all files; " +
				"srun: error: cannot find mpi plugin for mpi/pmix", 1},
		{"pmix hook", stepRun{log: "pyxis: [ERROR] /etc/enroot/hooks.d/50-slurm-pmi.sh exited with return code 1 (pmix)\n",
			id: "4.0", exit: &slurm.Exit{Code: 1}, container: &Container{Image: "/i.sqsh"}},
			"FAIL image: h1: the container did not start: pyxis: [ERROR] /etc/enroot/hooks.d/50-slurm-pmi.sh exited with return code 1 (pmix)", 3},
		{"no step", stepRun{log: "srun: error: Unable to create step for job 4: Memory required by task is not available\n",
			exit: &slurm.Exit{Code: 1}},
			"FAIL step: h1: srun started no step: srun: error: Unable to create step for job 4: Memory required by task is not available", 1},
		{"not the runner", stepRun{id: "4.0", out: "foo 1.0\n", exit: ok},
			`FAIL runner: h1: /r is not efaxx-runner: its --version printed no "efaxx-runner VERSION (COMMIT)": foo 1.0`, 2},
		{"another version", stepRun{id: "4.0", out: "efaxx-runner v1 (abc)\n", exit: ok, version: "v2 (def)"},
			"warn runner: h1: efaxx-runner v1 (abc) at /r, this efaxx is v2 (def): rebuild it to match", 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.r.node, tt.r.runner, tt.r.mpi = "h1", "/r", "pmix"
			fs := tt.r.findings()
			last := fs[len(fs)-1]
			if got := last.Status + " " + last.Name + ": " + last.Detail; got != tt.want || len(fs) != tt.findings {
				t.Errorf("findings = %v\nlast %q, want %q (of %d)", fs, got, tt.want, tt.findings)
			}
			for _, f := range fs[:len(fs)-1] {
				if f.Status != CheckOK {
					t.Errorf("a check before the last is %s: %v", f.Status, f)
				}
			}
		})
	}
}

// TestNodeLimit: the job asks for five minutes, or the sweep's time where
// that is shorter.
func TestNodeLimit(t *testing.T) {
	for in, want := range map[string]string{"": "5:00", "UNLIMITED": "5:00", "1:00:00": "5:00", "2": "2:00", "0:30": "0:30", "bad": "5:00"} {
		if got := slurmTime(nodeLimit(in)); got != want {
			t.Errorf("sweep time %q: job time %q, want %q", in, got, want)
		}
	}
	if d, err := slurm.ParseTime(slurmTime(90 * time.Second)); err != nil || d != 90*time.Second || !strings.Contains(slurmTime(d), ":") {
		t.Errorf("slurmTime(90s) reads back as %v, %v", d, err)
	}
}
