-- 0004_baselines: published numbers (efaxx import baseline), which efaxx
-- compare --baseline puts runs beside. A baseline holds series, one per
-- benchmark, variant and metric, each a value per message size.

CREATE TABLE baselines (
    id          INTEGER PRIMARY KEY,
    name        TEXT    NOT NULL UNIQUE,
    description TEXT    NOT NULL DEFAULT '',
    repository  TEXT    NOT NULL DEFAULT '',
    transcribed TEXT    NOT NULL DEFAULT '',
    hash        TEXT    NOT NULL,          -- SHA-256 of the file imported
    text        TEXT    NOT NULL,          -- the file itself: its provenance travels with the store
    imported_ns INTEGER NOT NULL
);

CREATE TABLE baseline_series (
    id          INTEGER PRIMARY KEY,
    baseline_id INTEGER NOT NULL REFERENCES baselines (id) ON DELETE CASCADE,
    benchmark   TEXT    NOT NULL,
    variant     TEXT    NOT NULL,
    metric      TEXT    NOT NULL,          -- a metric of docs/metrics.md, or one efaxx does not compute
    file        TEXT    NOT NULL DEFAULT '',
    revision    TEXT    NOT NULL DEFAULT '', -- the commit the file was read at
    setup       TEXT    NOT NULL DEFAULT '',
    denominator TEXT    NOT NULL DEFAULT '',
    note        TEXT    NOT NULL DEFAULT '',
    UNIQUE (baseline_id, benchmark, variant, metric)
);

CREATE TABLE baseline_values (
    series_id INTEGER NOT NULL REFERENCES baseline_series (id) ON DELETE CASCADE,
    size      INTEGER NOT NULL CHECK (size > 0),
    value     REAL    NOT NULL,
    PRIMARY KEY (series_id, size)
) WITHOUT ROWID;
