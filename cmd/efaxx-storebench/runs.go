package main

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"time"

	"efaxx/results"
)

// History store shape: runs spread over the last year, on hostsTotal
// hosts, of pointsTotal points in sweepsTotal sweeps.
const (
	sweepsTotal = 20
	pointsTotal = 1000
	hostsTotal  = 500
	yearNs      = int64(365 * 24 * time.Hour)
)

// benchRuns builds a store of o.runs runs and times efaxx runs on it.
func benchRuns(ctx context.Context, o options) error {
	path := filepath.Join(o.dir, "history.db")
	start := time.Now()
	if err := buildHistory(ctx, path, o.runs); err != nil {
		return fmt.Errorf("build history store: %w", err)
	}
	fmt.Printf("efaxx runs over a store of %d runs (%d points, 2 ranks and 4 sizes each, built in %.1f s):\n",
		o.runs, pointsTotal, time.Since(start).Seconds())
	for _, c := range []struct {
		label string
		args  []string
	}{
		{"efaxx runs", nil},
		{"efaxx runs --benchmark write --since now-7d", []string{"--benchmark", "write", "--since", "now-7d"}},
		{"efaxx runs --status failed", []string{"--status", "failed"}},
		{"efaxx runs --tag baseline=yes", []string{"--tag", "baseline=yes"}},
		{"efaxx runs --host node0042", []string{"--host", "node0042"}},
		{"efaxx runs --param provider=tcp", []string{"--param", "provider=tcp"}},
		{"efaxx runs --limit 0 --format csv (all)", []string{"--limit", "0", "--format", "csv"}},
	} {
		if err := printCommand(o, c.label, append([]string{"--db", path, "runs"}, c.args...)...); err != nil {
			return err
		}
	}
	fmt.Println()
	return nil
}

// buildHistory fills a new store at path with runs synthetic runs, with
// SQL that writes what ingest writes (docs/schema.md): the query under
// test reads the same tables, and ingesting 100,000 run directories would
// take many minutes to measure a query.
func buildHistory(ctx context.Context, path string, runs int) error {
	db, err := results.Open(ctx, path)
	if err != nil {
		return err
	}
	if err := db.Close(); err != nil {
		return err
	}
	sqldb, err := sql.Open("sqlite3", "file:"+path+"?_journal_mode=WAL&_synchronous=OFF")
	if err != nil {
		return err
	}
	defer sqldb.Close()
	tx, err := sqldb.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := historyPoints(ctx, tx); err != nil {
		return err
	}
	if err := historyRuns(ctx, tx, runs); err != nil {
		return err
	}
	return tx.Commit()
}

// historyPoints writes the sweeps and points.
func historyPoints(ctx context.Context, tx *sql.Tx) error {
	for s := 1; s <= sweepsTotal; s++ {
		if _, err := tx.ExecContext(ctx, `INSERT INTO sweeps (id, name, hash, spec, created_ns) VALUES (?, ?, ?, '', 0)`,
			s, fmt.Sprintf("sweep%02d", s), fmt.Sprintf("hash%02d", s)); err != nil {
			return err
		}
	}
	for p := 1; p <= pointsTotal; p++ {
		bench := []string{"sendrecv", "write"}[p%2]
		params := fmt.Sprintf(`{"provider":"%s","ranks":2,"iterations":100}`, []string{"efa", "tcp", "shm"}[p%3])
		if _, err := tx.ExecContext(ctx, `INSERT INTO points (id, sweep_id, hash, idx, benchmark, params) VALUES (?, ?, ?, ?, ?, ?)`,
			p, 1+p%sweepsTotal, fmt.Sprintf("point%04d", p), p, bench, params); err != nil {
			return err
		}
	}
	return nil
}

// historyRuns writes the runs, each with its hosts, tags, ranks and samples.
func historyRuns(ctx context.Context, tx *sql.Tx, runs int) error {
	rng := rand.New(rand.NewPCG(1, 2))
	now := time.Now().UnixNano()
	stmts, err := prepareAll(ctx, tx,
		`INSERT INTO runs (id, uid, point_id, benchmark, status, reason, executor, ranks, provider, hosts, command,
			started_ns, finished_ns, exit_code, dir, fingerprint, samples, ingested_ns)
		 VALUES (?, ?, ?, ?, ?, '', 'slurm', 2, ?, ?, '["srun"]', ?, ?, 0, ?, '{}', 8, ?)`,
		`INSERT INTO run_hosts (host, run_id) VALUES (?, ?)`,
		`INSERT INTO run_tags (run_id, key, value) VALUES (?, ?, ?)`,
		`INSERT INTO ranks (run_id, rank, host, local_rank, pid, status) VALUES (?, ?, ?, 0, 1, 'ok')`,
		`INSERT INTO samples (run_id, size, rank, peer, role, bytes_sent, bytes_recv, iterations, elapsed_ns,
			lat_min_ns, lat_p50_ns, lat_p99_ns, lat_max_ns)
		 VALUES (?, ?, ?, ?, 'target', ?, 0, 100, ?, 9000, 10000, 11000, 12000)`)
	if err != nil {
		return err
	}
	for id := 1; id <= runs; id++ {
		p := 1 + rng.IntN(pointsTotal)
		status := "ok"
		if rng.IntN(50) == 0 {
			status = "failed"
		}
		h := [2]string{fmt.Sprintf("node%04d", rng.IntN(hostsTotal)), fmt.Sprintf("node%04d", rng.IntN(hostsTotal))}
		started := now - rng.Int64N(yearNs)
		if _, err := stmts[0].ExecContext(ctx, id, fmt.Sprint("uid-", id), p, []string{"sendrecv", "write"}[p%2], status,
			[]string{"efa", "tcp;ofi_rxm", "shm"}[p%3], fmt.Sprintf(`["%s","%s"]`, h[0], h[1]), started, started+60e9,
			fmt.Sprint("/runs/", id), now); err != nil {
			return err
		}
		if err := historyRunRows(ctx, stmts, rng, id, h); err != nil {
			return err
		}
	}
	return nil
}

// historyRunRows writes the hosts, tags, ranks and samples of run id.
func historyRunRows(ctx context.Context, stmts []*sql.Stmt, rng *rand.Rand, id int, h [2]string) error {
	for _, host := range uniq(h[:]) {
		if _, err := stmts[1].ExecContext(ctx, host, id); err != nil {
			return err
		}
	}
	if _, err := stmts[2].ExecContext(ctx, id, "cluster", []string{"a", "b"}[id%2]); err != nil {
		return err
	}
	if rng.IntN(100) == 0 {
		if _, err := stmts[2].ExecContext(ctx, id, "baseline", "yes"); err != nil {
			return err
		}
	}
	for rank := range 2 {
		if _, err := stmts[3].ExecContext(ctx, id, rank, h[rank]); err != nil {
			return err
		}
		for _, size := range []int{4096, 65536, 1 << 20, 16 << 20} {
			elapsed := int64(float64(size)*100/12.5) + rng.Int64N(100000) + 1
			if _, err := stmts[4].ExecContext(ctx, id, size, rank, 1-rank, size, elapsed); err != nil {
				return err
			}
		}
	}
	return nil
}

// prepareAll prepares each query within tx.
func prepareAll(ctx context.Context, tx *sql.Tx, queries ...string) ([]*sql.Stmt, error) {
	var out []*sql.Stmt
	for _, q := range queries {
		s, err := tx.PrepareContext(ctx, q)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// uniq returns s without repeats, in order.
func uniq(s []string) []string {
	var out []string
	for _, v := range s {
		if len(out) == 0 || out[len(out)-1] != v {
			out = append(out, v)
		}
	}
	return out
}
