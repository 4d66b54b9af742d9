package results

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"efaxx/lineerr"
	"efaxx/results/nccltests"
	"efaxx/results/record"
)

// NCCLImport says how to turn an nccl-tests output file into runs.
type NCCLImport struct {
	File       string    // the file, for names and messages
	Text       []byte    // its bytes, hashed into the runs' uids and stored as provenance
	Collective string    // overrides the file's collective ("all_reduce"); "" keeps it
	Start      time.Time // when the test ran, when the file does not say (the text form)
}

// NCCLTestsRuns returns the runs of r to store: one per element type,
// reduction, root and placement, with one sample per message size (see
// nccltests.Result.Sample) and nccl-tests' own numbers as tool values.
func NCCLTestsRuns(r *nccltests.Result, in NCCLImport) ([]*ImportedRun, error) {
	coll := in.Collective
	if coll == "" {
		coll = r.Collective()
	}
	if coll == "" {
		return nil, &lineerr.Error{File: in.File, Err: lineerr.Mark(nccltests.ErrFormat,
			`which collective? the file has no "# Collective test starting:" line: name it (--collective all_reduce)`)}
	}
	sum := sha256.Sum256(in.Text)
	hash := hex.EncodeToString(sum[:])
	start := ncclStart(r, in.Start)
	var runs []*ImportedRun
	for _, g := range r.Groups() {
		for _, placement := range []string{nccltests.OutOfPlace, nccltests.InPlace} {
			run, err := ncclRun(r, in, coll, hash, start, g, placement)
			if err != nil {
				return nil, err
			}
			if run != nil {
				runs = append(runs, run)
			}
		}
	}
	// nccl-tests' count of failed checks fails the file's runs when no
	// row kept shows one (a repeated size's row, Group).
	if reason := r.OutOfBounds(in.File); reason != "" && !slices.ContainsFunc(runs, func(run *ImportedRun) bool {
		return run.Status == record.StatusFailed && strings.HasPrefix(run.Reason, "nccl-tests data check")
	}) {
		for _, run := range runs {
			run.Status, run.Reason = record.StatusFailed, reason
		}
	}
	return runs, nil
}

// ncclStart returns when the test started: the JSON's start_time, read
// as local time as nccl-tests writes it, or fallback.
func ncclStart(r *nccltests.Result, fallback time.Time) time.Time {
	if t, err := time.ParseInLocation("2006-01-02 15:04:05", r.Start, time.Local); err == nil {
		return t
	}
	return fallback
}

// ncclRun returns the run of one group and placement, or nil when the
// test did not measure that placement.
func ncclRun(r *nccltests.Result, in NCCLImport, coll, hash string, start time.Time, g *nccltests.Group, placement string) (*ImportedRun, error) {
	params := map[string]any{"placement": placement, "type": g.Type, "redop": g.Redop, "root": g.Root,
		"ranks": len(r.Devices), "iterations": r.Iterations}
	benchmark := "nccl:" + coll
	run := &ImportedRun{
		UID:       fmt.Sprintf("nccl-tests-%s-%s-%s-%s-%d", hash[:16], placement, g.Type, g.Redop, g.Root),
		Sweep:     strings.TrimSuffix(filepath.Base(in.File), filepath.Ext(in.File)),
		SweepHash: "nccl-tests-" + hash, Spec: string(in.Text), Point: importPointHash(benchmark, params),
		Benchmark: benchmark, Params: params, Executor: "nccl-tests", Command: r.Args,
		StartNs: start.UnixNano(), Status: record.StatusOK, File: in.File,
		Ranks: r.Ranks(benchmark), Fingerprint: r.Fingerprint(),
	}
	for _, row := range g.Rows {
		m := row.Measure(placement)
		if m == nil {
			continue
		}
		s, err := r.Sample(in.File, row, m)
		if err != nil {
			return nil, err
		}
		run.Samples = append(run.Samples, s)
		run.Values = append(run.Values, nccltests.Values(row, m, "")...)
		if m.Wrong != nil && *m.Wrong > 0 && run.Status == record.StatusOK {
			run.Status = record.StatusFailed
			run.Reason = fmt.Sprintf("nccl-tests data check: %g wrong elements at size %d", *m.Wrong, row.Size)
		}
	}
	if len(run.Samples) == 0 {
		return nil, nil
	}
	if !r.Complete && run.Status == record.StatusOK {
		// A job stopped mid-test leaves a table without its footer: the
		// sizes after the last row are missing, not measured (an external
		// sweep's run fails alike).
		run.Status = record.StatusFailed
		run.Reason = `the output ends before nccl-tests' "# Out of bounds values" line: cut short`
	}
	return run, nil
}

// importPointHash is the content hash of an imported benchmark and its
// params.
func importPointHash(benchmark string, params map[string]any) string {
	b, _ := json.Marshal(map[string]any{"benchmark": benchmark, "params": params}) // plain values always encode
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}
