package results_test

import (
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"efaxx/results"
	"efaxx/results/nccltests"
	"efaxx/results/record"
)

// importNCCLFile parses and imports testdata/name into db.
func importNCCLFile(t *testing.T, db *results.DB, name string) []results.IngestedRun {
	t.Helper()
	data, err := os.ReadFile("nccltests/testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	r, err := nccltests.Parse(name, data)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := results.NCCLTestsRuns(r, results.NCCLImport{File: "nccltests/testdata/" + name, Text: data, Start: time.Unix(1_800_000_000, 0)})
	if err != nil {
		t.Fatal(err)
	}
	var out []results.IngestedRun
	for _, run := range runs {
		got, err := db.ImportRun(t.Context(), run)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, got)
	}
	return out
}

func TestImportNCCLTests(t *testing.T) {
	db, err := results.Open(t.Context(), filepath.Join(t.TempDir(), "efaxx.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got := importNCCLFile(t, db, "all_reduce_16.txt")
	if len(got) != 2 || !got[0].New || got[0].Samples != 25 || got[1].Samples != 25 || got[0].Status != record.StatusOK {
		t.Fatalf("import = %+v, want 2 new ok runs of 25 samples", got)
	}
	again := importNCCLFile(t, db, "all_reduce_16.txt")
	if again[0].New || !again[0].Settled || again[0].ID != got[0].ID {
		t.Errorf("second import = %+v, want the same runs, already stored", again)
	}
	run, err := db.Run(t.Context(), got[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if run.Benchmark != "nccl:all_reduce" || run.Params["placement"] != nccltests.OutOfPlace || run.Ranks != 16 ||
		len(run.Hosts) != 2 || run.Executor != "nccl-tests" || run.Started.Unix() != 1_800_000_000 {
		t.Errorf("run = %+v", run)
	}
	stats, err := db.SizeStats(t.Context(), run.ID)
	if err != nil {
		t.Fatal(err)
	}
	// The last row prints 763.65 us and 175.76 GB/s out of place: 8 x algbw.
	last := stats[len(stats)-1]
	if last.Size != 134217728 || math.Abs(last.BwMedianGbps-8*175.76) > 0.02*8 || last.LatP50Ns != 763650 {
		t.Errorf("last size = %+v, want 1406 Gbps (8 x 175.76 GB/s) and 763.65 us", last)
	}

	failed := importNCCLFile(t, db, "alltoall_per_iter.txt")
	if len(failed) != 2 || failed[0].Status != record.StatusOK || failed[1].Status != record.StatusFailed {
		t.Errorf("alltoall import = %+v, want out of place ok, in place failed (3 wrong elements)", failed)
	}
	if j := importNCCLFile(t, db, "all_gather.json"); len(j) != 2 || j[0].Samples != 4 {
		t.Errorf("JSON import = %+v, want 2 runs of 4 sizes", j)
	}
}
