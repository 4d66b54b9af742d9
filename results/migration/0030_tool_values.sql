-- 0030_tool_values: what an external tool printed for a sample, as the
-- tool defines it (nccl-tests' algbw and busbw, OSU's MB/s, a Jacobi
-- solver's speedup), beside the raw bytes and times of the sample. Runs of
-- external sweeps and imports write them; efaxx's own runner writes none.
--
-- name:  lower case, such as algbw, busbw, time, latency, bandwidth
-- value: in unit
-- unit:  the tool's unit and its base, such as "GB/s (1e9 B/s)",
--        "MB/s (1e6 B/s)", "us", "%"
CREATE TABLE tool_values (
    run_id  INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    size    INTEGER NOT NULL CHECK (size >= 0),
    rank    INTEGER NOT NULL,
    peer    INTEGER NOT NULL,
    variant TEXT    NOT NULL DEFAULT '',
    name    TEXT    NOT NULL CHECK (name <> ''),
    value   REAL    NOT NULL,
    unit    TEXT    NOT NULL DEFAULT '',
    PRIMARY KEY (run_id, size, rank, peer, variant, name)
) WITHOUT ROWID;

-- A baseline series may stand for one shape and one kind of sample: the
-- runs it is compared with have these parameter values (params, a JSON
-- object such as {"ranks": 16}; '{}' for any run of the benchmark), and
-- only their samples of sample_variant count ('' for every sample).
ALTER TABLE baseline_series ADD COLUMN params TEXT NOT NULL DEFAULT '{}';
ALTER TABLE baseline_series ADD COLUMN sample_variant TEXT NOT NULL DEFAULT '';
