package results_test

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"

	"efaxx/results"
	"efaxx/results/record"
)

func testJob(id string, points ...string) *results.Job {
	j := &results.Job{Scheduler: "slurm", JobID: id, Name: "efaxx-unit-0", Sweep: "unit", SweepHash: "sweephash",
		Session: "s1", SessionDir: "/w/unit/s1", Dir: "/w/unit/s1/job-0", Shape: "nodes=1 ranks=2",
		TimeLimit: 10 * time.Minute, State: "PENDING", Source: "sbatch", Submitted: time.Unix(1000, 0)}
	for i, p := range points {
		j.Steps = append(j.Steps, results.JobStep{Step: i, Name: "p" + p, Point: p, PointIndex: i, UID: "s1-00" + p, Dir: "/w/unit/s1/" + p})
	}
	return j
}

func TestJobs_AddUpdateQuery(t *testing.T) {
	db := MustOpenDB(t)
	ctx := t.Context()
	a, b := testJob("11", "pa", "pb"), testJob("12", "pc")
	b.Sweep, b.Session = "other", "s2"
	for _, j := range []*results.Job{a, b} {
		if err := db.AddJob(ctx, j); err != nil {
			t.Fatal(err)
		}
	}
	a.State, a.Reason, a.ExitCode, a.NodeList, a.Source = "COMPLETED", "", "0:0", "h[1-2]", "sacct"
	a.Started, a.Ended, a.Settled = time.Unix(1010, 0), time.Unix(1020, 0), time.Unix(1030, 0)
	if err := db.UpdateJob(ctx, a); err != nil {
		t.Fatal(err)
	}
	all, err := db.Jobs(ctx, results.JobFilter{})
	if err != nil || len(all) != 2 {
		t.Fatalf("Jobs() = %d jobs, %v", len(all), err)
	}
	if got := all[0]; !reflect.DeepEqual(&got, a) {
		t.Errorf("job 11 read back as\n%+v\nwant\n%+v", got, *a)
	}
	tests := []struct {
		name string
		f    results.JobFilter
		want []string
	}{
		{"unsettled", results.JobFilter{Unsettled: true}, []string{"12"}},
		{"sweep", results.JobFilter{Sweep: "unit"}, []string{"11"}},
		{"session", results.JobFilter{Session: "s2"}, []string{"12"}},
		{"ids", results.JobFilter{JobIDs: []string{"12", "99"}}, []string{"12"}},
		{"limit", results.JobFilter{Limit: 1}, []string{"12"}},
	}
	for _, tt := range tests {
		jobs, err := db.Jobs(ctx, tt.f)
		var got []string
		for _, j := range jobs {
			got = append(got, j.JobID)
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: Jobs = %v, %v, want %v", tt.name, got, err, tt.want)
		}
	}
}

// TestJobs_WaitForLock records and updates a job while another process
// holds the write lock for longer than the busy timeout, as an ingest of
// a large sweep does: both wait for it, where they failed with "database
// is locked" and left a submitted job unrecorded.
func TestJobs_WaitForLock(t *testing.T) {
	defer results.SetBusyTimeout(20 * time.Millisecond)()
	path := filepath.Join(t.TempDir(), "efaxx.db")
	db, other := mustOpenPath(t, path), mustOpenPath(t, path)
	j := testJob("11", "pa")
	for _, write := range []func() error{
		func() error { return db.AddJob(t.Context(), j) },
		func() error { j.State = "RUNNING"; return db.UpdateJob(t.Context(), j) },
	} {
		tx, err := results.SQLDB(other).BeginTx(t.Context(), nil) // takes the write lock
		if err != nil {
			t.Fatal(err)
		}
		time.AfterFunc(300*time.Millisecond, func() { tx.Commit() })
		if err := write(); err != nil {
			t.Fatal(err)
		}
	}
	jobs, err := db.Jobs(t.Context(), results.JobFilter{})
	if err != nil || len(jobs) != 1 || jobs[0].State != "RUNNING" {
		t.Fatalf("Jobs() = %+v, %v, want job 11 RUNNING", jobs, err)
	}
}

// slurmRun is a run of a Slurm step of job 11.
func slurmRun(uid, point, status string) *testRun {
	r := newTestRun(uid, "write", 2, 1024)
	r.manifest.Point, r.manifest.Executor, r.manifest.RunnerVersion = point, "slurm", "v1"
	r.manifest.JobID, r.manifest.StepID, r.manifest.NodeList = "11", "11.0", "h[1-2]"
	if status == record.StatusFailed {
		r.setEnd(1, record.StatusFailed, "boom")
	}
	return r
}

func TestIngest_LinksJob(t *testing.T) {
	db := MustOpenDB(t)
	ctx := t.Context()
	job := testJob("11", "pa")
	if err := db.AddJob(ctx, job); err != nil {
		t.Fatal(err)
	}
	session := t.TempDir()
	mustIngest(t, db, slurmRun("s1-000", "pa", record.StatusOK).write(t, session, "000-pa"))
	runs, err := db.RunsOfJob(ctx, job.ID)
	if err != nil || len(runs) != 1 {
		t.Fatalf("RunsOfJob = %+v, %v", runs, err)
	}
	if r := runs[0]; r.Job != "11" || r.Step != "11.0" || r.NodeList != "h[1-2]" || r.Executor != "slurm" {
		t.Errorf("run = %+v, want job 11, step 11.0, nodes h[1-2]", r)
	}
	var version string
	sqlRowOf(t, db, `SELECT runner_version FROM runs`, &version)
	if version != "v1" {
		t.Errorf("runner_version = %q", version)
	}
}

// TestIngest_UnknownJob: a Slurm run ingested into a store that did not
// submit its job still gets its job id, through a settled jobs row.
func TestIngest_UnknownJob(t *testing.T) {
	db := MustOpenDB(t)
	mustIngest(t, db, slurmRun("s1-000", "pa", record.StatusOK).write(t, t.TempDir(), "000-pa"))
	jobs, err := db.Jobs(t.Context(), results.JobFilter{})
	if err != nil || len(jobs) != 1 || jobs[0].JobID != "11" || jobs[0].Settled.IsZero() || jobs[0].Source != "ingest" {
		t.Fatalf("jobs = %+v, %v, want job 11 settled", jobs, err)
	}
	runs, _ := db.Runs(t.Context(), results.RunFilter{})
	if len(runs) != 1 || runs[0].Job != "11" {
		t.Errorf("runs = %+v", runs)
	}
}

func TestPointHistories(t *testing.T) {
	db := MustOpenDB(t)
	ctx := t.Context()
	session := t.TempDir()
	mustIngest(t, db, slurmRun("s1-000", "pa", record.StatusOK).write(t, session, "000-pa"))
	mustIngest(t, db, slurmRun("s1-001", "pb", record.StatusFailed).write(t, session, "001-pb"))
	older := slurmRun("s0-001", "pb", record.StatusOK)
	older.manifest.StartNs -= 1e12 // an ok run of pb, before the failed one
	mustIngest(t, db, older.write(t, session, "002-pb"))
	other := slurmRun("s1-003", "pd", record.StatusOK)
	other.manifest.RunnerVersion = "v0" // another runner: its latest run, but not an ok one of v1
	mustIngest(t, db, other.write(t, session, "003-pd"))
	elsewhere := slurmRun("s2-000", "pe", record.StatusOK)
	elsewhere.manifest.Sweep, elsewhere.manifest.SweepHash = "other", "otherhash" // another sweep: does not count
	mustIngest(t, db, elsewhere.write(t, t.TempDir(), "000-pe"))
	if err := db.AddJob(ctx, testJob("12", "pc")); err != nil {
		t.Fatal(err)
	}
	got, err := db.PointHistories(ctx, "unit", "v1", []string{"pa", "pb", "pc", "pd", "pe"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]results.PointHistory{
		"pa": {OK: true, Last: "ok"},
		"pb": {OK: true, Last: "failed"},
		"pc": {InFlight: true},
		"pd": {Last: "ok"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("PointHistories = %+v, want %+v", got, want)
	}
}

// TestMigrate_FromVersion1: a store made by the first schema, with a run
// in it, is migrated to jobs without losing the run.
func TestMigrate_FromVersion1(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v1.db")
	v1, err := os.ReadFile("migration/0001_init.sql")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{string(v1),
		`CREATE TABLE migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_ns INTEGER NOT NULL)`,
		`INSERT INTO migrations VALUES (1, '0001_init.sql', 0)`,
		`INSERT INTO sweeps VALUES (1, 'old', 'h', '', 0)`,
		`INSERT INTO points VALUES (1, 1, 'p', 0, 'write', '{}')`,
		`INSERT INTO runs (uid, point_id, benchmark, status, dir, started_ns, ingested_ns) VALUES ('u', 1, 'write', 'ok', '/d', 5, 6)`,
	} {
		if _, err := raw.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	raw.Close()
	db, err := results.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	runs, err := db.Runs(t.Context(), results.RunFilter{})
	if err != nil || len(runs) != 1 || runs[0].UID != "u" || runs[0].Job != "" {
		t.Fatalf("runs after migration = %+v, %v", runs, err)
	}
	var applied int
	sqlRowOf(t, db, `SELECT COUNT(*) FROM migrations WHERE version = 2`, &applied)
	if applied != 1 {
		t.Errorf("migration 0002 applied %d times, want 1", applied)
	}
}

func sqlRowOf(t *testing.T, db *results.DB, query string, dest ...any) {
	t.Helper()
	if err := results.SQLDB(db).QueryRowContext(t.Context(), query).Scan(dest...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// TestSubmissions: a submission is recorded before sbatch runs, counts its
// points in flight, and becomes its job once sbatch's answer is recorded,
// by submit or by a sync that found it first: one job either way.
func TestSubmissions(t *testing.T) {
	db := MustOpenDB(t)
	ctx := t.Context()
	j := testJob("", "pa", "pb")
	id, err := db.AddSubmission(ctx, j)
	if err != nil {
		t.Fatal(err)
	}
	subs, err := db.Submissions(ctx)
	if err != nil || len(subs) != 1 || subs[0].ID != id || fmt.Sprint(subs[0].Job) != fmt.Sprint(*j) {
		t.Fatalf("Submissions = %+v, %v; want %+v", subs, err, j)
	}
	hist, err := db.PointHistories(ctx, "unit", "v1", []string{"pa", "pb", "pc"})
	if err != nil || !hist["pa"].InFlight || !hist["pb"].InFlight || hist["pc"].InFlight {
		t.Errorf("PointHistories = %+v, %v; want pa and pb in flight", hist, err)
	}
	bySync, bySubmit := *j, *j
	bySync.JobID, bySync.Source = "21", "squeue"
	bySubmit.JobID = "21"
	for _, rec := range []*results.Job{&bySync, &bySubmit} {
		if err := db.RecordSubmitted(ctx, id, rec); err != nil {
			t.Fatal(err)
		}
	}
	jobs, err := db.Jobs(ctx, results.JobFilter{})
	if err != nil || len(jobs) != 1 || jobs[0].JobID != "21" || jobs[0].Source != "squeue" || bySubmit.ID != jobs[0].ID {
		t.Errorf("Jobs = %+v, %v; want job 21 once, as the sync recorded it", jobs, err)
	}
	if subs, err := db.Submissions(ctx); err != nil || len(subs) != 0 {
		t.Errorf("Submissions once recorded = %+v, %v; want none", subs, err)
	}
	gone := testJob("", "pc")
	gone.Dir += "-2"
	id, err = db.AddSubmission(ctx, gone)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.DropSubmission(ctx, id); err != nil {
		t.Fatal(err)
	}
	if subs, err := db.Submissions(ctx); err != nil || len(subs) != 0 {
		t.Errorf("Submissions once dropped = %+v, %v; want none", subs, err)
	}
}
