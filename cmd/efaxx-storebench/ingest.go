package main

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	_ "github.com/mattn/go-sqlite3"

	"efaxx/results"
	"efaxx/results/synth"
)

// largeRun is the ingested large run, for the commands timed after.
type largeRun struct {
	db   string // a store holding it
	id   int64
	rows int
}

// benchIngest times ingest of one large synthetic run into a new store,
// alternating with a raw insert loop of the same rows into an empty
// samples table, and prints both rates, their ratio and the store's size.
func benchIngest(ctx context.Context, o options) (*largeRun, error) {
	dir := filepath.Join(o.dir, "large")
	sizes := make([]uint64, o.sizes)
	for i := range sizes {
		sizes[i] = 1 << i
	}
	syn := &synth.Run{UID: "large", Ranks: o.ranks, Sizes: sizes, Noise: 0.02}
	if err := syn.Write(dir); err != nil {
		return nil, err
	}
	var ingest, raw, ratio []float64
	var large *largeRun
	var rows [][]any
	for i := range o.trials {
		lr, d, err := ingestOnce(ctx, dir, filepath.Join(o.dir, fmt.Sprintf("ingest-%d.db", i)))
		if err != nil {
			return nil, err
		}
		if large == nil {
			large = lr
			if rows, err = sampleRows(lr.db); err != nil {
				return nil, err
			}
		}
		rd, err := rawInsert(filepath.Join(o.dir, fmt.Sprintf("raw-%d.db", i)), rows)
		if err != nil {
			return nil, err
		}
		ingest = append(ingest, float64(lr.rows)/d.Seconds())
		raw = append(raw, float64(len(rows))/rd.Seconds())
		ratio = append(ratio, ingest[i]/raw[i])
	}
	fi, err := os.Stat(large.db)
	if err != nil {
		return nil, err
	}
	fmt.Printf("ingest, one run of %d ranks x %d sizes (%d sample rows, from %d NDJSON files):\n", o.ranks, o.sizes, large.rows, o.ranks)
	fmt.Printf("  efaxx ingest           %s rows/s\n", spread(ingest, "%.0f"))
	fmt.Printf("  raw insert loop        %s rows/s  (one prepared INSERT per row, rows already in memory, one transaction)\n", spread(raw, "%.0f"))
	fmt.Printf("  ratio ingest/raw       %s  (per trial pair)\n", spread(ratio, "%.2f"))
	fmt.Printf("  database size          %.1f bytes per sample row (%d bytes, whole file: every table and index)\n\n",
		float64(fi.Size())/float64(large.rows), fi.Size())
	return large, nil
}

// ingestOnce ingests dir into a new store at path and returns the time
// Ingest took.
func ingestOnce(ctx context.Context, dir, path string) (*largeRun, time.Duration, error) {
	db, err := results.Open(ctx, path)
	if err != nil {
		return nil, 0, err
	}
	start := time.Now()
	rep, err := db.Ingest(ctx, dir)
	d := time.Since(start)
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, 0, err
	}
	if len(rep.Runs) != 1 || len(rep.Problems) > 0 {
		return nil, 0, fmt.Errorf("ingest %s: %d runs, problems %v", dir, len(rep.Runs), rep.Problems)
	}
	return &largeRun{db: path, id: rep.Runs[0].ID, rows: rep.Runs[0].Samples}, d, nil
}

// sampleRows reads every samples row of the store at path.
func sampleRows(path string) ([][]any, error) {
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	rows, err := db.Query(`SELECT ` + rawColumns + ` FROM samples`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out [][]any
	for rows.Next() {
		var n [14]int64
		var variant, role, peers, strategy, rails, railBytes string
		if err := rows.Scan(&n[0], &n[1], &n[2], &n[3], &variant, &role, &n[4], &n[5], &n[6], &n[7], &n[8],
			&n[9], &n[10], &n[11], &peers, &strategy, &rails, &railBytes, &n[12], &n[13]); err != nil {
			return nil, err
		}
		out = append(out, []any{n[0], n[1], n[2], n[3], variant, role, n[4], n[5], n[6], n[7], n[8],
			n[9], n[10], n[11], peers, strategy, rails, railBytes, n[12], n[13]})
	}
	return out, rows.Err()
}

// rawColumns are the columns of the samples table, in rawSchema's order.
const rawColumns = `run_id, size, rank, peer, variant, role, bytes_sent, bytes_recv, iterations,
	elapsed_ns, lat_min_ns, lat_p50_ns, lat_p99_ns, lat_max_ns, peers, strategy, rails, rail_bytes,
	link_bps, requeued`

// rawSchema is the samples table as the migrations leave it (0001, then
// 0020's variant in the key and 0021's multi-rail columns), alone.
const rawSchema = `CREATE TABLE samples (
	run_id INTEGER NOT NULL, size INTEGER NOT NULL CHECK (size >= 0), rank INTEGER NOT NULL,
	peer INTEGER NOT NULL, variant TEXT NOT NULL DEFAULT '', role TEXT NOT NULL,
	bytes_sent INTEGER NOT NULL, bytes_recv INTEGER NOT NULL, iterations INTEGER NOT NULL,
	elapsed_ns INTEGER NOT NULL CHECK (elapsed_ns > 0), lat_min_ns INTEGER NOT NULL,
	lat_p50_ns INTEGER NOT NULL, lat_p99_ns INTEGER NOT NULL, lat_max_ns INTEGER NOT NULL,
	peers TEXT NOT NULL DEFAULT '', strategy TEXT NOT NULL DEFAULT '',
	rails TEXT NOT NULL DEFAULT '[]', rail_bytes TEXT NOT NULL DEFAULT '[]',
	link_bps INTEGER NOT NULL DEFAULT 0 CHECK (link_bps >= 0),
	requeued INTEGER NOT NULL DEFAULT 0 CHECK (requeued >= 0),
	PRIMARY KEY (run_id, size, rank, peer, variant)) WITHOUT ROWID`

// rawInsert inserts rows into an empty samples table of a new database at
// path, with the pragmas the store uses, through one prepared statement
// in one transaction, and returns the time of the loop and the commit.
func rawInsert(path string, rows [][]any) (time.Duration, error) {
	q := url.Values{"_journal_mode": {"WAL"}, "_synchronous": {"NORMAL"}, "_txlock": {"immediate"}}
	db, err := sql.Open("sqlite3", "file:"+path+"?"+q.Encode())
	if err != nil {
		return 0, err
	}
	defer db.Close()
	if _, err := db.Exec(rawSchema); err != nil {
		return 0, err
	}
	start := time.Now()
	tx, err := db.Begin()
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	stmt, err := tx.Prepare(`INSERT INTO samples (` + rawColumns + `) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return 0, err
	}
	for _, r := range rows {
		if _, err := stmt.Exec(r...); err != nil {
			return 0, err
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, err
	}
	return time.Since(start), nil
}
