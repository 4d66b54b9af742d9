package harness

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"efaxx/results/record"
)

// progress reads a run directory while its ranks write it: how many ranks
// have written their fingerprint, and how many sizes have samples in
// rank 0's file (sizes change in order, each once).
func progress(dir string, ranks int) (started, sizes int) {
	for r := 0; r < ranks; r++ {
		if fi, err := os.Stat(filepath.Join(dir, record.RankFile(r))); err == nil && fi.Size() > 0 {
			started++
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, record.RankFile(0)))
	if err != nil {
		return started, 0
	}
	seen := map[uint64]bool{}
	for _, line := range bytes.Split(data, []byte("\n")) {
		var s struct {
			Type string `json:"type"`
			Size uint64 `json:"size"`
		}
		if json.Unmarshal(line, &s) == nil && s.Type == record.TypeSample {
			seen[s.Size] = true
		}
	}
	return started, len(seen)
}

// lastLines returns the last n non-empty lines of a text file, joined by
// "; ", for an error message; only its last 64 KiB are read.
func lastLines(path string, n int) string { return tailLines(string(fileTail(path, 64<<10)), n) }

// tailLines returns the last n non-empty lines of text, trimmed, but
// mpirun's separator lines ("-----"), joined by "; ".
func tailLines(text string, n int) string {
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "---") {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines[max(0, len(lines)-n):], "; ")
}

// crashLine matches the first line of a crash report: the Go runtime's
// (a panic, a fatal error, a signal in Go or cgo code), libinfinipath's
// (Debian's libfabric loads it, and its handler reports a fault in C code
// that the Go runtime forwards to it: "efaxx-runner:PID terminated with
// signal 11 at PC=..."), or a shell's or srun's word for a task killed
// by a signal.
var crashLine = regexp.MustCompile(`^(panic: |fatal error: |SIG[A-Z]+: )|terminated with signal [0-9]+|` +
	`Segmentation fault|Bus error|Illegal instruction|Floating point exception`)

// taskLabel matches srun --label's prefix of a task's line: the task's
// number (its MPI rank), right-aligned, and ": ".
var taskLabel = regexp.MustCompile(`(?m)^ *([0-9]+): `)

// taskOutput reads the end of a Slurm step's output file (srun --output
// of every task) without the tasks' labels: what the tasks printed.
func taskOutput(path string, n int64) string {
	return taskLabel.ReplaceAllString(string(fileTail(path, n)), "")
}

// crashLines returns n non-empty lines of text joined by "; ", at most
// 500 bytes of them: from the first line of a crash report if there is
// one (a Go report's hundred lines name the cause first and end with
// registers; a killed peer's lines come after it), else the last n; and
// whether they are a crash report's. In labeled text (srun --label: every
// task's lines in one file) a crash report is its task's lines alone,
// after "rank N: ".
func crashLines(text string, n int, labeled bool) (string, bool) {
	var lines, ranks []string
	from := -1
	for _, line := range strings.Split(text, "\n") {
		rank := ""
		if m := taskLabel.FindStringSubmatch(line); labeled && m != nil {
			rank, line = m[1], line[len(m[0]):]
		}
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		if from < 0 && crashLine.MatchString(line) {
			from = len(lines)
		}
		lines, ranks = append(lines, line), append(ranks, rank)
	}
	if from >= 0 {
		var said []string
		for i := from; i < len(lines) && len(said) < n; i++ {
			if ranks[i] == ranks[from] {
				said = append(said, lines[i])
			}
		}
		if ranks[from] != "" {
			said[0] = "rank " + ranks[from] + ": " + said[0]
		}
		s := strings.Join(said, "; ")
		return s[:min(len(s), 500)], true
	}
	s := tailLines(text, n)
	if len(s) > 500 {
		s = s[len(s)-500:]
		if i := strings.Index(s, "; "); i >= 0 {
			s = s[i+2:] // from a line's start, not the middle of a word
		}
	}
	return s, false
}
