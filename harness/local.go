package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"efaxx/results"
	"efaxx/results/record"
)

// Local runs sweeps on this machine with mpirun: the default executor, and
// the one a new user meets first.
type Local struct {
	RunnerPath string    // path of efaxx-runner
	Mpirun     string    // path of mpirun; "" means "mpirun" on PATH
	Workdir    string    // where session directories are created
	Progress   io.Writer // progress lines; nil for none
	CPUs       int       // cores available to ranks; 0 means runtime.NumCPU()
	Now        func() time.Time

	// Tags label every run of the sweep (efaxx run --tag); nil for none.
	Tags map[string]string
}

// LocalRun is one point's run as it was launched and stored.
type LocalRun struct {
	Point  Point
	Dir    string
	Stored results.IngestedRun
}

// ErrInterrupted is returned when the context ends a sweep early. The runs
// finished so far are stored; the one in progress is stored as cancelled.
var ErrInterrupted = errors.New("sweep interrupted")

// Run executes every point of s in a new session, one mpirun at a time,
// and ingests each run into db as soon as it ends, so an interruption
// loses nothing that finished.
func (l *Local) Run(ctx context.Context, db *results.DB, s *Sweep) (*Session, []LocalRun, error) {
	if err := l.Check(s); err != nil {
		return nil, nil, err
	}
	points, err := s.PointsContext(ctx)
	if err != nil {
		return nil, nil, ErrInterrupted
	}
	ss, err := NewSession(l.Workdir, s, l.now())
	if err != nil {
		return nil, nil, err
	}
	var runs []LocalRun
	for i, p := range points {
		l.printf("[%d/%d] %s: starting %s\n", i+1, len(points), p.Label(), counted(p.Ranks, "rank"))
		run, err := l.runPoint(ctx, db, ss, p)
		if err != nil {
			return ss, runs, err
		}
		runs = append(runs, run)
		l.printf("[%d/%d] %s: %s (run %d, %s)%s\n", i+1, len(points), p.Label(),
			run.Stored.Status, run.Stored.ID, counted(run.Stored.Samples, "sample"), reasonSuffix(run.Stored.Reason))
		if ctx.Err() != nil {
			return ss, runs, ErrInterrupted
		}
	}
	return ss, runs, nil
}

// Check says why s cannot run on this machine, if it cannot: no mpirun, a
// container, more than one node. Run checks it first; a caller checks it
// before it creates a store for the results.
func (l *Local) Check(s *Sweep) error {
	if _, err := exec.LookPath(l.mpirun()); err != nil {
		return fmt.Errorf("mpirun not found (install openmpi-bin, or run `make deps`): %w", err)
	}
	if c := s.Resources.Container; c != nil {
		return fmt.Errorf("sweep %s runs in the container image %s: efaxx run starts its ranks on this machine, "+
			"outside any container; submit the sweep to Slurm with efaxx submit, where pyxis runs them in the image", s.Name, c.Image)
	}
	for _, n := range s.valuesOf("nodes") {
		if n.(int) > 1 {
			return fmt.Errorf("sweep %s asks for nodes = %d: efaxx run uses this machine only; submit the sweep to Slurm with efaxx submit",
				s.Name, n)
		}
	}
	return nil
}

func (l *Local) runPoint(ctx context.Context, db *results.DB, ss *Session, p Point) (LocalRun, error) {
	dir := ss.RunDir(p)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return LocalRun{}, fmt.Errorf("create run directory: %w", err)
	}
	m := ss.Manifest(p, "local")
	m.Tags, m.Launcher = l.Tags, results.ThisLauncher()
	m.Command = append([]string{l.mpirun()}, l.mpirunArgs(p, dir)...)
	m.StartNs = l.now().UnixNano()
	if err := WriteManifest(dir, m); err != nil {
		return LocalRun{}, err
	}
	if err := WriteExternal(dir, p); err != nil {
		return LocalRun{}, err
	}
	l.launch(ctx, dir, p, m)
	if n := removeLeftRegions(dir, p.Ranks); n > 0 {
		l.printf("  removed %d shm regions that killed ranks left in /dev/shm\n", n)
	}
	m.EndNs = l.now().UnixNano()
	if err := WriteManifest(dir, m); err != nil {
		return LocalRun{}, err
	}
	// Store what happened even when the user interrupted us.
	rep, err := db.Ingest(context.WithoutCancel(ctx), dir)
	if err != nil {
		return LocalRun{}, err
	}
	for _, pr := range rep.Problems {
		l.printf("  warning: %s\n", pr)
	}
	if len(rep.Runs) != 1 {
		return LocalRun{}, fmt.Errorf("ingest %s: stored %d runs, want 1", dir, len(rep.Runs))
	}
	return LocalRun{Point: p, Dir: dir, Stored: rep.Runs[0]}, nil
}

// launch runs mpirun for p, logging to launcher.log, and records how it
// ended in m.
func (l *Local) launch(ctx context.Context, dir string, p Point, m *record.Manifest) {
	log, err := os.Create(dir + "/launcher.log")
	if err != nil {
		m.Error = fmt.Sprintf("create launcher.log: %v", err)
		return
	}
	defer log.Close()
	cmd := exec.CommandContext(ctx, m.Command[0], m.Command[1:]...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) } // mpirun then stops its ranks
	cmd.WaitDelay = 15 * time.Second
	if err := cmd.Start(); err != nil {
		m.Error = fmt.Sprintf("start mpirun: %v", err)
		return
	}
	stop := l.watch(dir, p, cmd)
	err = cmd.Wait()
	timedOut := stop()
	code := cmd.ProcessState.ExitCode()
	m.ExitCode = &code
	switch {
	case timedOut:
		m.TimedOut = true
	case ctx.Err() != nil:
		m.Cancelled = true
	case err != nil && code != 0:
		m.Error = launchError(dir, p.Ranks)
	}
}

// rankOutput is the directory of a run where mpirun copies each rank's
// output (--output-filename): <rankOutput>/1/rank.<r>/stderr, r padded.
const rankOutput = "output"

// launchError is why a launch failed: mpirun's last lines, and the stderr
// of a rank that wrote no end record: the lowest whose stderr holds a
// crash report, else the lowest. A rank that crashed writes none, and
// what it printed (a Go trace, libinfinipath's report of a fault in C, or
// nothing at all for a fault in a thread C started) was otherwise only in
// launcher.log, among every rank's lines, while the run's reason named a
// peer the launcher stopped. That peer has no end record either when the
// crash came before any rank wrote one, so a crash report goes first.
func launchError(dir string, ranks int) string {
	why := lastLines(filepath.Join(dir, "launcher.log"), 3)
	quote := ""
	for r := range ranks {
		if hasEnd(filepath.Join(dir, record.RankFile(r))) {
			continue
		}
		said, crashed := rankStderr(dir, r)
		if crashed {
			return record.JoinReasons(why, said)
		}
		if quote == "" {
			quote = said
		}
	}
	return record.JoinReasons(why, quote)
}

// rankStderr quotes what rank r wrote on stderr (crashLines), or says it
// wrote nothing, and whether that holds a crash report; "" without
// mpirun's copy of it.
func rankStderr(dir string, r int) (string, bool) {
	files, _ := filepath.Glob(filepath.Join(dir, rankOutput, "*", "rank.*", "stderr"))
	for _, f := range files {
		if n, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(filepath.Dir(f)), "rank.")); err != nil || n != r {
			continue
		}
		// The tail: a rank may write gigabytes there (libfabric's debug
		// log), and a Go crash report, which ends it, takes a few KiB.
		if lines, crashed := crashLines(string(fileTail(f, 64<<10)), 5, false); lines != "" {
			return fmt.Sprintf("rank %d's stderr: %s", r, lines), crashed
		}
		return fmt.Sprintf("rank %d wrote nothing on stderr", r), false
	}
	return "", false
}

// hasEnd reports whether the rank file at path holds an end record, its
// last line when there is one: only the file's tail is read, as a rank
// file holds every sample before it.
func hasEnd(path string) bool {
	for _, line := range bytes.Split(fileTail(path, 64<<10), []byte("\n")) {
		var r struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(line, &r) == nil && r.Type == record.TypeEnd {
			return true
		}
	}
	return false
}

// watch prints progress while the ranks run, and kills a launch whose ranks
// have not all started within the point's timeout plus a minute: after
// start-up, every wait in the runner has its own deadline. The returned
// function stops watching and reports whether it killed the launch.
func (l *Local) watch(dir string, p Point, cmd *exec.Cmd) func() bool {
	done := make(chan struct{})
	killed := make(chan bool, 1)
	go func() {
		startBy := time.Now().Add(p.Timeout + time.Minute)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		shown := -1
		for {
			select {
			case <-done:
				killed <- false
				return
			case <-tick.C:
			}
			started, sizes := progress(dir, p.Ranks)
			if sizes != shown && started == p.Ranks && p.External == nil {
				l.printf("  %s: %d/%d sizes\n", p.Label(), sizes, len(p.Sizes))
				shown = sizes
			}
			if started < p.Ranks && time.Now().After(startBy) {
				cmd.Process.Signal(syscall.SIGTERM)
				<-done
				killed <- true
				return
			}
		}
	}()
	return func() bool { close(done); return <-killed }
}

func (l *Local) mpirunArgs(p Point, dir string) []string {
	var args []string
	if os.Geteuid() == 0 {
		args = append(args, "--allow-run-as-root")
	}
	// Keep MPI's own traffic (bootstrap only) on shared memory and loopback.
	args = append(args, "--mca", "btl", "self,vader", "--mca", "oob_tcp_if_include", "lo")
	// Each rank's output in a file of its own as well as in launcher.log,
	// so that a crashed rank's stderr can be told from its peers'. mpirun
	// reads what follows a ':' in the absolute path as options, so a path
	// with one goes without.
	if out, err := filepath.Abs(filepath.Join(dir, rankOutput)); err == nil && !strings.Contains(out, ":") {
		args = append(args, "--output-filename", out)
	}
	args = append(args, "-np", strconv.Itoa(p.Ranks))
	if p.Ranks > l.cpus() {
		args = append(args, "--oversubscribe")
	}
	args = append(args, l.RunnerPath)
	args = append(args, p.RunnerArgs()...)
	if p.External == nil && p.Provider == "tcp" && p.NICs == "auto" {
		args = append(args, "--nic", "lo") // a local run talks over loopback only
	}
	return append(args, "--out", dir)
}

func (l *Local) mpirun() string {
	if l.Mpirun != "" {
		return l.Mpirun
	}
	return "mpirun"
}

func (l *Local) cpus() int {
	if l.CPUs > 0 {
		return l.CPUs
	}
	return runtime.NumCPU()
}

func (l *Local) now() time.Time {
	if l.Now != nil {
		return l.Now()
	}
	return time.Now()
}

func (l *Local) printf(format string, args ...any) {
	if l.Progress != nil {
		fmt.Fprintf(l.Progress, format, args...)
	}
}

// counted writes n and a regular noun, plural as n asks: "1 rank", "2 ranks".
func counted(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func reasonSuffix(reason string) string {
	if reason == "" {
		return ""
	}
	return ": " + reason
}
