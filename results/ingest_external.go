package results

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"efaxx/lineerr"
	"efaxx/results/external"
	"efaxx/results/record"
)

// maxOutput bounds how much of one output file ingest reads: a tool's
// results are a few KiB, and NCCL's log at INFO a few MiB.
const maxOutput = 64 << 20

// externalRun is the external program a run directory records, and its
// output as read.
type externalRun struct {
	spec  record.External
	in    external.Input
	ranks map[string]int   // output file → the rank whose it is
	big   []*lineerr.Error // files cut at maxOutput
}

// readExternal reads the external.json of dir and the run's output, or
// returns nil when dir is not a run of an external program.
func readExternal(dir string, m *record.Manifest) (*externalRun, error) {
	b, err := os.ReadFile(filepath.Join(dir, record.ExternalName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	x := &externalRun{ranks: map[string]int{}}
	if err := json.Unmarshal(b, &x.spec); err != nil {
		return nil, fmt.Errorf("%s: %w", record.ExternalName, err)
	}
	x.in = external.Input{Ranks: m.Ranks, Sizes: m.Sizes}
	if x.spec.Output != "" {
		return x, x.addFile(filepath.Join(dir, x.spec.Output), -1)
	}
	for r := 0; r < m.Ranks; r++ {
		if err := x.addFile(filepath.Join(dir, record.StdoutFile(r)), r); err != nil {
			return nil, err
		}
	}
	return x, nil
}

// addFile reads one output file, if it exists.
func (x *externalRun) addFile(path string, rank int) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxOutput+1))
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	if len(data) > maxOutput {
		data = data[:maxOutput]
		x.big = append(x.big, &lineerr.Error{File: path, Err: fmt.Errorf("longer than %d MiB: read the first %d MiB only", maxOutput>>20, maxOutput>>20)})
	}
	x.in.Files = append(x.in.Files, external.File{Name: path, Rank: rank, Data: data})
	x.ranks[path] = rank
	return nil
}

// ingestExternal parses the output of run out, once it has ended, and
// stores its samples and tool values within tx. A table that does not
// read, or a tool's own check that failed, fails a run that was ok; lines
// the parser did not understand are problems, counted as bad lines of
// their rank.
//
// It returns what the tool said of itself, for the run's fingerprint, and
// the problems.
func ingestExternal(ctx context.Context, tx *sql.Tx, x *externalRun, out *IngestedRun, files []rankFile) (map[string]any, []*lineerr.Error, error) {
	if out.Status == record.StatusRunning {
		return nil, nil, nil // its output is not complete yet
	}
	problems := append([]*lineerr.Error(nil), x.big...)
	if x.spec.Output != "" && len(x.in.Files) == 0 {
		failRun(out, fmt.Sprintf("the program wrote no %s", x.spec.Output))
		return nil, problems, nil
	}
	res, err := external.Parse(x.spec.Parser, x.in)
	if err != nil {
		failRun(out, "output: "+firstLines(err.Error(), 3))
		return nil, problems, nil
	}
	for _, p := range res.Problems {
		problems = append(problems, p)
		countBadLine(files, x.ranks, p.File)
	}
	n, err := insertSamples(ctx, tx, out.ID, res.Samples)
	if err != nil {
		return nil, problems, err
	}
	out.Samples += n
	if err := insertToolValues(ctx, tx, out.ID, res.Values); err != nil {
		return nil, problems, err
	}
	if res.Failed != "" {
		failRun(out, res.Failed)
	}
	return res.Fingerprint, problems, nil
}

// failRun marks a run that was ok or partial failed with reason; a run
// that failed already keeps its reason, which came first.
func failRun(out *IngestedRun, reason string) {
	if out.Status == record.StatusOK || out.Status == record.StatusPartial {
		out.Status, out.Reason = record.StatusFailed, reason
	}
}

// countBadLine counts a line not understood in file against its rank.
func countBadLine(files []rankFile, ranks map[string]int, file string) {
	r, ok := ranks[file]
	for i := range files {
		if ok && files[i].rank == r {
			files[i].badLines++
		}
	}
}

// setExternalFingerprint adds what the tool said of itself, and how it was
// launched, to the run's fingerprint under "external".
func setExternalFingerprint(ctx context.Context, tx *sql.Tx, id int64, spec record.External, tool map[string]any) error {
	fp := map[string]any{"argv": spec.Argv, "parser": spec.Parser, "env": spec.Env, "tool": tool}
	text, err := json.Marshal(fp)
	if err != nil {
		return fmt.Errorf("encode external fingerprint: %w", err)
	}
	_, err = tx.ExecContext(ctx, `UPDATE runs SET fingerprint = json_set(fingerprint, '$.external', json(?)) WHERE id = ?`,
		string(text), id)
	return err
}

// firstLines returns the first n lines of s, saying how many more there are.
func firstLines(s string, n int) string {
	ls := strings.Split(s, "\n")
	if len(ls) <= n {
		return s
	}
	return strings.Join(ls[:n], "; ") + fmt.Sprintf(" (and %d more)", len(ls)-n)
}
