package results_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"efaxx/results"
	"efaxx/results/record"
)

// testRun is a synthetic run directory: a manifest and the lines of each
// rank's file. Tests build one with newTestRun, damage it as they need, and
// write it with write.
type testRun struct {
	manifest record.Manifest
	lines    map[int][]string // rank → NDJSON lines; a rank absent here has no file
}

// testSweep is the spec text every test session holds.
const testSweep = "name = \"unit\"\n"

// newTestRun returns a run of benchmark over ranks ranks and sizes that
// exited 0 with every rank ok. Its numbers are simple enough to check by
// hand: rank r timed 100 iterations of each size in (r+1) ms, with a p50
// of 10·2^(r mod 16) µs; see sampleOf.
func newTestRun(uid, benchmark string, ranks int, sizes ...uint64) *testRun {
	zero := 0
	r := &testRun{
		manifest: record.Manifest{
			UID: uid, Sweep: "unit", SweepFile: "../sweep.toml", SweepHash: "sweephash",
			Point: "point-" + benchmark, Benchmark: benchmark,
			Params: map[string]any{"provider": "shm", "iterations": 100},
			Sizes:  sizes, Ranks: ranks, Executor: "local",
			Command: []string{"mpirun", "-np", fmt.Sprint(ranks), "efaxx-runner"},
			StartNs: 1_700_000_000_000_000_000, EndNs: 1_700_000_060_000_000_000,
			ExitCode: &zero,
		},
		lines: map[int][]string{},
	}
	for rank := range ranks {
		r.lines[rank] = append(r.lines[rank], mustJSON(record.Rank{
			Type: record.TypeRank, Rank: rank, World: ranks, LocalRank: rank % 2,
			Host: fmt.Sprintf("node%d", rank/2), PID: 1000 + rank, Benchmark: benchmark,
			Provider: "shm", Fabric: "shm", Domain: "shm", Libfabric: "1.17.0",
		}))
		for _, size := range sizes {
			r.lines[rank] = append(r.lines[rank], mustJSON(sampleOf(benchmark, rank, ranks, size)))
		}
		r.lines[rank] = append(r.lines[rank], mustJSON(record.End{
			Type: record.TypeEnd, Rank: rank, Status: record.StatusOK, ElapsedNs: 5e9,
		}))
	}
	return r
}

// sampleOf returns rank's sample of size. For sendrecv every rank sends and
// receives size bytes per iteration; for other benchmarks rank 0 sends and
// the others receive. The peer is the next rank, or -1 for a run of one
// rank (queue), which has no other.
func sampleOf(benchmark string, rank, ranks int, size uint64) record.Sample {
	peer := (rank + 1) % ranks
	if ranks == 1 {
		peer = -1
	}
	s := record.Sample{
		Type: record.TypeSample, Rank: rank, Peer: peer, Role: "target",
		Size: size, Iterations: 100, ElapsedNs: uint64(rank+1) * 1_000_000,
		Lat: record.Lat{Min: 9_000, P50: 10_000 << (rank % 16), P99: 50_000, Max: 90_000},
	}
	if rank == 0 {
		s.Role = "initiator"
	}
	switch {
	case benchmark == "sendrecv":
		s.BytesSent, s.BytesRecv = size, size
	case rank == 0:
		s.BytesSent = size
	default:
		s.BytesRecv = size
	}
	return s
}

// exitCode returns a pointer to code, for manifests.
func exitCode(code int) *int { return &code }

// dropEnd removes the end record of rank.
func (r *testRun) dropEnd(rank int) {
	r.lines[rank] = r.lines[rank][:len(r.lines[rank])-1]
}

// setEnd replaces the end record of rank.
func (r *testRun) setEnd(rank int, status, msg string) {
	r.lines[rank][len(r.lines[rank])-1] = mustJSON(record.End{
		Type: record.TypeEnd, Rank: rank, Status: status, Error: msg,
	})
}

// write writes the run as directory name of the session directory, with
// the session's sweep.toml, and returns the run directory.
func (r *testRun) write(tb testing.TB, session, name string) string {
	tb.Helper()
	dir := filepath.Join(session, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	mustWrite(tb, filepath.Join(session, "sweep.toml"), testSweep)
	mustWrite(tb, filepath.Join(dir, record.ManifestName), mustJSON(r.manifest))
	for rank, lines := range r.lines {
		text := strings.Join(lines, "\n")
		if len(lines) > 0 {
			text += "\n"
		}
		mustWrite(tb, filepath.Join(dir, record.RankFile(rank)), text)
	}
	return dir
}

// mustWrite writes text to path.
func mustWrite(tb testing.TB, path, text string) {
	tb.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// mustJSON encodes v as one line of JSON.
func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// mustIngest ingests path and fails the test on error.
func mustIngest(tb testing.TB, db *results.DB, path string) *results.IngestReport {
	tb.Helper()
	rep, err := db.Ingest(tb.Context(), path)
	if err != nil {
		tb.Fatal(err)
	}
	return rep
}

// tableCounts returns the number of rows of every table in the store that
// has any, the migrations table aside: the counts tests compare do not
// change when the schema gains a table.
func tableCounts(tb testing.TB, db *results.DB) map[string]int {
	tb.Helper()
	ctx := tb.Context()
	sqldb := results.SQLDB(db)
	rows, err := sqldb.QueryContext(ctx,
		`SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != 'migrations'`)
	if err != nil {
		tb.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			tb.Fatal(err)
		}
		tables = append(tables, name)
	}
	if err := rows.Close(); err != nil {
		tb.Fatal(err)
	}
	counts := map[string]int{}
	for _, table := range tables {
		var n int
		if err := sqldb.QueryRowContext(ctx, `SELECT COUNT(*) FROM "`+table+`"`).Scan(&n); err != nil {
			tb.Fatal(err)
		}
		if n > 0 && table != "migrations" {
			counts[table] = n
		}
	}
	return counts
}

// rankStatuses returns "rank:status:error" for every rank row of run id.
func rankStatuses(tb testing.TB, db *results.DB, id int64) []string {
	tb.Helper()
	rows, err := results.SQLDB(db).QueryContext(tb.Context(),
		`SELECT rank, status, error FROM ranks WHERE run_id = ? ORDER BY rank`, id)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var rank int
		var status, msg string
		if err := rows.Scan(&rank, &status, &msg); err != nil {
			tb.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%d:%s:%s", rank, status, msg))
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}
