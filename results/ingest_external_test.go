package results_test

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"efaxx/results"
	"efaxx/results/record"
)

// externalRun writes a run of osu_latency over 2 ranks, as efaxx-runner's
// external mode leaves it: each rank's fingerprint and end record, rank
// 0's output as recorded in results/external/testdata (OMB 5.3 osu_latency,
// run here), rank 1's empty, as recorded.
// damage changes rank 0's output.
func externalRun(t *testing.T, uid string, damage func(string) string) string {
	t.Helper()
	return toolRun(t, uid, "osu:latency", "osu_latency", "osu", 2, "osu/omb53_latency.rank0.txt", damage)
}

// toolRun writes a run of an external program read by parser over ranks
// ranks: rank 0's output the recorded file (under
// results/external/testdata) as damage changes it, the other ranks' empty.
func toolRun(t *testing.T, uid, benchmark, program, parser string, ranks int, file string, damage func(string) string) string {
	t.Helper()
	r := newTestRun(uid, benchmark, ranks)
	r.manifest.Params = map[string]any{"program": program}
	dir := r.write(t, t.TempDir(), "000-"+parser)
	out, err := os.ReadFile(filepath.Join("external/testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(dir, record.StdoutFile(0)), damage(string(out)))
	for rank := 1; rank < ranks; rank++ {
		mustWrite(t, filepath.Join(dir, record.StdoutFile(rank)), "")
	}
	mustWrite(t, filepath.Join(dir, record.ExternalName), mustJSON(record.External{Argv: []string{program}, Parser: parser}))
	return dir
}

func TestIngestExternal(t *testing.T) {
	db := MustOpenDB(t)
	dir := externalRun(t, "ext-1", func(s string) string { return s + "a line no OSU prints\n" })
	rep := mustIngest(t, db, dir)
	if len(rep.Runs) != 1 || rep.Runs[0].Status != record.StatusOK || rep.Runs[0].Samples != 24 {
		t.Fatalf("ingest = %+v, want one ok run of 24 sizes", rep.Runs)
	}
	if len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0].Error(), "rank-00000.stdout:27: line not understood") {
		t.Errorf("problems = %v, want the line not understood at its file and line", rep.Problems)
	}
	id := rep.Runs[0].ID
	var latency float64
	var unit, parser string
	var bad int
	sqlDB := results.SQLDB(db)
	if err := sqlDB.QueryRow(`SELECT value, unit FROM tool_values WHERE run_id = ? AND size = 8 AND name = 'latency'`, id).
		Scan(&latency, &unit); err != nil || latency != 0.47 || !strings.HasPrefix(unit, "us") {
		t.Errorf("tool value latency at 8 B = %v %q (%v), want 0.47 us", latency, unit, err)
	}
	if err := sqlDB.QueryRow(`SELECT json_extract(fingerprint, '$.external.parser') FROM runs WHERE id = ?`, id).
		Scan(&parser); err != nil || parser != "osu" {
		t.Errorf("fingerprint external.parser = %q (%v), want osu", parser, err)
	}
	if err := sqlDB.QueryRow(`SELECT bad_lines FROM ranks WHERE run_id = ? AND rank = 0`, id).Scan(&bad); err != nil || bad != 1 {
		t.Errorf("rank 0 bad_lines = %d (%v), want 1", bad, err)
	}
	before := tableCounts(t, db)
	mustIngest(t, db, dir)
	if after := tableCounts(t, db); !maps.Equal(before, after) {
		t.Errorf("ingesting again changed the store: %v, then %v", before, after)
	}
}

func TestIngestExternalDamaged(t *testing.T) {
	db := MustOpenDB(t)
	tests := []struct {
		name, reason string
		damage       func(string) string
	}{
		{"cut mid-row", "the last line has no end", func(s string) string { return s[:len(s)-3] }},
		{"unknown column", "unknown column", func(s string) string { return strings.Replace(s, "Latency (us)", "Latency (ns)", 1) }},
		{"validation", "DATA VALIDATION ERROR", func(s string) string { return s + "DATA VALIDATION ERROR: exited with status 1\n" }},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := mustIngest(t, db, externalRun(t, "ext-bad-"+string(rune('a'+i)), tt.damage))
			if r := rep.Runs[0]; r.Status != record.StatusFailed || !strings.Contains(r.Reason, tt.reason) {
				t.Errorf("run = %s %q, want failed with %q", r.Status, r.Reason, tt.reason)
			}
		})
	}
}

func TestMetricsOfToolValues(t *testing.T) {
	db := MustOpenDB(t)
	mustIngest(t, db, externalRun(t, "ext-m", func(s string) string { return s }))
	importNCCLFile(t, db, "h100_all_reduce_8.txt")
	tests := []struct {
		metric, benchmark string
		size              uint64
		want              float64
	}{
		{"lat_us", "osu:latency", 8, 0.47},               // one way: the round trip halved
		{"tool:latency", "osu:latency", 8, 0.47},         // as OSU printed it
		{"busbw", "nccl:all_reduce", 8589934592, 368.09}, // as nccl-tests printed it, not computed
		{"algbw", "nccl:all_reduce", 8589934592, 210.34},
	}
	for _, tt := range tests {
		m, err := results.LookupMetric(tt.metric)
		if err != nil {
			t.Fatal(err)
		}
		f := results.RunFilter{Benchmark: tt.benchmark}
		if tt.benchmark == "nccl:all_reduce" {
			f.Params = []results.ParamFilter{{Key: "placement", Value: "out-of-place"}}
		}
		res, err := db.Query(t.Context(), results.Query{Filter: f, Metric: m, By: []string{}})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, r := range res.Rows {
			if r.Size == tt.size {
				found = true
				if r.Median < tt.want-1e-6 || r.Median > tt.want+1e-6 {
					t.Errorf("%s of %s at %d = %v, want %v", tt.metric, tt.benchmark, tt.size, r.Median, tt.want)
				}
			}
		}
		if !found {
			t.Errorf("%s of %s: no row at size %d in %+v", tt.metric, tt.benchmark, tt.size, res.Rows)
		}
	}
	if _, err := results.LookupMetric("tool:x'; DROP TABLE runs"); err == nil {
		t.Error("LookupMetric accepted a tool value name that is not a name")
	}
}
