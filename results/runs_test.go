package results_test

import (
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"efaxx/results"
	"efaxx/results/record"
)

func TestRun(t *testing.T) {
	db := MustOpenDB(t)
	dir := newTestRun("uid-1", "sendrecv", 2, 1024, 4096).write(t, t.TempDir(), "000-p1")
	id := mustIngest(t, db, dir).Runs[0].ID
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}

	got, err := db.Run(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	want := &results.Run{
		ID: id, UID: "uid-1", Sweep: "unit", Benchmark: "sendrecv", Point: "point-sendrecv",
		Params: map[string]any{"provider": "shm", "iterations": 100.0},
		Status: record.StatusOK, Provider: "shm", Ranks: 2, Hosts: []string{"node0"},
		Executor: "local", Started: time.Unix(0, 1_700_000_000_000_000_000),
		Finished: time.Unix(0, 1_700_000_060_000_000_000), ExitCode: exitCode(0),
		Dir: abs, Samples: 4,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Run(%d) = %+v, want %+v", id, got, want)
	}
}

func TestRuns(t *testing.T) {
	db := MustOpenDB(t)
	session := t.TempDir()
	base := time.Unix(1_700_000_000, 0)
	for i, c := range []struct {
		benchmark string
		ok        bool
	}{{"sendrecv", true}, {"write", true}, {"sendrecv", false}, {"write", false}} {
		r := newTestRun(fmt.Sprintf("uid-%d", i), c.benchmark, 2, 1024)
		r.manifest.StartNs = base.Add(time.Duration(i) * time.Hour).UnixNano()
		if !c.ok {
			r.dropEnd(1)
		}
		r.write(t, session, fmt.Sprintf("%03d-p", i))
	}
	mustIngest(t, db, session) // runs 1..4, started an hour apart

	tests := []struct {
		name string
		f    results.RunFilter
		want []int64
	}{
		{"all, newest first", results.RunFilter{}, []int64{4, 3, 2, 1}},
		{"benchmark", results.RunFilter{Benchmark: "write"}, []int64{4, 2}},
		{"status", results.RunFilter{Status: record.StatusPartial}, []int64{4, 3}},
		{"sweep by name", results.RunFilter{Sweep: "unit"}, []int64{4, 3, 2, 1}},
		{"sweep by hash", results.RunFilter{Sweep: "sweephash"}, []int64{4, 3, 2, 1}},
		{"other sweep", results.RunFilter{Sweep: "other"}, nil},
		{"since, inclusive", results.RunFilter{Since: base.Add(time.Hour)}, []int64{4, 3, 2}},
		{"until, exclusive", results.RunFilter{Until: base.Add(2 * time.Hour)}, []int64{2, 1}},
		{"limit", results.RunFilter{Limit: 2}, []int64{4, 3}},
		{"combined", results.RunFilter{Benchmark: "sendrecv", Status: record.StatusOK}, []int64{1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runs, err := db.Runs(t.Context(), tt.f)
			if err != nil {
				t.Fatal(err)
			}
			var got []int64
			for _, r := range runs {
				got = append(got, r.ID)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Runs(%+v) ids = %v, want %v", tt.f, got, tt.want)
			}
		})
	}
}
