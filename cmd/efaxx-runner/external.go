package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"efaxx/results/record"
)

// killDelay is how long a program stopped with SIGTERM (the launcher's,
// or its timeout) has to end before SIGKILL.
const killDelay = 10 * time.Second

// runExternal is efaxx-runner's external mode, "efaxx-runner external
// --out DIR": one rank of an external program. mpirun or srun starts it
// once per rank, like the runner; it reads the program from DIR's
// external.json, runs it as its child with the argv given there (no
// shell), sends the child's standard output and error to the rank's
// files in DIR, and writes the rank's NDJSON file: a fingerprint, then an
// end record with how the program ended. It exits as the program did.
//
// MPI and PMIx reach the program through the environment the launcher
// set for this process, which the child inherits.
func runExternal(args []string) int {
	fs := flag.NewFlagSet("efaxx-runner external", flag.ContinueOnError)
	out := fs.String("out", "", "the run directory: holds external.json, receives this rank's files")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *out == "" || fs.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "efaxx-runner external: want --out DIR and nothing else")
		return 2
	}
	spec, err := readSpec(*out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "efaxx-runner external:", err)
		return 1
	}
	me, err := rankFromEnv(os.Getenv)
	if err != nil {
		fmt.Fprintln(os.Stderr, "efaxx-runner external:", err)
		return 1
	}
	code, err := external(*out, spec, me)
	if err != nil {
		fmt.Fprintf(os.Stderr, "efaxx-runner external: rank %d: %v\n", me.rank, err)
		return max(code, 1)
	}
	return code
}

// readSpec reads the external.json of dir.
func readSpec(dir string) (*record.External, error) {
	b, err := os.ReadFile(filepath.Join(dir, record.ExternalName))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", record.ExternalName, err)
	}
	var spec record.External
	if err := json.Unmarshal(b, &spec); err != nil {
		return nil, fmt.Errorf("read %s: %w", filepath.Join(dir, record.ExternalName), err)
	}
	if len(spec.Argv) == 0 || spec.Argv[0] == "" {
		return nil, fmt.Errorf("%s names no program", filepath.Join(dir, record.ExternalName))
	}
	return &spec, nil
}

// launchRank is where the launcher placed this process.
type launchRank struct {
	rank, world, local, localSize int
}

// rankFromEnv reads this process's rank from the variables mpirun (Open
// MPI) or srun sets, or PMI's.
func rankFromEnv(getenv func(string) string) (launchRank, error) {
	sets := [][4]string{
		{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"},
		{"SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", ""},
		{"PMI_RANK", "PMI_SIZE", "", ""},
	}
	for _, set := range sets {
		if getenv(set[0]) == "" {
			continue
		}
		var v [4]int
		for i, name := range set {
			if name == "" || getenv(name) == "" {
				continue
			}
			n, err := strconv.Atoi(getenv(name))
			if err != nil || n < 0 {
				return launchRank{}, fmt.Errorf("%s=%q: not a rank", name, getenv(name))
			}
			v[i] = n
		}
		return launchRank{rank: v[0], world: v[1], local: v[2], localSize: v[3]}, nil
	}
	return launchRank{}, errors.New("no rank in the environment: start it with mpirun or srun, as efaxx does")
}

// external runs the program for rank me and records how it ended.
func external(dir string, spec *record.External, me launchRank) (int, error) {
	start := time.Now()
	w, err := createRankFile(dir, me.rank)
	if err != nil {
		return 1, err
	}
	defer w.Close()
	host, _ := os.Hostname()
	fp := record.Rank{Type: record.TypeRank, Rank: me.rank, World: me.world, LocalRank: me.local, LocalSize: me.localSize,
		Host: host, PID: os.Getpid(), Benchmark: "external", Version: version, Commit: commit, StartNs: start.UnixNano()}
	where(&fp, os.Getenv)
	if err := w.write(fp); err != nil {
		return 1, err
	}
	code, end := runProgram(dir, spec, me.rank)
	end.Type, end.Rank, end.ElapsedNs = record.TypeEnd, me.rank, uint64(time.Since(start).Nanoseconds())
	if err := w.end(end); err != nil {
		return 1, err
	}
	if end.Signal != "" {
		time.Sleep(stopGrace) // the launcher stopped every rank: let the others write theirs
	}
	return code, nil
}

// runProgram runs the program with the rank's output files and returns
// its exit code and end record. A SIGTERM or SIGINT to this process goes
// on to the program; so does the timeout's.
func runProgram(dir string, spec *record.External, rank int) (int, record.End) {
	stdout, err := os.Create(filepath.Join(dir, record.StdoutFile(rank)))
	if err != nil {
		return 1, failed("create stdout file: %v", err)
	}
	defer stdout.Close()
	stderr, err := os.Create(filepath.Join(dir, record.StderrFile(rank)))
	if err != nil {
		return 1, failed("create stderr file: %v", err)
	}
	defer stderr.Close()
	cmd := exec.Command(spec.Argv[0], spec.Argv[1:]...)
	cmd.Stdout, cmd.Stderr, cmd.Env = stdout, stderr, environ(spec.Env)
	// The program must not outlive this process, whatever kills it. The
	// signal follows the thread that starts the child, so this goroutine
	// keeps its thread until the child has ended. In a process group of
	// its own, the program is stopped with what it started: a wrapper
	// script's children too.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	// Pdeathsig reaches the program alone: the watcher stops the rest of
	// its group if this process is killed (watch.go).
	wt, err := startWatcher()
	if err != nil {
		unwatched(rank, err)
	}
	if err := cmd.Start(); err != nil {
		wt.release(false)
		return 127, failed("start %s: %v", spec.Argv[0], err)
	}
	if err := wt.watch(cmd.Process.Pid); err != nil {
		unwatched(rank, err)
	}
	stop := relay(cmd.Process, time.Duration(spec.TimeoutNs))
	err = cmd.Wait()
	why := stop()
	wt.release(true)
	return ended(cmd, err, why, filepath.Join(dir, record.StderrFile(rank)))
}

// unwatched says on stderr that the program runs without a watcher: it
// runs as well, but a SIGKILL to this process would leave its children.
func unwatched(rank int, err error) {
	fmt.Fprintf(os.Stderr, "efaxx-runner external: rank %d: %v; if this runner is killed, the program's children may stay behind\n", rank, err)
}

// environ returns this process's environment with env over it.
func environ(env map[string]string) []string {
	out := os.Environ()
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	return out
}

// relay passes SIGTERM and SIGINT on to p's process group, and stops it
// once timeout is over (0: never); what is left of the group once p has
// ended, or killDelay is over, is killed. The returned function stops
// relaying and says why p was stopped: "" when it was not.
func relay(p *os.Process, timeout time.Duration) (stop func() string) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGTERM, syscall.SIGINT)
	done := make(chan struct{})
	why := make(chan string, 1)
	go func() {
		var deadline <-chan time.Time
		if timeout > 0 {
			deadline = time.After(timeout)
		}
		reason := ""
		select {
		case sig := <-ch:
			reason = "signal " + sig.String()
			syscall.Kill(-p.Pid, sig.(syscall.Signal))
		case <-deadline:
			reason = fmt.Sprintf("timeout after %s", timeout)
			syscall.Kill(-p.Pid, syscall.SIGTERM)
		case <-done:
			why <- ""
			return
		}
		select {
		case <-done:
			syscall.Kill(-p.Pid, syscall.SIGKILL)
		case <-time.After(killDelay):
			syscall.Kill(-p.Pid, syscall.SIGKILL)
			<-done
		}
		why <- reason
	}()
	return func() string {
		signal.Stop(ch)
		close(done)
		return <-why
	}
}

// ended turns how the program ended into an exit code and an end record,
// with the last lines of its standard error when it failed.
func ended(cmd *exec.Cmd, err error, why, stderrPath string) (int, record.End) {
	ps := cmd.ProcessState
	if err == nil && ps.Success() && why == "" {
		return 0, record.End{Status: record.StatusOK}
	}
	end := record.End{Status: record.StatusFailed}
	code := 1
	if ps != nil {
		if st, ok := ps.Sys().(syscall.WaitStatus); ok && st.Signaled() {
			code = 128 + int(st.Signal())
			end.Error = fmt.Sprintf("%s: killed by %s", filepath.Base(cmd.Path), signalName(st.Signal()))
		} else {
			code = ps.ExitCode()
			end.Error = fmt.Sprintf("%s: exit status %d", filepath.Base(cmd.Path), code)
		}
	}
	if why != "" {
		end.Error += " (" + why + ")"
		if strings.HasPrefix(why, "signal ") {
			end.Signal = strings.TrimPrefix(why, "signal ")
		}
	}
	if tail := lastLines(stderrPath, 3); tail != "" {
		end.Error += ": " + tail
	}
	return max(code, 1), end
}

// failed is the end record of a program that could not be run.
func failed(format string, args ...any) record.End {
	return record.End{Status: record.StatusFailed, Error: fmt.Sprintf(format, args...)}
}

// lastLines returns the last n non-empty lines of the file at path,
// joined by "; ", at most 500 bytes of them.
func lastLines(path string, n int) string {
	b, err := tail(path, 64<<10) // the reason keeps 500 bytes of it at most
	if err != nil {
		return ""
	}
	var keep []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(l) != "" {
			keep = append(keep, strings.TrimSpace(l))
		}
	}
	if len(keep) > n {
		keep = keep[len(keep)-n:]
	}
	s := strings.Join(keep, "; ")
	if len(s) > 500 {
		s = s[len(s)-500:]
	}
	return s
}

// tail reads the last limit bytes of the file at path: a tool may write
// gigabytes to its stderr, and reading them all to keep a few lines could
// get the rank killed for memory before it writes its end record.
func tail(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	from := max(fi.Size()-limit, 0)
	b := make([]byte, fi.Size()-from)
	n, err := f.ReadAt(b, from)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return b[:n], nil
}
