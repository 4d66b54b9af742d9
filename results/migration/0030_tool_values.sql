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
