package results_test

import (
	"fmt"
	"path/filepath"
	"reflect"
	"sync"
	"testing"

	"efaxx/results"
)

// TestIngest_Concurrent opens one new store file twice, as two efaxx
// processes would, and ingests the same session from both at once: both
// must succeed, and the store must hold each row once.
func TestIngest_Concurrent(t *testing.T) {
	session := t.TempDir()
	for i := range 4 {
		r := newTestRun(fmt.Sprintf("uid-%d", i), "sendrecv", 4, 1024, 4096, 65536)
		r.manifest.Point = fmt.Sprintf("point-%d", i)
		r.write(t, session, fmt.Sprintf("%03d-p", i))
	}
	want := map[string]int{"jobs": 0, "sweeps": 1, "points": 4, "runs": 4, "ranks": 16, "samples": 48}

	for attempt := range 5 {
		path := filepath.Join(t.TempDir(), "efaxx.db")
		var wg sync.WaitGroup
		errs := make([]error, 2)
		reps := make([]*results.IngestReport, 2)
		for g := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				db, err := results.Open(t.Context(), path)
				if err != nil {
					errs[g] = err
					return
				}
				defer db.Close()
				reps[g], errs[g] = db.Ingest(t.Context(), session)
			}()
		}
		wg.Wait()
		for g, err := range errs {
			if err != nil {
				t.Fatalf("attempt %d, goroutine %d: %v", attempt, g, err)
			}
		}
		if got := tableCounts(t, mustOpenPath(t, path)); !reflect.DeepEqual(got, want) {
			t.Errorf("attempt %d: rows = %v, want %v", attempt, got, want)
		}
		if n := newRuns(reps[0]) + newRuns(reps[1]); n != 4 {
			t.Errorf("attempt %d: %d runs reported new, want 4 (each once)", attempt, n)
		}
	}
}

// newRuns counts the runs rep reports as new.
func newRuns(rep *results.IngestReport) int {
	n := 0
	for _, r := range rep.Runs {
		if r.New {
			n++
		}
	}
	return n
}
