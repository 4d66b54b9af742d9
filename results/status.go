package results

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"

	"efaxx/results/record"
)

// Rank statuses, the ranks.status column.
const (
	rankOK      = "ok"      // the end record says ok
	rankFailed  = "failed"  // the end record says the rank failed
	rankMissing = "missing" // the run finished without this rank's file or end record
	rankRunning = "running" // no end record yet, and the run is still running
)

// isRunning reports whether the launcher of m has not exited yet.
func isRunning(m *record.Manifest) bool {
	return m.ExitCode == nil && !m.TimedOut && !m.Cancelled && m.Error == ""
}

// ThisLauncher returns this process as the launcher of a local run.
func ThisLauncher() *record.Launcher {
	host, _ := os.Hostname()
	return &record.Launcher{Host: host, BootID: bootID(), PID: os.Getpid(), PIDNS: pidNS()}
}

// pidNS names this process's PID namespace, or "".
func pidNS() string {
	ns, _ := os.Readlink("/proc/self/ns/pid")
	return ns
}

// bootID returns the kernel's id of this boot, or "".
func bootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// launcherGone returns why the run of m, which its manifest says is still
// running, will never end, or "": the efaxx that launched it, which alone
// writes its end, is gone from this host. Without this such a run stayed
// running for good, which prune refuses. A launcher on another host or
// in another PID namespace (a container named as its host), or of a
// manifest that names none, cannot be told gone.
func launcherGone(m *record.Manifest) string {
	l := m.Launcher
	if l == nil || !isRunning(m) {
		return ""
	}
	if host, err := os.Hostname(); err != nil || host != l.Host {
		return ""
	}
	boot := bootID()
	restarted := boot != "" && l.BootID != "" && boot != l.BootID
	if !restarted && l.PIDNS != pidNS() {
		return ""
	}
	if !restarted && !errors.Is(syscall.Kill(l.PID, 0), syscall.ESRCH) {
		return ""
	}
	return fmt.Sprintf("efaxx (pid %d on %s) ended before the launch did: killed, or the machine restarted", l.PID, l.Host)
}

// runVerdict derives the status of a run and the reason for it from its
// manifest and its rank files. The rules, first match wins:
//
//   - timeout: the manifest says the run timed out (with the scheduler's
//     reason, when it gives one);
//   - cancelled: the manifest says the user or the scheduler stopped it;
//   - running: the launcher has not exited (no exit code, no error);
//   - failed: a rank's end record says failed (the lowest such rank is
//     the reason, preferring ranks that failed by themselves to ranks
//     stopped by a signal; where a rank has no end record and the
//     manifest carries an error, the error follows a rank that failed by
//     itself and stands for ranks stopped by a signal), the manifest
//     carries an error, or the exit code is not 0;
//   - partial: the exit code is 0 but a rank file is missing, has no end
//     record, or had lines that could not be used;
//   - ok: otherwise; ingest then makes it partial when a size of the point
//     has no sample (checkSizes), which it learns only once stored.
func runVerdict(m *record.Manifest, files []rankFile) (status, reason string) {
	var noEnd []int
	if !m.NotStarted {
		noEnd = ranksWhere(files, func(f rankFile) bool { return f.end == nil })
	}
	switch {
	case m.TimedOut:
		return record.StatusTimeout, record.JoinReasons("timed out", m.SchedulerReason, noEndReason(noEnd))
	case m.Cancelled:
		return record.StatusCancelled, record.JoinReasons("cancelled", m.SchedulerReason, noEndReason(noEnd))
	case isRunning(m):
		return record.StatusRunning, ""
	}
	// A rank that died without an end record (it crashed, or was killed)
	// leaves how it died to the launcher's error, which the records of
	// the ranks it took down with it cannot tell.
	var died string
	if len(noEnd) > 0 && m.Error != "" {
		died = record.JoinReasons(noEndReason(noEnd), m.Error)
	}
	for _, signalled := range []bool{false, true} {
		for _, f := range files {
			if f.end == nil || f.end.Status == record.StatusOK || (f.end.Signal != "") != signalled {
				continue
			}
			if signalled && died != "" {
				return record.StatusFailed, died // the launcher stopped f because that rank died
			}
			return record.StatusFailed, record.JoinReasons(fmt.Sprintf("rank %d: %s", f.rank, endError(f.end)), died)
		}
	}
	switch {
	case m.Error != "":
		return record.StatusFailed, m.Error
	case m.ExitCode != nil && *m.ExitCode != 0:
		return record.StatusFailed, record.JoinReasons(fmt.Sprintf("exit code %d", *m.ExitCode), noEndReason(noEnd))
	}
	if reason := gapReason(files); reason != "" {
		return record.StatusPartial, reason
	}
	return record.StatusOK, ""
}

// rankVerdict derives the ranks.status and ranks.error of one rank.
func rankVerdict(f rankFile, running bool) (status, msg string) {
	switch {
	case f.end != nil && f.end.Status == record.StatusOK:
		return rankOK, ""
	case f.end != nil:
		return rankFailed, endError(f.end)
	case running:
		return rankRunning, ""
	case !f.found:
		return rankMissing, "no rank file"
	}
	return rankMissing, "no end record"
}

// endError returns the error an end record gives for its rank.
func endError(e *record.End) string {
	switch {
	case e.Status != record.StatusFailed:
		return fmt.Sprintf("end record status %q", e.Status)
	case e.Error == "":
		return "failed"
	}
	return e.Error
}

// gapReason says what keeps a run that exited 0 from being ok, or "".
func gapReason(files []rankFile) string {
	if len(files) == 0 {
		return "no rank files"
	}
	noFile := ranksWhere(files, func(f rankFile) bool { return !f.found })
	cut := ranksWhere(files, func(f rankFile) bool { return f.found && f.end == nil })
	bad := ranksWhere(files, func(f rankFile) bool { return f.badLines > 0 })
	var parts []string
	if len(noFile) > 0 {
		parts = append(parts, "no rank file from "+rankList(noFile))
	}
	if len(cut) > 0 {
		parts = append(parts, "no end record from "+rankList(cut))
	}
	if len(bad) > 0 {
		parts = append(parts, "unusable lines from "+rankList(bad))
	}
	return strings.Join(parts, "; ")
}

// noEndReason names the ranks without an end record, or is "".
func noEndReason(ranks []int) string {
	if len(ranks) == 0 {
		return ""
	}
	return "no end record from " + rankList(ranks)
}

// ranksWhere returns the ranks of files for which keep is true.
func ranksWhere(files []rankFile, keep func(rankFile) bool) []int {
	var ranks []int
	for _, f := range files {
		if keep(f) {
			ranks = append(ranks, f.rank)
		}
	}
	return ranks
}

// maxRankRuns is how many runs of consecutive ranks a reason lists before
// it only counts the rest: at 8,000 ranks a full list would drown it.
const maxRankRuns = 8

// rankList formats sorted ranks for a reason, "rank 3" or
// "ranks 0-3, 7, 9", folding consecutive ranks into ranges.
func rankList(ranks []int) string {
	if len(ranks) == 1 {
		return fmt.Sprintf("rank %d", ranks[0])
	}
	var parts []string
	rest := 0
	for i := 0; i < len(ranks); {
		j := i
		for j+1 < len(ranks) && ranks[j+1] == ranks[j]+1 {
			j++
		}
		switch {
		case len(parts) == maxRankRuns:
			rest += j - i + 1
		case i == j:
			parts = append(parts, fmt.Sprint(ranks[i]))
		default:
			parts = append(parts, fmt.Sprintf("%d-%d", ranks[i], ranks[j]))
		}
		i = j + 1
	}
	if rest > 0 {
		parts = append(parts, fmt.Sprintf("and %d more", rest))
	}
	return "ranks " + strings.Join(parts, ", ")
}
