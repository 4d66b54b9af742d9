package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The program's process group must not outlive the runner, however the
// runner dies. Pdeathsig reaches only the direct child, and a subreaper
// or a pidfd needs the runner alive to act, which one SIGKILLed (mpirun
// after SIGTERM's grace, the OOM killer) is not. So a second process
// watches: the runner re-executes itself as "efaxx-runner
// external-watch" (no fork without exec in Go) and keeps the write end of
// a pipe whose read end only the watcher has. However the runner ends,
// the kernel closes that end; a watcher that reads EOF before the runner
// said the program is done stops the group. The write end is
// close-on-exec, so neither the program nor the watcher holds it open.
//
// Protocol, runner to watcher: the group id and a newline once the
// program has started, then any byte once the runner has seen the program
// end and stopped what it had to. EOF before the id: nothing started.

// watchMode is the hidden first argument that makes efaxx-runner a watcher.
const watchMode = "external-watch"

// watchGrace is how long the watcher gives the group to end on SIGTERM
// before SIGKILL: the launcher's grace is usually over already.
const watchGrace = 2 * time.Second

// watcher is the runner's side of a watcher process.
type watcher struct {
	w   *os.File
	cmd *exec.Cmd
}

// startWatcher starts the watcher, before the program so that no moment
// of the program's life goes unwatched.
func startWatcher() (*watcher, error) {
	r, w, err := os.Pipe() // close-on-exec: the program inherits neither end
	if err != nil {
		return nil, fmt.Errorf("watcher pipe: %w", err)
	}
	defer r.Close()
	// /proc/self/exe runs this binary even if its file was replaced since.
	cmd := exec.Command("/proc/self/exe", watchMode)
	cmd.ExtraFiles = []*os.File{r}
	cmd.Stderr = os.Stderr
	// A group of its own: what the terminal or the launcher sends to the
	// runner's group does not end it before it has done its work.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		w.Close()
		return nil, fmt.Errorf("start watcher: %w", err)
	}
	return &watcher{w: w, cmd: cmd}, nil
}

// watch hands the watcher the program's process group. A nil watcher
// (none could start) does nothing, here and in release.
func (wt *watcher) watch(pgid int) error {
	if wt == nil {
		return nil
	}
	if _, err := fmt.Fprintf(wt.w, "%d\n", pgid); err != nil {
		return fmt.Errorf("watcher: %w", err)
	}
	return nil
}

// release tells the watcher that the program ended and the runner dealt
// with its group (done), or that it never started, and waits for the
// watcher to exit.
func (wt *watcher) release(done bool) {
	if wt == nil {
		return
	}
	if done {
		wt.w.Write([]byte{'.'})
	}
	wt.w.Close()
	wt.cmd.Wait()
}

// runWatch is the watcher: it reads the group id from fd 3, then stops
// the group if the runner goes before saying the program is done.
func runWatch() int {
	// Its life ends with the runner's, plus the grace; signals meant for
	// the job must not end it before it has stopped the group.
	signal.Ignore(syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM)
	in := bufio.NewReader(os.NewFile(3, "runner"))
	line, err := in.ReadString('\n')
	if err != nil {
		return 0 // the program never started
	}
	pgid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || pgid <= 1 {
		fmt.Fprintf(os.Stderr, "efaxx-runner %s: %q: not a process group\n", watchMode, line)
		return 1
	}
	if _, err := in.ReadByte(); err == nil {
		return 0 // the runner saw the program end
	}
	stopGroup(pgid, watchGrace)
	return 0
}

// stopGroup sends SIGTERM to process group pgid and, if it has not ended
// within grace, SIGKILL. The id names the program's group as long as a
// member lives: the kernel gives no new process that id meanwhile.
func stopGroup(pgid int, grace time.Duration) {
	if syscall.Kill(-pgid, syscall.SIGTERM) != nil {
		return // nothing left of it
	}
	fmt.Fprintf(os.Stderr, "efaxx-runner %s: the runner ended before its program: stopping process group %d\n", watchMode, pgid)
	for deadline := time.Now().Add(grace); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if syscall.Kill(-pgid, 0) != nil {
			return
		}
	}
	syscall.Kill(-pgid, syscall.SIGKILL)
}
