-- Rows as a store of schema version 1 holds them: one run of 2 ranks on two
-- hosts, 2 sizes. TestMigrate_FromEveryVersion writes them into a store of
-- each earlier version and migrates it to the latest.
INSERT INTO sweeps (id, name, hash, spec, created_ns)
VALUES (1, 'old', 'sweephash', 'name = "old"', 1700000000000000000);

INSERT INTO points (id, sweep_id, hash, idx, benchmark, params)
VALUES (1, 1, 'pointhash', 0, 'write', '{"provider":"tcp","ranks":2}');

INSERT INTO runs (id, uid, point_id, benchmark, status, reason, executor, ranks, provider,
    hosts, command, started_ns, finished_ns, exit_code, dir, fingerprint, samples, ingested_ns)
VALUES (1, 'uid-old', 1, 'write', 'ok', '', 'local', 2, 'tcp;ofi_rxm',
    '["n1","n2"]', '["mpirun"]', 1700000000000000000, 1700000060000000000, 0,
    '/old/run', '{"host":"n1"}', 4, 1700000100000000000);

INSERT INTO ranks (run_id, rank, host, local_rank, pid, status, error, bad_lines, fingerprint)
VALUES (1, 0, 'n1', 0, 100, 'ok', '', 0, '{"host":"n1"}'),
       (1, 1, 'n2', 0, 101, 'ok', '', 0, '{"host":"n2"}');

-- 1000 bytes per iteration, 100 iterations in 1 ms: 0.8 Gbps; rank 1 half as fast.
INSERT INTO samples (run_id, size, rank, peer, role, bytes_sent, bytes_recv, iterations,
    elapsed_ns, lat_min_ns, lat_p50_ns, lat_p99_ns, lat_max_ns)
VALUES (1, 1000, 0, 1, 'initiator', 1000, 0, 100, 1000000, 9000, 10000, 11000, 12000),
       (1, 1000, 1, 0, 'target', 0, 1000, 100, 2000000, 19000, 20000, 21000, 22000),
       (1, 2000, 0, 1, 'initiator', 2000, 0, 100, 1000000, 9000, 10000, 11000, 12000),
       (1, 2000, 1, 0, 'target', 0, 2000, 100, 2000000, 19000, 20000, 21000, 22000);
