package harness

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
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
