package plots

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"efaxx/harness"
	"efaxx/results"
)

// Runs returns the runs s picks, by id. By default only the latest ok run
// of each point of each sweep's newest version counts; a Selector that
// lists ids takes every session.
func (s Selector) Runs(ctx context.Context, db *results.DB) ([]results.Run, error) {
	f := results.RunFilter{IDs: s.IDs, Status: s.Status}
	switch f.Status {
	case "":
		f.Status = "ok"
	case "any":
		f.Status = ""
	}
	for _, k := range slices.Sorted(maps.Keys(s.Tags)) {
		f.Tags = append(f.Tags, results.TagFilter{Key: k, Value: s.Tags[k]})
	}
	for _, k := range slices.Sorted(maps.Keys(s.Params)) {
		v, err := harness.ParamOf(k, s.Params[k])
		if err != nil {
			return nil, err
		}
		f.Params = append(f.Params, harness.FilterOf(k, v))
	}
	sweeps := s.Sweeps
	if len(sweeps) == 0 {
		sweeps = []string{""}
	}
	var out []results.Run
	for _, sw := range sweeps {
		f.Sweep = sw
		runs, err := db.Runs(ctx, f)
		if err != nil {
			return nil, err
		}
		out = append(out, s.session(s.benchmarks(runs))...)
	}
	slices.SortFunc(out, func(a, b results.Run) int { return cmp.Compare(a.ID, b.ID) })
	return slices.CompactFunc(out, func(a, b results.Run) bool { return a.ID == b.ID }), nil
}

// benchmarks keeps the runs of s's benchmarks.
func (s Selector) benchmarks(runs []results.Run) []results.Run {
	if len(s.Benchmarks) == 0 {
		return runs
	}
	return slices.DeleteFunc(runs, func(r results.Run) bool { return !slices.Contains(s.Benchmarks, r.Benchmark) })
}

// session keeps the runs of the session s asks for. runs are newest
// first. The latest are the newest run of each point of the sweep file's
// newest version, so that the points a retry (efaxx submit --retry) ran
// in a session of their own join those its first session got right.
func (s Selector) session(runs []results.Run) []results.Run {
	session := s.Session
	if session == "" && len(s.IDs) == 0 {
		session = SessionLatest
	}
	switch session {
	case "", SessionAll:
		return runs
	case SessionLatest:
		version := map[string]string{} // sweep → the hash of its newest version
		taken := map[[2]string]bool{}  // sweep and point taken already
		return slices.DeleteFunc(runs, func(r results.Run) bool {
			if _, ok := version[r.Sweep]; !ok {
				version[r.Sweep] = r.SweepHash
			}
			key := [2]string{r.Sweep, r.Point}
			if r.SweepHash != version[r.Sweep] || taken[key] {
				return true
			}
			taken[key] = true
			return false
		})
	}
	return slices.DeleteFunc(runs, func(r results.Run) bool { return filepath.Base(filepath.Dir(r.Dir)) != session })
}

// String describes the selection for messages: "sweep gpu-proxy (latest
// session), benchmark proxy, params mode=nbi, status ok".
func (s Selector) String() string {
	var parts []string
	if len(s.Sweeps) > 0 {
		session := s.Session
		if session == "" && len(s.IDs) == 0 {
			session = SessionLatest
		}
		what := "sweep " + strings.Join(s.Sweeps, ", ")
		switch session {
		case SessionLatest, SessionAll:
			what += " (" + session + " session)"
		case "":
		default:
			what += " (session " + session + ")"
		}
		parts = append(parts, what)
	}
	if len(s.Benchmarks) > 0 {
		parts = append(parts, "benchmark "+strings.Join(s.Benchmarks, ", "))
	}
	if len(s.IDs) > 0 {
		parts = append(parts, "runs "+idRanges(s.IDs))
	}
	parts = append(parts, keyValues("params", s.Params)...)
	for _, k := range slices.Sorted(maps.Keys(s.Tags)) {
		parts = append(parts, fmt.Sprintf("tag %s=%s", k, s.Tags[k]))
	}
	status := s.Status
	if status == "" {
		status = "ok"
	}
	return strings.Join(append(parts, "status "+status), ", ")
}

// keyValues formats a parameter table as "params k=v k=v", or nothing.
func keyValues(what string, m map[string]any) []string {
	if len(m) == 0 {
		return nil
	}
	var kv []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		kv = append(kv, k+"="+results.ParamText(m[k]))
	}
	return []string{what + " " + strings.Join(kv, " ")}
}

// idRanges writes ids as "1-4,7": sorted, runs of consecutive ids joined.
func idRanges(ids []int64) string { return results.Ranges(ids) }

// runIDs returns the ids of runs.
func runIDs(runs []results.Run) []int64 {
	ids := make([]int64, len(runs))
	for i, r := range runs {
		ids[i] = r.ID
	}
	return ids
}
