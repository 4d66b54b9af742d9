package harness_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"efaxx/harness"
)

// goldenSession is the session every plan golden renders into.
func goldenSession(s *harness.Sweep) *harness.Session {
	const id = "20261122-120000-abcd1234"
	return &harness.Session{Dir: filepath.Join("/shared/efaxx-runs", s.Name, id), ID: id, Sweep: s}
}

// TestPlanGolden renders the job scripts of each testdata/plan/NAME.toml
// and compares them with NAME.golden.sh; go test -update rewrites them.
// Every script must also pass bash -n.
func TestPlanGolden(t *testing.T) {
	inputs, err := filepath.Glob("testdata/plan/*.toml")
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no inputs under testdata/plan: %v", err)
	}
	for _, in := range inputs {
		t.Run(filepath.Base(in), func(t *testing.T) {
			s, err := harness.Load(in)
			if err != nil {
				t.Fatal(err)
			}
			pl := harness.NewPlan(s, s.Points())
			runner := harness.RunnerBinary{Path: "/opt/efaxx/bin/efaxx-runner"}
			if s.Resources.Container != nil {
				runner = harness.RunnerBinary{Path: harness.ImageRunner, Digest: "sha256:" + strings.Repeat("ab", 32)}
			}
			scripts, err := goldenSession(s).Render(t.Context(), pl, runner)
			if err != nil {
				t.Fatal(err)
			}
			var all bytes.Buffer
			for i, script := range scripts {
				checkBashSyntax(t, script)
				fmt.Fprintf(&all, "### job %d: %s\n", i, pl.Jobs[i].Shape)
				all.Write(script)
			}
			golden := strings.TrimSuffix(in, ".toml") + ".golden.sh"
			if *update {
				if err := os.WriteFile(golden, all.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(all.Bytes(), want) {
				t.Errorf("scripts of %s differ from %s (go test -update rewrites it):\n%s", in, golden, all.Bytes())
			}
		})
	}
}

func checkBashSyntax(t *testing.T, script []byte) {
	t.Helper()
	cmd := exec.Command("bash", "-n")
	cmd.Stdin = bytes.NewReader(script)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("bash -n: %v\n%s", err, out)
	}
}

func TestPlanGroupsByShape(t *testing.T) {
	s := mustParse(t, head+"[params]\nranks = [2, 4]\nprovider = [\"tcp\", \"shm\"]\n[slurm]\nnodes = [1, 2]\n")
	pl := harness.NewPlan(s, s.Points())
	var got []string
	for _, j := range pl.Jobs {
		var idx []string
		for _, p := range j.Points {
			idx = append(idx, fmt.Sprint(p.Index))
		}
		got = append(got, j.Shape.String()+": "+strings.Join(idx, ","))
	}
	want := []string{"nodes=1 ranks=2: 0,4", "nodes=2 ranks=2: 1,5", "nodes=1 ranks=4: 2,6", "nodes=2 ranks=4: 3,7"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("jobs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if job, step, ok := pl.StepOf(6); !ok || job != 2 || step != 1 {
		t.Errorf("StepOf(6) = %d, %d, %v, want job 2 step 1", job, step, ok)
	}
}

// TestPlanFitsScripts: a job whose script would pass the cluster's
// max_script_size is split into jobs of its shape with fewer steps, every
// point kept in order; a valid 10,000-point sweep (7.8 MB of script in one
// job) fits Slurm's default 4 MB in more than one job.
func TestPlanFitsScripts(t *testing.T) {
	var iters []string
	for i := 1; i <= 10_000; i++ {
		iters = append(iters, fmt.Sprint(i))
	}
	s := mustParse(t, head+"[params]\niterations = ["+strings.Join(iters, ",")+"]\n[slurm]\ntime = \"10\"\n")
	runner := harness.RunnerBinary{Path: "/opt/efaxx/bin/efaxx-runner"}
	for _, max := range []int{4 << 20, 256 << 10} {
		pl := harness.NewPlan(s, s.Points())
		scripts, err := goldenSession(s).Fit(t.Context(), pl, runner, max)
		if err != nil {
			t.Fatal(err)
		}
		if len(pl.Jobs) < 2 || len(scripts) != len(pl.Jobs) || len(pl.Splits) != 1 || pl.Splits[0].Jobs != len(pl.Jobs) ||
			pl.Splits[0].Bytes <= max {
			t.Fatalf("max %d: %d jobs, %d scripts, splits %+v; want the one shape in several jobs", max, len(pl.Jobs), len(scripts), pl.Splits)
		}
		next := 0
		for i, j := range pl.Jobs {
			if len(scripts[i]) > max || j.Index != i || j.Shape != pl.Jobs[0].Shape {
				t.Errorf("max %d: job %d (index %d, %s) has a script of %d bytes", max, i, j.Index, j.Shape, len(scripts[i]))
			}
			for _, p := range j.Points {
				if p.Index != next {
					t.Fatalf("max %d: job %d holds point %d, want %d", max, i, p.Index, next)
				}
				next++
			}
		}
		if next != 10_000 {
			t.Errorf("max %d: %d points in the jobs, want 10000", max, next)
		}
		if !strings.Contains(string(scripts[1]), fmt.Sprintf("efaxx job 2 of %d", len(pl.Jobs))) {
			t.Errorf("max %d: the second script's header does not say job 2 of %d", max, len(pl.Jobs))
		}
	}
	pl := harness.NewPlan(s, s.Points()[:3])
	if _, err := goldenSession(s).Fit(t.Context(), pl, runner, 1000); err == nil || !strings.Contains(err.Error(), "max_script_size") {
		t.Errorf("a step that alone passes max_script_size: %v, want an error naming it", err)
	}
}

// TestPlanStepOf: StepOf finds every point a plan runs in the job and step
// that hold it, a point the plan leaves out in none, and follows the points
// when Fit splits a job after StepOf was first asked.
func TestPlanStepOf(t *testing.T) {
	var iters []string
	for i := 1; i <= 60; i++ {
		iters = append(iters, fmt.Sprint(i))
	}
	s := mustParse(t, head+"[params]\nranks = [2, 4]\niterations = ["+strings.Join(iters, ",")+"]\n[slurm]\ntime = \"10\"\n")
	var points []harness.Point
	for _, p := range s.Points() {
		if p.Index%3 != 0 { // as submit plans only the points it selects
			points = append(points, p)
		}
	}
	pl := harness.NewPlan(s, points)
	checkStepOf(t, "NewPlan", pl, len(s.Points()))

	runner := harness.RunnerBinary{Path: "/opt/efaxx/bin/efaxx-runner"}
	scripts, err := goldenSession(s).Render(t.Context(), pl, runner)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := goldenSession(s).Fit(t.Context(), pl, runner, len(scripts[0])/3); err != nil {
		t.Fatal(err)
	}
	if len(pl.Jobs) <= 2 {
		t.Fatalf("Fit kept %d jobs, want the two shapes split", len(pl.Jobs))
	}
	checkStepOf(t, "Fit", pl, len(s.Points()))
}

// checkStepOf checks StepOf on pl for every index of a sweep of n points,
// and beyond them.
func checkStepOf(t *testing.T, after string, pl *harness.Plan, n int) {
	t.Helper()
	want := map[int][2]int{}
	for _, j := range pl.Jobs {
		for step, p := range j.Points {
			want[p.Index] = [2]int{j.Index, step}
		}
	}
	for i := -1; i <= n; i++ {
		job, step, ok := pl.StepOf(i)
		w, wantOK := want[i]
		if ok != wantOK || ok && [2]int{job, step} != w {
			t.Errorf("after %s: StepOf(%d) = %d, %d, %v, want %d, %d, %v", after, i, job, step, ok, w[0], w[1], wantOK)
		}
	}
}
