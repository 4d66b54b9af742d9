package results_test

import (
	"math"
	"os"
	"path/filepath"
	"strings"
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

// TestImportRuns_AllOrNothing: one run that cannot be stored leaves out
// the runs given with it.
func TestImportRuns_AllOrNothing(t *testing.T) {
	db := MustOpenDB(t)
	data, err := os.ReadFile("nccltests/testdata/h100_all_reduce_8.txt")
	if err != nil {
		t.Fatal(err)
	}
	r, err := nccltests.Parse("h100_all_reduce_8.txt", data)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := results.NCCLTestsRuns(r, results.NCCLImport{File: "h100_all_reduce_8.txt", Text: data, Start: time.Unix(1_800_000_000, 0)})
	if err != nil {
		t.Fatal(err)
	}
	runs[1].Samples[0].ElapsedNs = 0 // a sample without a rate cannot be stored
	if _, err := db.ImportRuns(t.Context(), runs); err == nil {
		t.Fatal("ImportRuns with a sample of elapsed_ns 0 succeeded, want an error")
	}
	var n int
	if err := results.SQLDB(db).QueryRowContext(t.Context(), `SELECT COUNT(*) FROM runs`).Scan(&n); err != nil || n != 0 {
		t.Errorf("runs stored after a failed ImportRuns = %d, %v; want 0", n, err)
	}
}

// TestImportRuns_OtherCollective: importing a file again as another
// collective (--collective) is refused, naming the run and how it is
// stored, where it said the run was already stored as the new collective
// and kept the old.
func TestImportRuns_OtherCollective(t *testing.T) {
	db := MustOpenDB(t)
	importNCCLFile(t, db, "h200_all_reduce_2.txt")
	data, err := os.ReadFile("nccltests/testdata/h200_all_reduce_2.txt")
	if err != nil {
		t.Fatal(err)
	}
	r, err := nccltests.Parse("h200_all_reduce_2.txt", data)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := results.NCCLTestsRuns(r, results.NCCLImport{File: "h200_all_reduce_2.txt", Text: data,
		Collective: "alltoall", Start: time.Unix(1_800_000_000, 0)})
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.ImportRuns(t.Context(), runs)
	want := "import h200_all_reduce_2.txt: stored already as nccl:all_reduce (run 1), not nccl:alltoall: efaxx prune 1 to store it again"
	if err == nil || err.Error() != want {
		t.Errorf("ImportRuns as alltoall = %v, want %s", err, want)
	}
}

func TestImportNCCLTests(t *testing.T) {
	db, err := results.Open(t.Context(), filepath.Join(t.TempDir(), "efaxx.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// Recorded: nccl-tests 2.17.9 all_reduce_perf on 8 H100s (nccltests/testdata/README.md).
	got := importNCCLFile(t, db, "h100_all_reduce_8.txt")
	if len(got) != 2 || !got[0].New || got[0].Samples != 31 || got[1].Samples != 31 || got[0].Status != record.StatusOK {
		t.Fatalf("import = %+v, want 2 new ok runs of 31 samples", got)
	}
	again := importNCCLFile(t, db, "h100_all_reduce_8.txt")
	if again[0].New || !again[0].Settled || again[0].ID != got[0].ID {
		t.Errorf("second import = %+v, want the same runs, already stored", again)
	}
	run, err := db.Run(t.Context(), got[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if run.Benchmark != "nccl:all_reduce" || run.Params["placement"] != nccltests.OutOfPlace || run.Ranks != 8 ||
		len(run.Hosts) != 1 || run.Executor != "nccl-tests" || run.Started.Unix() != 1_800_000_000 {
		t.Errorf("run = %+v", run)
	}
	stats, err := db.SizeStats(t.Context(), run.ID)
	if err != nil {
		t.Fatal(err)
	}
	// The last row prints 40838.9 us and 210.34 GB/s out of place: 8 x algbw.
	last := stats[len(stats)-1]
	if last.Size != 8589934592 || math.Abs(last.BwMedianGbps-8*210.34) > 0.02*8 || last.LatP50Ns != 40838900 {
		t.Errorf("last size = %+v, want 1683 Gbps (8 x 210.34 GB/s) and 40838.9 us", last)
	}
	// all_gather_perf on 8 GPUs prints size 0 for 8, 16, 32 and 64 bytes:
	// one sample per size, the first row's.
	if g := importNCCLFile(t, db, "h100_all_gather_8.txt"); len(g) != 2 || g[0].Samples != 28 || g[0].Status != record.StatusOK {
		t.Errorf("all_gather import = %+v, want 2 ok runs of 28 sizes", g)
	}

	failed := importNCCLFile(t, db, "alltoall_per_iter.txt")
	if len(failed) != 2 || failed[0].Status != record.StatusOK || failed[1].Status != record.StatusFailed {
		t.Errorf("alltoall import = %+v, want out of place ok, in place failed (3 wrong elements)", failed)
	}
	if j := importNCCLFile(t, db, "all_gather.json"); len(j) != 2 || j[0].Samples != 4 {
		t.Errorf("JSON import = %+v, want 2 runs of 4 sizes", j)
	}
}

// TestImportNCCLOutOfBounds: nccl-tests' count of failed checks fails the
// file's runs where no row kept has a #wrong above 0; they were ok.
func TestImportNCCLOutOfBounds(t *testing.T) {
	data, err := os.ReadFile("nccltests/testdata/h200_all_gather_2.txt")
	if err != nil {
		t.Fatal(err)
	}
	data = []byte(strings.Replace(string(data), "# Out of bounds values : 0 OK", "# Out of bounds values : 1 FAILED", 1))
	r, err := nccltests.Parse("bad.txt", data)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := results.NCCLTestsRuns(r, results.NCCLImport{File: "bad.txt", Text: data, Start: time.Unix(1_800_000_000, 0)})
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range runs {
		if run.Status != record.StatusFailed || run.Reason != `bad.txt:25: nccl-tests data check: "# Out of bounds values : 1 FAILED"` {
			t.Errorf("run %s: %s %q, want failed by the out-of-bounds count", run.UID, run.Status, run.Reason)
		}
	}
}
