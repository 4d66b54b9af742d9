package results_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
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
		ID: id, UID: "uid-1", Sweep: "unit", SweepHash: "sweephash", Benchmark: "sendrecv", Point: "point-sendrecv",
		Params: map[string]any{"provider": "shm", "iterations": 100.0},
		Status: record.StatusOK, Provider: "shm", Ranks: 2, Hosts: []string{"node0"},
		Executor: "local", Started: time.Unix(0, 1_700_000_000_000_000_000),
		Finished: time.Unix(0, 1_700_000_060_000_000_000), ExitCode: exitCode(0),
		Dir: abs, Samples: 4, Tags: map[string]string{},
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
		r.manifest.Params["window"] = i % 2
		r.manifest.Tags = map[string]string{"cluster": []string{"a", "b"}[i%2]}
		if i == 2 {
			r.manifest.Tags["baseline"] = "yes"
			r.manifest.Point = "point-tcp"
			r.manifest.Params["provider"] = "tcp"
			r.lines[1][0] = strings.Replace(r.lines[1][0], `"host":"node0"`, `"host":"node9"`, 1)
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
		{"ids", results.RunFilter{IDs: []int64{1, 3, 99}}, []int64{3, 1}},
		{"no ids", results.RunFilter{IDs: []int64{}}, nil},
		{"host", results.RunFilter{Host: "node9"}, []int64{3}},
		{"host of all", results.RunFilter{Host: "node0"}, []int64{4, 3, 2, 1}},
		{"tag", results.RunFilter{Tags: []results.TagFilter{{Key: "cluster", Value: "b"}}}, []int64{4, 2}},
		{"tag key", results.RunFilter{Tags: []results.TagFilter{{Key: "baseline", Any: true}}}, []int64{3}},
		{"two tags", results.RunFilter{Tags: []results.TagFilter{{Key: "cluster", Value: "a"}, {Key: "baseline", Value: "yes"}}}, []int64{3}},
		{"tag value differs", results.RunFilter{Tags: []results.TagFilter{{Key: "cluster", Value: "c"}}}, nil},
		{"param string", results.RunFilter{Params: []results.ParamFilter{{Key: "provider", Value: "tcp"}}}, []int64{3}},
		{"param number", results.RunFilter{Params: []results.ParamFilter{{Key: "window", Value: int64(1)}}}, []int64{4, 2}},
		{"param float equals int", results.RunFilter{Params: []results.ParamFilter{{Key: "iterations", Value: 100.0}}}, []int64{4, 3, 2, 1}},
		{"param text does not equal number", results.RunFilter{Params: []results.ParamFilter{{Key: "window", Value: "1"}}}, nil},
		{"param missing", results.RunFilter{Params: []results.ParamFilter{{Key: "rails", Value: int64(1)}}}, nil},
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

func TestRuns_Tags(t *testing.T) {
	db := MustOpenDB(t)
	r := newTestRun("uid-1", "write", 2, 1024)
	r.manifest.Tags = map[string]string{"driver": "535", "site": "a"}
	r.manifest.ExitCode = nil // still running: the next ingest reads it again
	dir := r.write(t, t.TempDir(), "000-p")
	id := mustIngest(t, db, dir).Runs[0].ID

	if err := db.SetTags(t.Context(), id, map[string]string{"driver": "550", "note": "after upgrade"}, []string{"site"}); err != nil {
		t.Fatal(err)
	}
	// The run finishes and is ingested again: its manifest must not undo
	// what the user set or deleted.
	r.manifest.ExitCode = exitCode(0)
	r.write(t, filepath.Dir(dir), "000-p")
	if got := mustIngest(t, db, dir).Runs[0]; got.Status != record.StatusOK {
		t.Fatalf("second ingest = %+v, want ok", got)
	}
	got, err := db.Run(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"driver": "550", "note": "after upgrade"}
	if !reflect.DeepEqual(got.Tags, want) {
		t.Errorf("tags = %v, want %v", got.Tags, want)
	}
	if runs, err := db.Runs(t.Context(), results.RunFilter{Tags: []results.TagFilter{{Key: "site", Any: true}}}); err != nil || len(runs) != 0 {
		t.Errorf("runs tagged site = %v, %v; want none", runs, err)
	}

	if err := db.SetTags(t.Context(), 99, map[string]string{"a": "b"}, nil); !errors.Is(err, results.ErrRunNotFound) {
		t.Errorf("SetTags(99) = %v, want ErrRunNotFound", err)
	}
	for _, key := range []string{"", "a=b", "a,b"} {
		if err := db.SetTags(t.Context(), id, map[string]string{key: "v"}, nil); !errors.Is(err, results.ErrBadTag) {
			t.Errorf("SetTags(key %q) = %v, want ErrBadTag", key, err)
		}
	}
}
