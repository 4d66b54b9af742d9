-- 0001_init: the first schema of the efaxx results store.
--
-- Units are raw: sizes and byte counts in bytes, durations in nanoseconds,
-- instants in Unix time nanoseconds (*_ns). Rates (Gbps, one-way latency)
-- are derived in queries, never stored. docs/schema.md documents every
-- column; docs/metrics.md defines every derived number.

-- A sweep is one spec file, identified by the hash of its content.
CREATE TABLE sweeps (
    id         INTEGER PRIMARY KEY,
    name       TEXT    NOT NULL,
    hash       TEXT    NOT NULL UNIQUE,
    spec       TEXT    NOT NULL DEFAULT '',
    created_ns INTEGER NOT NULL
);

-- A point is one resolved parameter set of a sweep (message sizes excluded).
CREATE TABLE points (
    id        INTEGER PRIMARY KEY,
    sweep_id  INTEGER NOT NULL REFERENCES sweeps (id),
    hash      TEXT    NOT NULL,
    idx       INTEGER NOT NULL,
    benchmark TEXT    NOT NULL,
    params    TEXT    NOT NULL DEFAULT '{}',
    UNIQUE (sweep_id, hash)
);

-- A run is one attempt at one point. AUTOINCREMENT so that the id users type
-- is never handed out twice, even after runs are deleted.
CREATE TABLE runs (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    uid         TEXT    NOT NULL UNIQUE,
    point_id    INTEGER NOT NULL REFERENCES points (id),
    benchmark   TEXT    NOT NULL,
    status      TEXT    NOT NULL
                CHECK (status IN ('running', 'ok', 'failed', 'partial', 'timeout', 'cancelled')),
    reason      TEXT    NOT NULL DEFAULT '',
    executor    TEXT    NOT NULL DEFAULT '',
    ranks       INTEGER NOT NULL DEFAULT 0,
    provider    TEXT    NOT NULL DEFAULT '',
    hosts       TEXT    NOT NULL DEFAULT '[]',
    command     TEXT    NOT NULL DEFAULT '[]',
    started_ns  INTEGER NOT NULL,
    finished_ns INTEGER,
    exit_code   INTEGER,
    dir         TEXT    NOT NULL,
    fingerprint TEXT    NOT NULL DEFAULT '{}',
    samples     INTEGER NOT NULL DEFAULT 0,
    ingested_ns INTEGER NOT NULL
);

-- runs.benchmark copies points.benchmark so that "runs of a benchmark,
-- newest first" is one index range, with no join and no sort.
CREATE INDEX runs_benchmark_started ON runs (benchmark, started_ns);
CREATE INDEX runs_started ON runs (started_ns);
CREATE INDEX runs_point ON runs (point_id);

-- One row per rank of a run, including ranks that left no file.
CREATE TABLE ranks (
    run_id      INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    rank        INTEGER NOT NULL,
    host        TEXT    NOT NULL DEFAULT '',
    local_rank  INTEGER,
    pid         INTEGER,
    status      TEXT    NOT NULL CHECK (status IN ('ok', 'failed', 'missing', 'running')),
    error       TEXT    NOT NULL DEFAULT '',
    bad_lines   INTEGER NOT NULL DEFAULT 0,
    fingerprint TEXT    NOT NULL DEFAULT '{}',
    PRIMARY KEY (run_id, rank)
) WITHOUT ROWID;

-- One row per (run, size, rank, peer): the bulk of the store. The primary
-- key is the uniqueness ingest relies on and, ordered by size before rank,
-- it is also the (run, size) index the per-size aggregates read, so the
-- table needs no second index.
CREATE TABLE samples (
    run_id     INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    size       INTEGER NOT NULL CHECK (size >= 0),
    rank       INTEGER NOT NULL,
    peer       INTEGER NOT NULL,
    role       TEXT    NOT NULL,
    bytes_sent INTEGER NOT NULL,
    bytes_recv INTEGER NOT NULL,
    iterations INTEGER NOT NULL,
    elapsed_ns INTEGER NOT NULL CHECK (elapsed_ns > 0),
    lat_min_ns INTEGER NOT NULL,
    lat_p50_ns INTEGER NOT NULL,
    lat_p99_ns INTEGER NOT NULL,
    lat_max_ns INTEGER NOT NULL,
    PRIMARY KEY (run_id, size, rank, peer)
) WITHOUT ROWID;
