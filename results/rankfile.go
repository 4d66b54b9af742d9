package results

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"efaxx/lineerr"
	"efaxx/results/record"
)

// maxLine is the longest NDJSON line ingest reads. Records are a few
// hundred bytes and fingerprints a few KiB; a longer line is damage, and
// is skipped whole while the lines after it are read.
const maxLine = 1 << 20

// rankFile is what ingest learnt of one rank from its file.
type rankFile struct {
	rank     int
	found    bool             // the file exists
	fp       *record.Rank     // the fingerprint record; nil when absent or unreadable
	fpJSON   string           // the fingerprint line as written, compacted
	end      *record.End      // the end record; nil when the file was cut short
	badLines int              // lines skipped as unreadable or invalid
	samples  int              // sample rows this ingest added
	problems []*lineerr.Error // the skipped lines, in line order
	run      *runShape        // what the run's samples may be; nil for anything

	seen map[sampleKey]seenSample // while reading: the samples so far
}

// runShape is what the manifest says a run's samples can be: its sizes,
// and its ranks, the only ones to measure and the only peers there are. A
// sample outside them was not measured by this run (a file from another
// run, a runner's bug), and is reported rather than stored as if it were.
type runShape struct {
	ranks int
	sizes map[uint64]bool // nil when the manifest lists none (written before sizes were)
}

// shapeOf returns the shape of the run of m.
func shapeOf(m *record.Manifest) *runShape {
	s := &runShape{ranks: m.Ranks}
	if len(m.Sizes) > 0 {
		s.sizes = map[uint64]bool{}
		for _, size := range m.Sizes {
			s.sizes[size] = true
		}
	}
	return s
}

// check returns why sample smp, of the file of rank, is not one of the
// run's, or "".
func (s *runShape) check(rank int, smp *record.Sample) string {
	switch {
	case s == nil:
		return ""
	case s.sizes != nil && !s.sizes[smp.Size]:
		return fmt.Sprintf("sample size %d: not a size of the run (%s sizes)", smp.Size, record.ManifestName)
	case rank >= s.ranks: // the file of a rank the run did not launch
		return fmt.Sprintf("sample size %d: rank %d is not a rank of the run's %d", smp.Size, rank, s.ranks)
	case smp.Peer < -1 || smp.Peer >= s.ranks || smp.Peer == rank:
		return fmt.Sprintf("sample size %d: peer %d is not another rank of the run's %d (or -1 for several)",
			smp.Size, smp.Peer, s.ranks)
	}
	return ""
}

// batchRows is how many sample rows the parser hands to the writer at
// once, from one rank file or several: a file holds a few dozen samples,
// and handing them over one file at a time would wake the writer as often.
const batchRows = 1024

// readRanks reads the rank files of dir, the run directory of m, storing
// their samples in run runID. It returns one rankFile per rank
// 0..m.Ranks-1, present or not, plus one per other rank file present, in
// rank order, and the problems of all of them.
//
// Files are read and decoded on a second goroutine while this one inserts
// what it has decoded so far: both halves take about as long, and the
// database is only ever touched from here, on conn, inside the
// transaction the caller holds open on it.
func readRanks(ctx context.Context, conn *sql.Conn, runID int64, dir string, m *record.Manifest) ([]rankFile, []*lineerr.Error, error) {
	ranks, present, err := rankSet(dir, m.Ranks)
	if err != nil {
		return nil, nil, err
	}
	files := make([]rankFile, len(ranks))
	shape := shapeOf(m)
	for i, r := range ranks {
		files[i] = rankFile{rank: r, found: present[r], run: shape}
	}
	var added map[int]int
	err = withSampleWriter(conn, runID, func(w *sampleWriter) error {
		added, err = w.drain(ctx, func(ctx context.Context, out chan<- []sampleRow) error {
			return parseFiles(ctx, dir, files, isRunning(m), out)
		})
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	var problems []*lineerr.Error
	for i := range files {
		files[i].samples = added[files[i].rank]
		problems = append(problems, files[i].problems...)
	}
	return files, problems, nil
}

// parseFiles reads each present file of files in turn, filling in what it
// learns and sending its sample rows to out.
func parseFiles(ctx context.Context, dir string, files []rankFile, running bool, out chan<- []sampleRow) error {
	buf := make([]byte, 0, 64<<10) // the line buffer, shared by the files read one after another
	b := &batcher{ctx: ctx, out: out}
	for i := range files {
		if !files[i].found {
			continue
		}
		path := filepath.Join(dir, record.RankFile(files[i].rank))
		if err := files[i].read(ctx, path, buf, running, b.add); err != nil {
			return err
		}
	}
	return b.flush()
}

// batcher gathers sample rows into batches of batchRows for the writer.
type batcher struct {
	ctx  context.Context
	out  chan<- []sampleRow
	rows []sampleRow
}

// add queues r, sending the batch when it is full.
func (b *batcher) add(r sampleRow) error {
	if b.rows == nil {
		b.rows = make([]sampleRow, 0, batchRows)
	}
	b.rows = append(b.rows, r)
	if len(b.rows) < batchRows {
		return nil
	}
	return b.flush()
}

// flush sends the rows queued, if any.
func (b *batcher) flush() error {
	if len(b.rows) == 0 {
		return nil
	}
	select {
	case b.out <- b.rows:
		b.rows = nil
		return nil
	case <-b.ctx.Done():
		return b.ctx.Err()
	}
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

// read streams the file at path line by line, passing its sample rows to
// add. Lines that are not usable records become problems; only I/O errors
// and add's errors stop it. While the run is running, a last
// line without its newline is one the runner is still writing: it is left
// for the next ingest, not reported.
//
// buf is the line buffer to use; a line longer than its capacity makes
// the scanner allocate its own.
func (f *rankFile) read(ctx context.Context, path string, buf []byte, running bool, add func(sampleRow) error) error {
	file, err := os.Open(path)
	if err != nil {
		return err
	}
	defer file.Close()
	return f.readFrom(ctx, file, path, buf, running, add)
}

// readFrom is read of the file at path, open as r.
func (f *rankFile) readFrom(ctx context.Context, r io.Reader, path string, buf []byte, running bool, add func(sampleRow) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(buf[:0], maxLine)
	var tail tailSplit
	sc.Split(tail.split)
	n := 0
	for sc.Scan() {
		n++
		if err := ctx.Err(); err != nil {
			return err
		}
		if tail.long {
			if !(running && tail.unterminated) {
				f.problem(path, n, fmt.Sprintf("line longer than %d bytes, skipped", maxLine))
			}
			continue
		}
		row, ok, msg := f.add(sc.Bytes())
		switch {
		case msg != "" && !(running && tail.unterminated):
			f.problem(path, n, msg)
		case ok:
			if msg := f.duplicate(row, n); msg != "" {
				f.problem(path, n, msg)
				continue
			}
			if err := add(row); err != nil {
				return err
			}
		}
	}
	f.seen = nil
	if more := f.badLines - maxProblems; more > 0 {
		f.problems = append(f.problems, &lineerr.Error{File: path,
			Err: fmt.Errorf("%d more unusable lines, not listed (ranks.bad_lines counts them all)", more)})
	}
	return sc.Err()
}

// sampleKey is what tells a rank's samples apart: the key of the samples
// table within one run and rank.
type sampleKey struct {
	size, peer int64
	variant    string
}

// seenSample is the first sample of a key in a file, and its line.
type seenSample struct {
	row  sampleRow
	line int
}

// duplicate returns why row, read at line n, is not stored, or "". The
// store keeps the first sample of a key, so a second one that differs
// would be dropped unsaid; an exact copy of a line adds nothing and is
// let through.
func (f *rankFile) duplicate(row sampleRow, n int) string {
	if f.seen == nil {
		f.seen = map[sampleKey]seenSample{}
	}
	key := sampleKey{row.size, row.peer, row.variant}
	first, ok := f.seen[key]
	switch {
	case !ok:
		f.seen[key] = seenSample{row, n}
		return ""
	case first.row == row:
		return ""
	}
	what := fmt.Sprintf("size %d, peer %d", row.size, row.peer)
	if row.variant != "" {
		what += fmt.Sprintf(", variant %q", row.variant)
	}
	return fmt.Sprintf("second sample of %s, unlike the one at line %d, which is kept", what, first.line)
}

// maxProblems is how many skipped lines of one file are reported one by
// one; one more problem counts the rest. A file of garbage (a binary
// written over it, a damaged disk) has a "line" every few hundred bytes:
// listing each drowned the report, and held them all in memory.
const maxProblems = 20

// problem records line n of the file at path as skipped, for msg.
func (f *rankFile) problem(path string, n int, msg string) {
	f.badLines++
	if f.badLines <= maxProblems {
		f.problems = append(f.problems, &lineerr.Error{File: path, Line: n, Err: errors.New(msg)})
	}
}

// tailSplit splits lines as bufio.ScanLines does and notes whether the
// last line lacked its newline. A line longer than maxLine is dropped as
// it is read, not kept whole: it becomes one empty token with long set,
// and the lines after it are read as usual.
type tailSplit struct {
	unterminated bool
	skipping     bool // within a line longer than maxLine
	long         bool // the last token stands for a line longer than maxLine
}

// split is a bufio.SplitFunc.
func (t *tailSplit) split(data []byte, atEOF bool) (int, []byte, error) {
	t.long = false
	i := bytes.IndexByte(data, '\n')
	switch {
	case t.skipping && i >= 0:
		t.skipping, t.long = false, true
		return i + 1, []byte{}, nil
	case t.skipping && atEOF:
		t.skipping, t.long, t.unterminated = false, true, true
		return len(data), []byte{}, nil
	case t.skipping || (i < 0 && !atEOF && len(data) >= maxLine):
		// The scanner's buffer is full and holds no newline: drop what
		// it holds, so that it never fails with bufio.ErrTooLong.
		t.skipping = true
		return len(data), nil, nil
	}
	advance, token, err := bufio.ScanLines(data, atEOF)
	if atEOF && token != nil && i < 0 {
		t.unterminated = true
	}
	return advance, token, err
}

// add takes one line of the file. It returns the sample row the line
// holds and true, if it holds one, or why the line was skipped.
func (f *rankFile) add(line []byte) (sampleRow, bool, string) {
	if len(bytes.TrimSpace(line)) == 0 {
		return sampleRow{}, false, ""
	}
	var s record.Sample
	if record.DecodeSample(line, &s) {
		return f.addSample(&s)
	}
	v, err := record.Decode(line)
	if err != nil {
		return sampleRow{}, false, decodeMessage(err)
	}
	if f.end != nil {
		return sampleRow{}, false, "record after the end record"
	}
	switch r := v.(type) {
	case *record.Rank:
		return sampleRow{}, false, f.addRank(r, line)
	case *record.Sample:
		return f.addSample(r)
	case *record.End:
		if msg := f.foreign("end", r.Rank); msg != "" {
			return sampleRow{}, false, msg
		}
		f.end = r
	}
	return sampleRow{}, false, ""
}

// decodeMessage says why a line did not decode, naming the key where
// encoding/json says which, as the problems of a run.json do: "size: number
// -5, want uint64", not "json: cannot unmarshal number -5 into Go struct
// field Sample.size of type uint64", which names efaxx's Go type.
func decodeMessage(err error) string {
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) && typ.Field != "" {
		return fmt.Sprintf("%s: %s, want %s", typ.Field, typ.Value, typ.Type)
	}
	return err.Error()
}

// addSample takes the sample record s.
func (f *rankFile) addSample(s *record.Sample) (sampleRow, bool, string) {
	if f.end != nil {
		return sampleRow{}, false, "record after the end record"
	}
	if msg := f.foreign("sample", s.Rank); msg != "" {
		return sampleRow{}, false, msg
	}
	if msg := f.run.check(f.rank, s); msg != "" {
		return sampleRow{}, false, msg
	}
	row, msg := rowOf(s)
	return row, msg == "", msg
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
