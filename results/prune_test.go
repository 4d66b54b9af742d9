package results_test

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"testing"

	"efaxx/results"
	"efaxx/results/synth"
)

// TestPrune: a dry run changes nothing and says what a prune deletes; the
// prune deletes the runs with everything of theirs and the points and
// sweeps they leave empty, in one go, and leaves the run directories be.
func TestPrune(t *testing.T) {
	db := MustOpenDB(t)
	dir := t.TempDir()
	ingest := func(uid, sweep string, tags map[string]string) string {
		d := filepath.Join(dir, uid)
		r := &synth.Run{UID: uid, Sweep: sweep, Ranks: 4, Sizes: []uint64{4096, 65536}, Tags: tags,
			Params: map[string]any{"provider": "shm", "window": len(uid)}}
		if err := r.Write(d); err != nil {
			t.Fatal(err)
		}
		mustIngest(t, db, d)
		return d
	}
	old1 := ingest("a", "old", map[string]string{"k": "v"})
	ingest("bb", "old", nil)
	ingest("ccc", "new", nil)
	before := tableCounts(t, db)
	f := results.RunFilter{Sweep: "old"}
	p, err := db.Prune(t.Context(), f, true)
	if err != nil || len(p.Runs) != 2 || p.Samples != 16 || p.Points != 2 || p.Sweeps != 1 {
		t.Fatalf("dry run = %+v, %v; want 2 runs, 16 samples, 2 points, 1 sweep", p, err)
	}
	if got := tableCounts(t, db); !maps.Equal(got, before) {
		t.Errorf("a dry run changed the store: %v, was %v", got, before)
	}
	if p, err = db.Prune(t.Context(), f, false); err != nil || len(p.Runs) != 2 {
		t.Fatalf("Prune = %+v, %v", p, err)
	}
	after := tableCounts(t, db)
	want := map[string]int{"sweeps": 1, "points": 1, "runs": 1, "ranks": 4, "samples": 8, "run_hosts": 1}
	for table, n := range want {
		if after[table] != n {
			t.Errorf("after prune: %d rows in %s, want %d (%v)", after[table], table, n, after)
		}
	}
	if after["run_tags"] != 0 {
		t.Errorf("after prune: %d tags left", after["run_tags"])
	}
	if _, err := os.Stat(filepath.Join(old1, "run.json")); err != nil {
		t.Errorf("prune touched a run directory: %v", err)
	}
	// A run still running is refused, and nothing is deleted.
	if _, err := results.SQLDB(db).Exec(`UPDATE runs SET status = 'running'`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Prune(t.Context(), results.RunFilter{}, false); !errors.Is(err, results.ErrPruneBusy) {
		t.Errorf("Prune of a running run = %v, want ErrPruneBusy", err)
	}
	if got := tableCounts(t, db); !maps.Equal(got, after) {
		t.Errorf("a refused prune changed the store: %v, was %v", got, after)
	}
}
