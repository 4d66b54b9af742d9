-- 0020_sample_variant: a run may measure one size several ways (the ipc
-- benchmark: its copy kernel, and the copy engines as the reference), so
-- the variant joins the samples' key. '' for benchmarks with one way.
CREATE TABLE samples_new (
    run_id     INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    size       INTEGER NOT NULL CHECK (size >= 0),
    rank       INTEGER NOT NULL,
    peer       INTEGER NOT NULL,
    variant    TEXT    NOT NULL DEFAULT '',
    role       TEXT    NOT NULL,
    bytes_sent INTEGER NOT NULL,
    bytes_recv INTEGER NOT NULL,
    iterations INTEGER NOT NULL,
    elapsed_ns INTEGER NOT NULL CHECK (elapsed_ns > 0),
    lat_min_ns INTEGER NOT NULL,
    lat_p50_ns INTEGER NOT NULL,
    lat_p99_ns INTEGER NOT NULL,
    lat_max_ns INTEGER NOT NULL,
    PRIMARY KEY (run_id, size, rank, peer, variant)
) WITHOUT ROWID;

INSERT INTO samples_new (run_id, size, rank, peer, role, bytes_sent, bytes_recv, iterations,
    elapsed_ns, lat_min_ns, lat_p50_ns, lat_p99_ns, lat_max_ns)
SELECT run_id, size, rank, peer, role, bytes_sent, bytes_recv, iterations,
    elapsed_ns, lat_min_ns, lat_p50_ns, lat_p99_ns, lat_max_ns
FROM samples;

DROP TABLE samples;
ALTER TABLE samples_new RENAME TO samples;
