package main

import (
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"efaxx/results/synth"
)

// TestShowImportedNCCL: show and plot state an imported nccl-tests run in
// nccl-tests' unit, busbw in GB/s (its Gbps would count algbw's bytes, not
// what a rank sent and received), and name nccl-tests' version as the
// tool's, never as efaxx's; nor a duration, which an import does not know.
func TestShowImportedNCCL(t *testing.T) {
	db := writeSynth(t, &synth.Run{UID: "a", Ranks: 2, Sizes: []uint64{4096}}) // run 1: efaxx's own
	file := "../../results/nccltests/testdata/h200_all_reduce_2.txt"
	if code, stdout, stderr := efaxx(t, "--db", db, "import", "nccl-tests", file); code != 0 {
		t.Fatalf("efaxx import nccl-tests = %d\n%s%s", code, stdout, stderr)
	}
	// Runs imported before the fix hold nccl-tests' version as the ranks'
	// efaxx_version.
	var fixed string
	sqlRow(t, db, `SELECT json_extract(fingerprint, '$.efaxx_version') FROM ranks WHERE run_id = 2 AND rank = 0`, &fixed)
	if fixed != "" {
		t.Errorf("imported rank 0's efaxx_version = %q, want none: efaxx did not run it", fixed)
	}
	s, err := sql.Open("sqlite3", db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Exec(`UPDATE ranks SET fingerprint = json_set(fingerprint, '$.efaxx_version', '2.17.9') WHERE run_id = 3`); err != nil {
		t.Fatal(err)
	}
	s.Close()

	for _, id := range []string{"2", "3"} {
		code, stdout, stderr := efaxx(t, "--db", db, "show", id)
		for _, want := range []string{"BUSBW GB/s MEDIAN", "    tool                   nccl-tests\n",
			"    version                2.17.9\n", "    host             vm\n"} {
			if code != 0 || !strings.Contains(stdout, want) {
				t.Errorf("efaxx show %s = %d, lacks %q:\n%s%s", id, code, want, stdout, stderr)
			}
		}
		for _, bad := range []string{"efaxx_version", "Gbps", "in_container", "took"} {
			if strings.Contains(stdout, bad) {
				t.Errorf("efaxx show %s shows %q, which the imported file did not say:\n%s", id, bad, stdout)
			}
		}
	}
	code, stdout, _ := efaxx(t, "--db", db, "show", "--format", "json", "2")
	var rec struct {
		Tool  map[string]any
		Sizes []struct {
			Size   uint64
			Metric string
			Median float64
		}
	}
	if err := json.Unmarshal([]byte(stdout), &rec); code != 0 || err != nil || rec.Tool["version"] != "2.17.9" ||
		len(rec.Sizes) == 0 || rec.Sizes[len(rec.Sizes)-1].Metric != "busbw" || rec.Sizes[len(rec.Sizes)-1].Median != 285.56 {
		t.Errorf("efaxx show --format json 2 = %d, %v: tool %v, sizes %+v; want nccl-tests 2.17.9 and busbw 285.56 GB/s at 128MiB",
			code, err, rec.Tool, rec.Sizes)
	}

	out := filepath.Join(t.TempDir(), "nccl.svg")
	if code, stdout, stderr := efaxx(t, "--db", db, "plot", "--run", "2", "--run", "3", "--out", out); code != 0 {
		t.Fatalf("efaxx plot --run 2 --run 3 = %d\n%s%s", code, stdout, stderr)
	}
	svg, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(svg), "busbw, GB/s") || strings.Contains(string(svg), "Gbps") {
		t.Errorf("plot of nccl-tests runs: want its axis in busbw GB/s, not Gbps")
	}
	if code, _, stderr := efaxx(t, "--db", db, "plot", "--run", "1", "--run", "2", "--out", out); code != 3 ||
		!strings.Contains(stderr, "one plot has one unit") {
		t.Errorf("efaxx plot of an efaxx run with an nccl-tests run = %d, %q; want 3: their units differ", code, stderr)
	}
}
