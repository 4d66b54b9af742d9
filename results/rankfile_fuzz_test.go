package results

import (
	"bytes"
	"testing"
)

// FuzzReadRankFile feeds the NDJSON reader of ingest arbitrary bytes as
// the file of rank 0 of a finished run. Whatever the bytes, it must not
// fail or panic; every problem must name the file and a line it has, and
// count as a bad line, the first maxProblems of them each with its line
// and the rest in one problem; no line may give more than one sample, and every
// sample must be rank 0's. Seeds are in testdata/fuzz/FuzzReadRankFile;
// the store's side of the same files is in ingest_test.go.
func FuzzReadRankFile(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		const path = "run/rank-00000.ndjson"
		rf := rankFile{rank: 0, found: true}
		var rows []sampleRow
		err := rf.readFrom(t.Context(), bytes.NewReader(data), path, make([]byte, 0, 4096), false, func(r sampleRow) error {
			rows = append(rows, r)
			return nil
		})
		if err != nil {
			t.Fatalf("read(%q) = %v, want no error: bad bytes are problems", data, err)
		}
		lines := bytes.Count(data, []byte("\n")) + 1
		listed := min(rf.badLines, maxProblems)
		for i, p := range rf.problems {
			atLine := p.Line >= 1 && p.Line <= lines+1
			if p.File != path || p.Err == nil || (i < listed) != atLine {
				t.Fatalf("problem %d %+v of a file of %d lines, %d bad", i, p, lines, rf.badLines)
			}
		}
		if want := listed + min(rf.badLines-listed, 1); len(rf.problems) != want || len(rows) > lines {
			t.Fatalf("%d problems, %d bad lines, %d rows from %d lines", len(rf.problems), rf.badLines, len(rows), lines)
		}
		for _, r := range rows {
			if r.rank != 0 || r.size < 0 || r.nums[3] <= 0 {
				t.Fatalf("row %+v: want rank 0, a size and an elapsed time", r)
			}
		}
	})
}
