package main

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunCorruptEveryShape proves that each check the benchmarks promise
// fails, in every shape of message: rank 0 damages one byte of a size,
// and every benchmark, on shm and tcp, one op a message or several, with
// one slot or the default, over one rail or two under each strategy,
// fails that size naming the byte; where a peer sends too (sendrecv's
// answers, all2all), also when the peer damages its own. The hooks: the
// last stamp of the middle iteration, which only its stamps check (a
// stale or cut-short op's trace; EFAXX_TEST_CORRUPT_STAMP_SIZE), and a
// byte off the stamps in the last iteration, which its full check finds
// (EFAXX_TEST_CORRUPT_SIZE). The sizes are 1 B and 300001 B (a last op of
// 37857 B under 64 KiB chunks).
func TestRunCorruptEveryShape(t *testing.T) {
	hooks := []struct {
		name, env string
		at        func(size uint64) uint64 // the byte it damages
	}{
		{"stamp", "EFAXX_TEST_CORRUPT_STAMP_SIZE", func(size uint64) uint64 { return size - 1 }},
		{"full", "EFAXX_TEST_CORRUPT_SIZE", func(size uint64) uint64 { return size / 3 }},
	}
	every := `["sendrecv", "send", "write", "all2all"]`
	for _, c := range []struct {
		name, benchmarks, params string
		size                     uint64
		rank                     int // whose sends are damaged (EFAXX_TEST_CORRUPT_RANK)
	}{
		{"one op", every, `provider = ["shm", "tcp"]
ranks = 2
sizes = [4096, 300001]`, 300001, 0},
		{"chunks", every, `provider = ["shm", "tcp"]
ranks = 2
sizes = [4096, 300001]
chunk = "64KiB"`, 300001, 0},
		{"one slot", `["send", "write", "all2all"]`, `provider = ["shm", "tcp"]
ranks = 2
slots = 1
sizes = [4096, 300001]
chunk = ["1MiB", "64KiB"]`, 300001, 0},
		{"1 B", every, `provider = ["shm", "tcp"]
ranks = 2
sizes = [4096, 1]`, 1, 0},
		{"from rank 1", `["sendrecv", "all2all"]`, `provider = ["shm", "tcp"]
ranks = 2
sizes = [4096, 300001]
chunk = "64KiB"`, 300001, 1},
		{"rails", every, `provider = "tcp"
ranks = 3
rails = 2
strategy = ["single", "split", "round-robin"]
sizes = [4096, 300001]
chunk = "64KiB"`, 300001, 0},
	} {
		for _, h := range hooks {
			t.Run(c.name+"/"+h.name, func(t *testing.T) {
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
				t.Setenv(h.env, fmt.Sprint(c.size))
				t.Setenv("EFAXX_TEST_CORRUPT_RANK", fmt.Sprint(c.rank))
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
					want := fmt.Sprintf("payload mismatch at byte %d of %d from rank %d", h.at(c.size), c.size, c.rank)
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
}
