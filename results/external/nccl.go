package external

import (
	"errors"
	"fmt"

	"efaxx/lineerr"
	"efaxx/results/nccltests"
)

// parseNCCL reads nccl-tests output through results/nccltests: the JSON
// file of -J when the run wrote one, else rank 0's text table (nccl-tests
// prints from rank 0 only). The other ranks' output may hold NCCL's log
// and nothing else. A table without nccl-tests' closing "# Out of bounds
// values" line was cut short and fails; a #wrong above 0 fails the run.
//
// Each size gives one sample per placement, the variant "out-of-place" or
// "in-place" (with the element type, reduction and root after it when
// the file holds several tables), and its time, algbw, busbw and #wrong
// as tool values.
func parseNCCL(in Input) (*Result, error) {
	table, rest := tableFile(in.Files)
	if table == nil {
		return nil, lineerr.Errors{formatError(fileNames(in.Files), 0, "no rank 0 output and no -J file: where is the table?")}
	}
	r, err := nccltests.Parse(table.Name, table.Data)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	s := &sink{}
	if _, cut := lines(table.Data); (cut && len(r.Args) == 0) || !r.Complete { // -J's JSON ends without a newline
		s.fail(table.Name, 0, "the output ends before nccl-tests' \"# Out of bounds values\" line: cut short")
	}
	for _, l := range r.Unread {
		s.unknown(table.Name, l.N, l.Text)
	}
	for _, f := range rest {
		scanNoise(s, f, func(string) bool { return false })
	}
	res := &Result{Fingerprint: r.Fingerprint()}
	addNCCLRows(s, res, r, table.Name)
	if res.Failed == "" {
		res.Failed = r.OutOfBounds(table.Name) // a failed check in no row kept
	}
	res.Problems = s.problems
	return res, s.err()
}

// tableFile returns the file that holds the results, the one the program
// wrote or rank 0's, and the others.
func tableFile(files []File) (*File, []File) {
	for i := range files {
		if files[i].Rank == -1 {
			return &files[i], append(append([]File(nil), files[:i]...), files[i+1:]...)
		}
	}
	for i := range files {
		if files[i].Rank == 0 {
			return &files[i], append(append([]File(nil), files[:i]...), files[i+1:]...)
		}
	}
	return nil, files
}

// addNCCLRows converts every row of r into samples and tool values.
func addNCCLRows(s *sink, res *Result, r *nccltests.Result, file string) {
	groups := r.Groups()
	for _, g := range groups {
		for _, placement := range []string{nccltests.OutOfPlace, nccltests.InPlace} {
			variant := placement
			if len(groups) > 1 {
				variant = fmt.Sprintf("%s %s %s %d", placement, g.Type, g.Redop, g.Root)
			}
			for _, row := range g.Rows {
				if m := row.Measure(placement); m != nil {
					addNCCLMeasure(s, res, r, file, row, m, variant)
				}
			}
		}
	}
}

// addNCCLMeasure adds one measurement of one row.
func addNCCLMeasure(s *sink, res *Result, r *nccltests.Result, file string, row nccltests.Row, m *nccltests.Measure, variant string) {
	smp, err := r.Sample(file, row, m)
	var le *lineerr.Error
	if errors.As(err, &le) {
		s.fail(file, row.Line, "%v", le.Err)
		return
	} else if err != nil {
		s.fail(file, row.Line, "%v", err)
		return
	}
	smp.Variant = variant
	res.Samples = append(res.Samples, smp)
	res.Values = append(res.Values, nccltests.Values(row, m, variant)...)
	if m.Wrong != nil && *m.Wrong > 0 && res.Failed == "" {
		res.Failed = fmt.Sprintf("%s:%d: nccl-tests data check: %g wrong elements at size %d (%s)",
			file, row.Line, *m.Wrong, row.Size, variant)
	}
}

// scanNoise reports every line of f that is neither blank, nor NCCL's or
// NVSHMEM's log, nor one that known accepts.
func scanNoise(s *sink, f File, known func(line string) bool) {
	ls, _ := lines(f.Data)
	for i, l := range ls {
		if isBlank(l) || logLine.MatchString(l) || known(l) {
			continue
		}
		s.unknown(f.Name, i+1, l)
	}
}

// isBlank reports whether l holds nothing but spaces.
func isBlank(l string) bool {
	for _, c := range l {
		if c != ' ' && c != '\t' {
			return false
		}
	}
	return true
}
