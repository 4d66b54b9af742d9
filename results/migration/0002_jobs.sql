-- 0002_jobs: scheduler jobs, and which job step each run was.
--
-- efaxx submit records a row per sbatch job; efaxx status and sync keep its
-- state; ingest links each run of a Slurm step to its job. Units as in
-- 0001: instants in Unix time nanoseconds (*_ns).

CREATE TABLE jobs (
    id            INTEGER PRIMARY KEY,
    scheduler     TEXT    NOT NULL DEFAULT 'slurm',
    cluster       TEXT    NOT NULL DEFAULT '',
    job_id        TEXT    NOT NULL,
    name          TEXT    NOT NULL DEFAULT '',
    sweep         TEXT    NOT NULL DEFAULT '',
    sweep_hash    TEXT    NOT NULL DEFAULT '',
    session       TEXT    NOT NULL DEFAULT '',
    session_dir   TEXT    NOT NULL DEFAULT '',
    dir           TEXT    NOT NULL DEFAULT '',
    shape         TEXT    NOT NULL DEFAULT '',
    steps         TEXT    NOT NULL DEFAULT '[]',
    time_limit_ns INTEGER NOT NULL DEFAULT 0,
    state         TEXT    NOT NULL DEFAULT 'PENDING',
    reason        TEXT    NOT NULL DEFAULT '',
    exit_code     TEXT    NOT NULL DEFAULT '',
    node_list     TEXT    NOT NULL DEFAULT '',
    source        TEXT    NOT NULL DEFAULT '',
    submitted_ns  INTEGER NOT NULL,
    started_ns    INTEGER,
    ended_ns      INTEGER,
    updated_ns    INTEGER NOT NULL,
    settled_ns    INTEGER,
    UNIQUE (scheduler, cluster, job_id)
);

-- What sync reads on every call: the jobs not yet settled, few at a time.
CREATE INDEX jobs_unsettled ON jobs (submitted_ns) WHERE settled_ns IS NULL;
CREATE INDEX jobs_sweep ON jobs (sweep, submitted_ns);

ALTER TABLE runs ADD COLUMN job_id INTEGER REFERENCES jobs (id);
ALTER TABLE runs ADD COLUMN step_id TEXT;
ALTER TABLE runs ADD COLUMN node_list TEXT;
ALTER TABLE runs ADD COLUMN runner_version TEXT NOT NULL DEFAULT '';
CREATE INDEX runs_job ON runs (job_id);
