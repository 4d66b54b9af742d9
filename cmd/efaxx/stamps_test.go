package main

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunCorruptStampFails proves the promise that every iteration's
// stamps are checked, not only the first's and last's bytes: rank 0
// damages the last stamp of the middle iteration (a stale or cut-short
// op's trace; EFAXX_TEST_CORRUPT_STAMP_SIZE), and every benchmark, on shm
// and tcp, one op a message or several, with one slot or the default,
// fails that size naming the stamp's byte. The sizes are 1 B and 300001 B
// (a last op of 37857 B under 64 KiB chunks).
func TestRunCorruptStampFails(t *testing.T) {
	every := `["sendrecv", "send", "write", "all2all"]`
	for _, c := range []struct {
		name, benchmarks, params string
		size                     uint64
	}{
		{"one op", every, `provider = ["shm", "tcp"]
ranks = 2
sizes = [4096, 300001]`, 300001},
		{"chunks", every, `provider = ["shm", "tcp"]
ranks = 2
sizes = [4096, 300001]
chunk = "64KiB"`, 300001},
		{"one slot", `["send", "write", "all2all"]`, `provider = ["shm", "tcp"]
ranks = 2
slots = 1
sizes = [4096, 300001]
chunk = ["1MiB", "64KiB"]`, 300001},
		{"1 B", every, `provider = ["shm", "tcp"]
ranks = 2
sizes = [4096, 1]`, 1},
		{"rails", every, `provider = "tcp"
ranks = 3
rails = 2
strategy = ["single", "split", "round-robin"]
sizes = [4096, 300001]
chunk = "64KiB"`, 300001},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			db := filepath.Join(dir, "test.db")
			sweep := writeFile(t, filepath.Join(dir, "s.toml"), `name = "stamp"
benchmark = `+c.benchmarks+`
[params]
`+c.params+`
iterations = 4
warmup = 1
timeout = "20s"
pinning = "none"
`)
			t.Setenv("EFAXX_TEST_CORRUPT_STAMP_SIZE", fmt.Sprint(c.size))
			code, stdout, stderr := efaxx(t, "--db", db, "--workdir", filepath.Join(dir, "runs"), "run", "--runner", runner(t), sweep)
			if code != 3 || !strings.Contains(stdout+stderr, "payload mismatch") {
				t.Fatalf("efaxx run = %d, want 3\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			store, err := sql.Open("sqlite3", db)
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			rows, err := store.Query(`SELECT r.benchmark, p.params, r.status, r.reason,
				(SELECT COUNT(*) FROM samples s WHERE s.run_id = r.id AND s.size = 4096)
				FROM runs r JOIN points p ON p.id = r.point_id ORDER BY r.id`)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			n := 0
			for rows.Next() {
				var bench, params, status, reason string
				var kept int
				if err := rows.Scan(&bench, &params, &status, &reason, &kept); err != nil {
					t.Fatal(err)
				}
				n++
				want := fmt.Sprintf("payload mismatch at byte %d of %d", c.size-1, c.size)
				t.Logf("%s %s: %s (%s)", bench, params, status, reason)
				if status != "failed" || !strings.Contains(reason, want) {
					t.Errorf("%s %s = %s (%s), want failed with %q", bench, params, status, reason, want)
				}
				if kept == 0 {
					t.Errorf("%s %s kept no samples of 4096 B, measured before the damage", bench, params)
				}
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				t.Fatal("no runs")
			}
		})
	}
}
