package results

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"efaxx/results/record"
)

// maxLine is the longest NDJSON line ingest reads. Records are a few
// hundred bytes and fingerprints a few KiB; a longer line is damage.
const maxLine = 1 << 20

// rankFile is what ingest learnt of one rank from its file.
type rankFile struct {
	rank     int
	found    bool         // the file exists
	fp       *record.Rank // the fingerprint record; nil when absent or unreadable
	fpJSON   string       // the fingerprint line as written, compacted
	end      *record.End  // the end record; nil when the file was cut short
	badLines int          // lines skipped as unreadable or invalid
	samples  int          // sample rows this ingest added
}

// readRanks reads the rank files of dir, the run directory of m, storing
// their samples in run runID. It returns one rankFile per rank
// 0..m.Ranks-1, present or not, plus one per other rank file present, in
// rank order.
func readRanks(ctx context.Context, tx *sql.Tx, runID int64, dir string, m *record.Manifest) ([]rankFile, []Problem, error) {
	ranks, present, err := rankSet(dir, m.Ranks)
	if err != nil {
		return nil, nil, err
	}
	w, err := newSampleWriter(ctx, tx, runID)
	if err != nil {
		return nil, nil, err
	}
	defer w.close()

	files := make([]rankFile, 0, len(ranks))
	var problems []Problem
	for _, r := range ranks {
		f := rankFile{rank: r, found: present[r]}
		if f.found {
			p, err := f.read(ctx, w, filepath.Join(dir, record.RankFile(r)), isRunning(m))
			if err != nil {
				return nil, nil, err
			}
			problems = append(problems, p...)
		}
		files = append(files, f)
	}
	return files, problems, nil
}

// rankSet returns the ranks ingest reports on, 0..want-1 and any rank
// whose file is in dir, sorted, and which of them have a file.
func rankSet(dir string, want int) ([]int, map[int]bool, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	present := map[int]bool{}
	for _, e := range entries {
		if r, ok := rankOfFile(e.Name()); ok && !e.IsDir() {
			present[r] = true
		}
	}
	ranks := make([]int, 0, max(want, len(present)))
	for r := range want {
		ranks = append(ranks, r)
	}
	for r := range present {
		if r >= want {
			ranks = append(ranks, r)
		}
	}
	sort.Ints(ranks)
	return ranks, present, nil
}

// rankOfFile returns the rank whose file is named name, if it is one.
func rankOfFile(name string) (int, bool) {
	num, ok := strings.CutPrefix(name, "rank-")
	if !ok {
		return 0, false
	}
	num, ok = strings.CutSuffix(num, ".ndjson")
	r, err := strconv.Atoi(num)
	return r, ok && err == nil && record.RankFile(r) == name
}

// read streams the file at path line by line. Lines that are not usable
// records come back as Problems; only I/O and database errors stop it.
// While the run is running, a last line without its newline is one the
// runner is still writing: it is left for the next ingest, not reported.
func (f *rankFile) read(ctx context.Context, w *sampleWriter, path string, running bool) ([]Problem, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()

	sc := bufio.NewScanner(file)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	var tail tailSplit
	sc.Split(tail.split)
	var problems []Problem
	n := 0
	for sc.Scan() {
		n++
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		msg, err := f.add(ctx, w, sc.Bytes())
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		if msg != "" && !(running && tail.unterminated) {
			f.badLines++
			problems = append(problems, Problem{File: path, Line: n, Msg: msg})
		}
	}
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		f.badLines++
		msg := fmt.Sprintf("line longer than %d bytes; rest of the file skipped", maxLine)
		problems = append(problems, Problem{File: path, Line: n + 1, Msg: msg})
	} else if err != nil {
		return nil, err
	}
	return problems, nil
}

// tailSplit splits lines as bufio.ScanLines does and notes whether the
// last line lacked its newline.
type tailSplit struct {
	unterminated bool
}

// split is a bufio.SplitFunc.
func (t *tailSplit) split(data []byte, atEOF bool) (int, []byte, error) {
	advance, token, err := bufio.ScanLines(data, atEOF)
	if atEOF && token != nil && bytes.IndexByte(data, '\n') < 0 {
		t.unterminated = true
	}
	return advance, token, err
}

// add takes one line of the file. It returns why the line was skipped, or
// "" when it was used.
func (f *rankFile) add(ctx context.Context, w *sampleWriter, line []byte) (string, error) {
	if len(bytes.TrimSpace(line)) == 0 {
		return "", nil
	}
	v, err := record.Decode(line)
	if err != nil {
		return err.Error(), nil
	}
	if f.end != nil {
		return "record after the end record", nil
	}
	switch r := v.(type) {
	case *record.Rank:
		return f.addRank(r, line), nil
	case *record.Sample:
		if msg := f.foreign("sample", r.Rank); msg != "" {
			return msg, nil
		}
		added, msg, err := w.insert(ctx, r)
		if added {
			f.samples++
		}
		return msg, err
	case *record.End:
		if msg := f.foreign("end", r.Rank); msg != "" {
			return msg, nil
		}
		f.end = r
	}
	return "", nil
}

// addRank takes the fingerprint record r, read from line.
func (f *rankFile) addRank(r *record.Rank, line []byte) string {
	if msg := f.foreign("rank", r.Rank); msg != "" {
		return msg
	}
	if f.fp != nil {
		return "second rank record"
	}
	// Keep the line as written rather than r re-encoded, so that fields
	// a newer runner adds to the fingerprint are stored too.
	var b bytes.Buffer
	if err := json.Compact(&b, line); err != nil {
		return err.Error()
	}
	f.fp, f.fpJSON = r, b.String()
	return ""
}

// foreign returns why a record of the given kind that names rank does not
// belong in this file, or "" when it does.
func (f *rankFile) foreign(kind string, rank int) string {
	if rank == f.rank {
		return ""
	}
	return fmt.Sprintf("%s record of rank %d in the file of rank %d", kind, rank, f.rank)
}

// firstFingerprint returns the lowest rank with a fingerprint, rank 0 when
// it has one, or nil when none has.
func firstFingerprint(files []rankFile) *rankFile {
	for i := range files {
		if files[i].fp != nil {
			return &files[i]
		}
	}
	return nil
}

// runHosts returns the distinct hosts of the ranks, in rank order.
func runHosts(files []rankFile) []string {
	seen := map[string]bool{}
	var hosts []string
	for _, f := range files {
		if f.fp != nil && f.fp.Host != "" && !seen[f.fp.Host] {
			seen[f.fp.Host] = true
			hosts = append(hosts, f.fp.Host)
		}
	}
	return hosts
}
