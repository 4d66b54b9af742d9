package results_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"efaxx/lineerr"
	"efaxx/results"
	"efaxx/results/record"
)

func TestIngest_Rows(t *testing.T) {
	db := MustOpenDB(t)
	now := time.Unix(1_800_000_000, 0)
	db.Now = func() time.Time { return now }
	session := t.TempDir()
	dir := newTestRun("uid-1", "sendrecv", 2, 1024, 4096, 65536).write(t, session, "000-p1")

	rep := mustIngest(t, db, dir)
	want := []results.IngestedRun{{
		ID: 1, UID: "uid-1", Dir: dir, Status: record.StatusOK, Samples: 6, New: true,
	}}
	if !reflect.DeepEqual(rep.Runs, want) {
		t.Errorf("Ingest runs = %+v, want %+v", rep.Runs, want)
	}
	if len(rep.Problems) != 0 {
		t.Errorf("Ingest problems = %v, want none", rep.Problems)
	}
	wantCounts := map[string]int{"sweeps": 1, "points": 1, "runs": 1, "ranks": 2, "samples": 6, "run_hosts": 1}
	if got := tableCounts(t, db); !reflect.DeepEqual(got, wantCounts) {
		t.Errorf("rows = %v, want %v", got, wantCounts)
	}
	if got, want := rankStatuses(t, db, 1), []string{"0:ok:", "1:ok:"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ranks = %q, want %q", got, want)
	}
	var ingested, created int64
	if err := results.SQLDB(db).QueryRowContext(t.Context(), `
		SELECT r.ingested_ns, s.created_ns FROM runs r, sweeps s WHERE r.id = 1`).Scan(&ingested, &created); err != nil {
		t.Fatal(err)
	}
	if ingested != now.UnixNano() || created != now.UnixNano() {
		t.Errorf("ingested_ns, created_ns = %d, %d, want DB.Now() %d", ingested, created, now.UnixNano())
	}
}

func TestIngest_Twice(t *testing.T) {
	db := MustOpenDB(t)
	session := t.TempDir()
	newTestRun("uid-1", "sendrecv", 2, 1024, 4096).write(t, session, "000-p1")
	failed := newTestRun("uid-2", "write", 2, 1024, 4096)
	failed.setEnd(1, record.StatusFailed, "verify: byte 7")
	failed.manifest.ExitCode = exitCode(1)
	failed.write(t, session, "001-p2")

	first := mustIngest(t, db, session)
	before := tableCounts(t, db)
	second := mustIngest(t, db, session)
	if after := tableCounts(t, db); !reflect.DeepEqual(after, before) {
		t.Errorf("rows after second ingest = %v, want %v", after, before)
	}
	if got, want := len(second.Runs), len(first.Runs); got != want {
		t.Fatalf("second ingest: %d runs, want %d", got, want)
	}
	for i, r := range second.Runs {
		if r.New || r.Samples != 0 || r.ID != first.Runs[i].ID || r.Status != first.Runs[i].Status {
			t.Errorf("second ingest run %d = %+v, want the same id and status as %+v, not new, 0 samples",
				i, r, first.Runs[i])
		}
	}
	if !second.Runs[0].Settled || second.Runs[1].Settled {
		t.Errorf("second ingest settled = %v, %v, want true (ok), false (failed)",
			second.Runs[0].Settled, second.Runs[1].Settled)
	}
}

func TestIngest_RunningThenDone(t *testing.T) {
	db := MustOpenDB(t)
	session := t.TempDir()
	done := newTestRun("uid-1", "sendrecv", 2, 1024, 4096, 65536)

	// Mid-run: the launcher has not exited, and each rank has written its
	// fingerprint and its first sample only.
	running := newTestRun("uid-1", "sendrecv", 2, 1024, 4096, 65536)
	running.manifest.ExitCode, running.manifest.EndNs = nil, 0
	for rank := range running.lines {
		running.lines[rank] = running.lines[rank][:2]
	}
	dir := running.write(t, session, "000-p1")
	rep := mustIngest(t, db, dir)
	if got := rep.Runs[0]; got.Status != record.StatusRunning || got.Samples != 2 || !got.New {
		t.Errorf("first ingest = %+v, want running, 2 samples, new", got)
	}
	if got, want := rankStatuses(t, db, 1), []string{"0:running:", "1:running:"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ranks while running = %q, want %q", got, want)
	}

	done.write(t, session, "000-p1")
	rep = mustIngest(t, db, dir)
	want := results.IngestedRun{ID: 1, UID: "uid-1", Dir: dir, Status: record.StatusOK, Samples: 4}
	if got := rep.Runs[0]; got != want {
		t.Errorf("second ingest = %+v, want %+v", got, want)
	}
	run, err := db.Run(t.Context(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != record.StatusOK || run.Samples != 6 || run.Finished.IsZero() {
		t.Errorf("Run(1) = status %q, %d samples, finished %v; want ok, 6, set", run.Status, run.Samples, run.Finished)
	}
}

func TestIngest_Garbled(t *testing.T) {
	db := MustOpenDB(t)
	session := t.TempDir()
	r := newTestRun("uid-1", "sendrecv", 2, 1024, 4096, 65536)
	// Line 3 of rank 1 is cut short, as a crash mid-write leaves it.
	line := r.lines[1][2]
	r.lines[1][2] = line[:len(line)/2]
	dir := r.write(t, session, "000-p1")

	wantRank1Partial(t, mustIngest(t, db, dir), dir, ":3: unexpected end of JSON input", 5)
}

// wantRank1Partial checks that an ingest stored its one run (uid-1, in
// dir) as partial for rank 1's one unusable line, problem after the file
// name, with samples sample rows.
func wantRank1Partial(t *testing.T, rep *results.IngestReport, dir, problem string, samples int) {
	t.Helper()
	wantProblem := filepath.Join(dir, "rank-00001.ndjson") + problem
	if got := lineerr.Errors(rep.Problems).Error(); len(rep.Problems) != 1 || got != wantProblem {
		t.Errorf("problems = %s, want %s", got, wantProblem)
	}
	want := results.IngestedRun{ID: 1, UID: "uid-1", Dir: dir, Status: record.StatusPartial,
		Reason: "unusable lines from rank 1", Samples: samples, New: true}
	if len(rep.Runs) != 1 || rep.Runs[0] != want {
		t.Errorf("runs = %+v, want [%+v]", rep.Runs, want)
	}
}

func TestIngest_UnterminatedTail(t *testing.T) {
	tests := []struct {
		name        string
		exit        *int
		wantStatus  string
		wantProblem bool
	}{
		{"running: the runner is mid-write", nil, record.StatusRunning, false},
		{"finished: the line was cut", exitCode(0), record.StatusPartial, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := MustOpenDB(t)
			r := newTestRun("uid-1", "sendrecv", 2, 1024, 4096)
			r.manifest.ExitCode = tt.exit
			r.dropEnd(1)
			line := r.lines[1][2]
			r.lines[1] = r.lines[1][:2]
			dir := r.write(t, t.TempDir(), "000-p1")
			path := filepath.Join(dir, record.RankFile(1))
			f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteString(line[:len(line)/2]); err != nil {
				t.Fatal(err)
			}
			f.Close()

			rep := mustIngest(t, db, dir)
			if got := rep.Runs[0]; got.Status != tt.wantStatus || got.Samples != 3 {
				t.Errorf("run = %+v, want %s with 3 samples", got, tt.wantStatus)
			}
			var want string
			if tt.wantProblem {
				want = path + ":3: unexpected end of JSON input"
			}
			if got := lineerr.Errors(rep.Problems).Error(); got != want {
				t.Errorf("problems = %v, want %v", rep.Problems, want)
			}
		})
	}
}

func TestIngest_Status(t *testing.T) {
	tests := []struct {
		name       string
		ranks      int
		damage     func(r *testRun)
		wantStatus string
		wantReason string
		wantRanks  []string
	}{{
		name:       "ok",
		ranks:      2,
		damage:     func(r *testRun) {},
		wantStatus: record.StatusOK,
		wantRanks:  []string{"0:ok:", "1:ok:"},
	}, {
		name:  "rank failed",
		ranks: 2,
		damage: func(r *testRun) {
			r.setEnd(1, record.StatusFailed, "fi_getinfo: No data available")
			r.manifest.ExitCode = exitCode(1)
		},
		wantStatus: record.StatusFailed,
		wantReason: "rank 1: fi_getinfo: No data available",
		wantRanks:  []string{"0:ok:", "1:failed:fi_getinfo: No data available"},
	}, {
		name:  "killed",
		ranks: 2,
		damage: func(r *testRun) {
			r.dropEnd(1)
			r.manifest.ExitCode = exitCode(137)
		},
		wantStatus: record.StatusFailed,
		wantReason: "exit code 137; no end record from rank 1",
		wantRanks:  []string{"0:ok:", "1:missing:no end record"},
	}, {
		// Rank 0 crashed; mpirun stopped the others, whose records say
		// so: the reason is how rank 0 died, not a peer's SIGTERM.
		name:  "crashed while the launcher stopped the rest",
		ranks: 3,
		damage: func(r *testRun) {
			r.dropEnd(0)
			for rank := 1; rank < 3; rank++ {
				r.lines[rank][len(r.lines[rank])-1] = mustJSON(record.End{Type: record.TypeEnd, Rank: rank,
					Status: record.StatusFailed, Error: "stopped by SIGTERM while measuring", Signal: "terminated"})
			}
			r.manifest.ExitCode = exitCode(139)
			r.manifest.Error = "mpirun noticed that process rank 0 with PID 0 on node vm exited on signal 11 (Segmentation fault)."
		},
		wantStatus: record.StatusFailed,
		wantReason: "no end record from rank 0; mpirun noticed that process rank 0 with PID 0 on node vm exited on signal 11 (Segmentation fault).",
		wantRanks: []string{"0:missing:no end record", "1:failed:stopped by SIGTERM while measuring",
			"2:failed:stopped by SIGTERM while measuring"},
	}, {
		// A peer saw rank 0 go before mpirun stopped it: it leads, and
		// how rank 0 died follows.
		name:  "crashed while a peer failed",
		ranks: 3,
		damage: func(r *testRun) {
			r.dropEnd(0)
			r.setEnd(1, record.StatusFailed, "fi_recv failed: Input/output error")
			r.lines[2][len(r.lines[2])-1] = mustJSON(record.End{Type: record.TypeEnd, Rank: 2,
				Status: record.StatusFailed, Error: "stopped by SIGTERM while measuring", Signal: "terminated"})
			r.manifest.ExitCode = exitCode(139)
			r.manifest.Error = "mpirun noticed that process rank 0 with PID 0 on node vm exited on signal 11 (Segmentation fault)."
		},
		wantStatus: record.StatusFailed,
		wantReason: "rank 1: fi_recv failed: Input/output error; no end record from rank 0; " +
			"mpirun noticed that process rank 0 with PID 0 on node vm exited on signal 11 (Segmentation fault).",
	}, {
		name:       "launcher error",
		ranks:      2,
		damage:     func(r *testRun) { r.manifest.Error = "mpirun: not found"; r.manifest.ExitCode = nil },
		wantStatus: record.StatusFailed,
		wantReason: "mpirun: not found",
		wantRanks:  []string{"0:ok:", "1:ok:"},
	}, {
		name:  "timeout",
		ranks: 2,
		damage: func(r *testRun) {
			r.dropEnd(0)
			r.dropEnd(1)
			r.manifest.TimedOut, r.manifest.ExitCode = true, nil
		},
		wantStatus: record.StatusTimeout,
		wantReason: "timed out; no end record from ranks 0-1",
		wantRanks:  []string{"0:missing:no end record", "1:missing:no end record"},
	}, {
		name:  "cancelled",
		ranks: 2,
		damage: func(r *testRun) {
			r.dropEnd(1)
			r.manifest.Cancelled, r.manifest.ExitCode = true, exitCode(143)
		},
		wantStatus: record.StatusCancelled,
		wantReason: "cancelled; no end record from rank 1",
		wantRanks:  []string{"0:ok:", "1:missing:no end record"},
	}, {
		name:       "rank file missing",
		ranks:      2,
		damage:     func(r *testRun) { delete(r.lines, 1) },
		wantStatus: record.StatusPartial,
		wantReason: "no rank file from rank 1",
		wantRanks:  []string{"0:ok:", "1:missing:no rank file"},
	}, {
		name:       "end record missing",
		ranks:      2,
		damage:     func(r *testRun) { r.dropEnd(1) },
		wantStatus: record.StatusPartial,
		wantReason: "no end record from rank 1",
		wantRanks:  []string{"0:ok:", "1:missing:no end record"},
	}, {
		name:  "record after end",
		ranks: 2,
		damage: func(r *testRun) {
			r.lines[0] = append(r.lines[0], mustJSON(sampleOf("sendrecv", 0, 2, 1<<20)))
		},
		wantStatus: record.StatusPartial,
		wantReason: "unusable lines from rank 0",
		wantRanks:  []string{"0:ok:", "1:ok:"},
	}, {
		name:  "many ranks missing",
		ranks: 34,
		damage: func(r *testRun) {
			for rank := 1; rank < 34; rank += 2 {
				delete(r.lines, rank)
			}
		},
		wantStatus: record.StatusPartial,
		wantReason: "no rank file from ranks 1, 3, 5, 7, 9, 11, 13, 15, and 9 more",
	}, {
		name:  "running",
		ranks: 2,
		damage: func(r *testRun) {
			r.dropEnd(1)
			r.manifest.ExitCode = nil
		},
		wantStatus: record.StatusRunning,
		wantRanks:  []string{"0:ok:", "1:running:"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := MustOpenDB(t)
			r := newTestRun("uid-1", "sendrecv", tt.ranks, 1024, 4096)
			tt.damage(r)
			dir := r.write(t, t.TempDir(), "000-p1")
			got := mustIngest(t, db, dir).Runs[0]
			if got.Status != tt.wantStatus || got.Reason != tt.wantReason {
				t.Errorf("Ingest = %q (%q), want %q (%q)", got.Status, got.Reason, tt.wantStatus, tt.wantReason)
			}
			if tt.wantRanks == nil {
				return
			}
			if ranks := rankStatuses(t, db, got.ID); !reflect.DeepEqual(ranks, tt.wantRanks) {
				t.Errorf("ranks = %q, want %q", ranks, tt.wantRanks)
			}
		})
	}
}

func TestIngest_RollsBackRunOnError(t *testing.T) {
	db := MustOpenDB(t)
	session := t.TempDir()
	newTestRun("uid-1", "sendrecv", 2, 1024).write(t, session, "000-p1")
	broken := newTestRun("uid-2", "write", 2, 1024)
	delete(broken.lines, 1)
	dir := broken.write(t, session, "001-p2")
	// A rank file that lists but cannot be opened: an I/O error, not a
	// bad line, so the run must not be half stored.
	if err := os.Symlink("nowhere", filepath.Join(dir, record.RankFile(1))); err != nil {
		t.Fatal(err)
	}

	rep, err := db.Ingest(t.Context(), session)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("ingest %q", dir)) {
		t.Fatalf("Ingest error = %v, want one naming %q", err, dir)
	}
	if len(rep.Runs) != 1 || rep.Runs[0].UID != "uid-1" {
		t.Errorf("runs before the error = %+v, want uid-1 only", rep.Runs)
	}
	want := map[string]int{"sweeps": 1, "points": 1, "runs": 1, "ranks": 2, "samples": 2, "run_hosts": 1}
	if got := tableCounts(t, db); !reflect.DeepEqual(got, want) {
		t.Errorf("rows = %v, want %v (uid-2 rolled back)", got, want)
	}
}

// TestIngest_StoreFull ingests into a store that cannot grow, as on a
// full disk: the error names the store, where it named only the run
// directory and read as if that were at fault; nothing of the run is
// stored, and the same ingest stores it once there is room. Tagging and
// pruning a store that cannot be written name it too.
func TestIngest_StoreFull(t *testing.T) {
	db := MustOpenDB(t)
	ctx := t.Context()
	sqldb := results.SQLDB(db)
	sqldb.SetMaxOpenConns(1) // one connection, so that the pragmas below hold for every statement
	session := t.TempDir()
	mustIngest(t, db, newTestRun("uid-1", "sendrecv", 2, 1024).write(t, session, "000-p1"))
	sizes := make([]uint64, 64)
	for i := range sizes {
		sizes[i] = 1024 * uint64(i+1)
	}
	dir := newTestRun("uid-2", "sendrecv", 8, sizes...).write(t, session, "001-p2")
	pragma := func(q string) {
		t.Helper()
		if _, err := sqldb.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	var pages int
	if err := sqldb.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	pragma(fmt.Sprintf(`PRAGMA max_page_count = %d`, pages))
	before := tableCounts(t, db)

	_, err := db.Ingest(ctx, dir)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("store %q", db.Path)) ||
		!strings.Contains(err.Error(), fmt.Sprintf("ingest %q", dir)) || !strings.Contains(err.Error(), "full") {
		t.Fatalf("Ingest into a full store: error = %v, want one naming the store %q, the run %q and why", err, db.Path, dir)
	}
	if got := tableCounts(t, db); !reflect.DeepEqual(got, before) {
		t.Errorf("rows after the failed ingest = %v, want %v (rolled back)", got, before)
	}
	pragma(`PRAGMA max_page_count = 1000000`)
	if rep := mustIngest(t, db, dir); len(rep.Runs) != 1 || !rep.Runs[0].New || rep.Runs[0].Samples != 8*len(sizes) {
		t.Errorf("ingest once there is room: %+v, want the run new with every sample", rep.Runs)
	}

	pragma(`PRAGMA query_only = 1`)
	for what, err := range map[string]error{
		"SetTags": db.SetTags(ctx, 1, map[string]string{"k": "v"}, nil),
		"Prune": func() error {
			_, err := db.Prune(ctx, results.RunFilter{IDs: []int64{1}}, false)
			return err
		}(),
	} {
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("store %q", db.Path)) {
			t.Errorf("%s on a read-only store: error = %v, want one naming the store %q", what, err, db.Path)
		}
	}
}

func TestIngest_Cancelled(t *testing.T) {
	db := MustOpenDB(t)
	dir := newTestRun("uid-1", "sendrecv", 2, 1024).write(t, t.TempDir(), "000-p1")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := db.Ingest(ctx, dir); !errors.Is(err, context.Canceled) {
		t.Errorf("Ingest with a cancelled context = %v, want context.Canceled", err)
	}
	if got := tableCounts(t, db)["runs"]; got != 0 {
		t.Errorf("runs = %d, want 0", got)
	}
}

func TestIngest_BadManifest(t *testing.T) {
	db := MustOpenDB(t)
	session := t.TempDir()
	newTestRun("uid-1", "sendrecv", 2, 1024).write(t, session, "000-p1")
	bad := filepath.Join(session, "001-p2")
	if err := os.Mkdir(bad, 0o755); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(bad, record.ManifestName), `{"uid": "uid-2", "sweep_hash": "x"`)

	rep := mustIngest(t, db, session)
	want := filepath.Join(bad, record.ManifestName) + ": unexpected end of JSON input"
	if got := lineerr.Errors(rep.Problems).Error(); got != want {
		t.Errorf("problems = %v, want %v", rep.Problems, want)
	}
	if len(rep.Runs) != 1 || rep.Runs[0].UID != "uid-1" {
		t.Errorf("runs = %+v, want uid-1 only", rep.Runs)
	}
}

func TestIngest_SweepSpecLater(t *testing.T) {
	db := MustOpenDB(t)
	session := t.TempDir()
	r := newTestRun("uid-1", "sendrecv", 2, 1024)
	r.dropEnd(1) // not ok, so the second ingest reads the run again
	dir := r.write(t, session, "000-p1")
	spec := func() string {
		var s string
		err := results.SQLDB(db).QueryRowContext(t.Context(), `SELECT spec FROM sweeps WHERE hash = 'sweephash'`).Scan(&s)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}

	if err := os.Remove(filepath.Join(session, "sweep.toml")); err != nil {
		t.Fatal(err)
	}
	mustIngest(t, db, dir)
	if got := spec(); got != "" {
		t.Errorf("spec without sweep.toml = %q, want empty", got)
	}
	mustWrite(t, filepath.Join(session, "sweep.toml"), testSweep)
	mustIngest(t, db, dir)
	if got := spec(); got != testSweep {
		t.Errorf("spec after sweep.toml appeared = %q, want %q", got, testSweep)
	}
}

func TestIngest_LongLine(t *testing.T) {
	db := MustOpenDB(t)
	session := t.TempDir()
	r := newTestRun("uid-1", "sendrecv", 2, 1024, 4096, 65536)
	// Line 3 of rank 1 is far longer than a record, as a runner that
	// printed a buffer into its file leaves it; the lines after it are
	// whole and are stored.
	r.lines[1][2] = `{"type":"note","text":"` + strings.Repeat("x", 3<<20) + `"}`
	dir := r.write(t, session, "000-p1")

	wantRank1Partial(t, mustIngest(t, db, dir), dir, ":3: line longer than 1048576 bytes, skipped", 5)
}

func TestIngest_ManifestProblemLine(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"syntax", "{\n  \"uid\": \"u\",,\n  \"ranks\": 2\n}\n", ":2: invalid character ',' looking for beginning of object key string"},
		{"type", "{\n  \"uid\": \"u\",\n  \"ranks\": \"2\"\n}\n", ":3: ranks: string, want int"},
		{"cut short", `{"uid": "u"`, ": unexpected end of JSON input"},
		// A manifest that says no rank ran would make every rank file
		// an extra one and a missing rank go unseen.
		{"no ranks", `{"uid": "u", "sweep_hash": "h", "point": "p", "ranks": 0}`, ": ranks: 0, want 1 or more"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := MustOpenDB(t)
			dir := t.TempDir()
			file := filepath.Join(dir, record.ManifestName)
			mustWrite(t, file, tt.text)
			rep := mustIngest(t, db, dir)
			if got, want := lineerr.Errors(rep.Problems).Error(), file+tt.want; got != want {
				t.Errorf("problems = %s, want %s", got, want)
			}
			if len(rep.Runs) != 0 {
				t.Errorf("runs = %+v, want none", rep.Runs)
			}
		})
	}
}

func TestIngest_DuplicateSample(t *testing.T) {
	db := MustOpenDB(t)
	session := t.TempDir()
	r := newTestRun("uid-1", "sendrecv", 2, 1024, 4096)
	// Rank 0's sample of 1024 bytes is written twice as it was, and
	// rank 1's once more with other numbers, as a rank that was started
	// twice on the same file leaves it.
	again := sampleOf("sendrecv", 1, 2, 1024)
	again.ElapsedNs *= 3
	r.lines[0] = append(r.lines[0][:2], append([]string{r.lines[0][1]}, r.lines[0][2:]...)...)
	r.lines[1] = append(r.lines[1][:3], append([]string{mustJSON(again)}, r.lines[1][3:]...)...)
	dir := r.write(t, session, "000-p1")

	wantRank1Partial(t, mustIngest(t, db, dir), dir,
		":4: second sample of size 1024, peer 0, unlike the one at line 2, which is kept", 4)
}

// TestIngest_ManyBadLines: a rank file of garbage reports its first 20
// bad lines and counts the rest in one problem, where it listed every one
// (hundreds of thousands for 100 MB of random bytes); bad_lines counts
// them all.
func TestIngest_ManyBadLines(t *testing.T) {
	db := MustOpenDB(t)
	r := newTestRun("uid-1", "sendrecv", 2, 1024)
	for i := range 1000 {
		r.lines[1] = append(r.lines[1], fmt.Sprintf("garbage %d", i))
	}
	dir := r.write(t, t.TempDir(), "000-p1")
	rep := mustIngest(t, db, dir)
	file := filepath.Join(dir, record.RankFile(1))
	if len(rep.Problems) != 21 || rep.Problems[0].Line != 4 || rep.Problems[19].Line != 23 ||
		rep.Problems[20].Error() != file+": 980 more unusable lines, not listed (ranks.bad_lines counts them all)" {
		t.Errorf("%d problems, %s, want lines 4 to 23 and then the count of the rest",
			len(rep.Problems), lineerr.Errors(rep.Problems).Error())
	}
	var bad int
	if err := results.SQLDB(db).QueryRowContext(t.Context(),
		`SELECT bad_lines FROM ranks WHERE run_id = 1 AND rank = 1`).Scan(&bad); err != nil || bad != 1000 {
		t.Errorf("bad_lines of rank 1 = %d, %v, want 1000", bad, err)
	}
	if got := rep.Runs[0]; got.Status != record.StatusPartial || got.Reason != "unusable lines from rank 1" {
		t.Errorf("run = %s %q, want partial: unusable lines from rank 1", got.Status, got.Reason)
	}
}

// TestIngest_LineKey: a line whose value has the wrong type names its
// key as the file spells it, where it named efaxx's Go struct field
// ("Go struct field Sample.iterations of type uint64").
func TestIngest_LineKey(t *testing.T) {
	for _, tt := range []struct{ from, to, want string }{
		{`"iterations":100`, `"iterations":"many"`, ":3: iterations: string, want uint64"},
		{`"size":4096`, `"size":-5`, ":3: size: number -5, want uint64"},
		{`"p99":50000`, `"p99":5e4`, ":3: lat_ns.p99: number 5e4, want uint64"},
	} {
		db := MustOpenDB(t)
		r := newTestRun("uid-1", "sendrecv", 2, 1024, 4096)
		r.lines[1][2] = strings.Replace(r.lines[1][2], tt.from, tt.to, 1)
		dir := r.write(t, t.TempDir(), "000-p1")
		wantRank1Partial(t, mustIngest(t, db, dir), dir, tt.want, 3)
	}
}

// TestIngest_LauncherGone: a local run whose manifest says it is running
// is failed when the efaxx that launched it, and alone would write its
// end, is gone from this host: its pid ended, or the machine restarted
// since. It stayed running for good, and prune refused it.
func TestIngest_LauncherGone(t *testing.T) {
	ended := exec.Command("true")
	if err := ended.Run(); err != nil {
		t.Fatal(err)
	}
	here := results.ThisLauncher()
	gone := fmt.Sprintf("efaxx (pid %d on %s) ended before the launch did: killed, or the machine restarted", ended.Process.Pid, here.Host)
	for _, tt := range []struct {
		name     string
		launcher *record.Launcher
		status   string
		reason   string
	}{
		{"alive", here, record.StatusRunning, ""},
		{"no launcher", nil, record.StatusRunning, ""},
		{"another host", &record.Launcher{Host: here.Host + "-other", BootID: here.BootID, PID: ended.Process.Pid}, record.StatusRunning, ""},
		{"ended", &record.Launcher{Host: here.Host, BootID: here.BootID, PID: ended.Process.Pid, PIDNS: here.PIDNS}, record.StatusFailed, gone},
		// a container sharing the host's name: its pids are not this namespace's
		{"another pid namespace", &record.Launcher{Host: here.Host, BootID: here.BootID, PID: ended.Process.Pid, PIDNS: "pid:[1]"},
			record.StatusRunning, ""},
		{"restarted", &record.Launcher{Host: here.Host, BootID: "another-boot", PID: os.Getpid()}, record.StatusFailed,
			fmt.Sprintf("efaxx (pid %d on %s) ended before the launch did: killed, or the machine restarted", os.Getpid(), here.Host)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.name == "restarted" && here.BootID == "" {
				t.Fatal("no boot id: /proc/sys/kernel/random/boot_id, which Linux always has, could not be read")
			}
			db := MustOpenDB(t)
			r := newTestRun("uid-1", "sendrecv", 2, 1024)
			r.manifest.ExitCode, r.manifest.EndNs, r.manifest.Launcher = nil, 0, tt.launcher
			r.dropEnd(1)
			rep := mustIngest(t, db, r.write(t, t.TempDir(), "000-p1"))
			if got := rep.Runs[0]; got.Status != tt.status || got.Reason != tt.reason {
				t.Errorf("run = %s %q, want %s %q", got.Status, got.Reason, tt.status, tt.reason)
			}
		})
	}
}

// TestIngest_SampleOutsideRun: a sample of a size the run did not
// measure, or with a peer that is no other rank of the run, is reported
// at its line and the run is partial, where it was stored and the run ok;
// so are the samples of a rank file of a rank the run did not launch.
func TestIngest_SampleOutsideRun(t *testing.T) {
	for _, tt := range []struct {
		name    string
		change  func(*record.Sample)
		problem string
	}{
		{"size", func(s *record.Sample) { s.Size = 3000 },
			":4: sample size 3000: not a size of the run (run.json sizes)"},
		{"peer past the ranks", func(s *record.Sample) { s.Peer = 7 },
			":4: sample size 1024: peer 7 is not another rank of the run's 2 (or -1 for several)"},
		{"peer itself", func(s *record.Sample) { s.Peer = 1 },
			":4: sample size 1024: peer 1 is not another rank of the run's 2 (or -1 for several)"},
		{"peer below -1", func(s *record.Sample) { s.Peer = -2 },
			":4: sample size 1024: peer -2 is not another rank of the run's 2 (or -1 for several)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			db := MustOpenDB(t)
			r := newTestRun("uid-1", "sendrecv", 2, 1024, 4096)
			odd := sampleOf("sendrecv", 1, 2, 1024)
			tt.change(&odd)
			r.lines[1] = append(r.lines[1][:3], append([]string{mustJSON(odd)}, r.lines[1][3:]...)...)
			dir := r.write(t, t.TempDir(), "000-p1")
			wantRank1Partial(t, mustIngest(t, db, dir), dir, tt.problem, 4)
		})
	}
	t.Run("rank past the ranks", func(t *testing.T) {
		db := MustOpenDB(t)
		r := newTestRun("uid-1", "sendrecv", 2, 1024)
		r.lines[2] = newTestRun("uid-1", "sendrecv", 3, 1024).lines[2] // its sample has peer 0
		dir := r.write(t, t.TempDir(), "000-p1")
		rep := mustIngest(t, db, dir)
		want := filepath.Join(dir, record.RankFile(2)) + ":2: sample size 1024: rank 2 is not a rank of the run's 2"
		if got := lineerr.Errors(rep.Problems).Error(); got != want {
			t.Errorf("problems = %s, want %s", got, want)
		}
		if got := rep.Runs[0]; got.Status != record.StatusPartial || got.Reason != "unusable lines from rank 2" || got.Samples != 2 {
			t.Errorf("run = %s %q, %d samples, want partial: unusable lines from rank 2, 2 samples", got.Status, got.Reason, got.Samples)
		}
	})
}

// TestIngest_SizeWithoutSamples: a run whose ranks all said ok but left a
// size of its point (or every size) unmeasured is partial, not ok.
func TestIngest_SizeWithoutSamples(t *testing.T) {
	for _, tt := range []struct {
		name     string
		sizes    []uint64 // the manifest's
		measured []uint64 // the sizes the ranks measured
		status   string
		reason   string
	}{
		{"every size", []uint64{1024, 4096}, []uint64{1024, 4096}, record.StatusOK, ""},
		{"one missing", []uint64{1024, 4096, 65536}, []uint64{1024, 4096}, record.StatusPartial, "no samples at size 65536 B"},
		{"none", []uint64{1024, 4096}, nil, record.StatusPartial, "no samples"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			db := MustOpenDB(t)
			r := newTestRun("uid-1", "sendrecv", 2, tt.measured...)
			r.manifest.Sizes = tt.sizes
			dir := r.write(t, t.TempDir(), "000-p1")
			rep := mustIngest(t, db, dir)
			if got := rep.Runs[0]; got.Status != tt.status || got.Reason != tt.reason {
				t.Errorf("run = %s %q, want %s %q", got.Status, got.Reason, tt.status, tt.reason)
			}
		})
	}
}
