-- 0003_history: what efaxx runs filters on besides time and benchmark:
-- user tags, the hosts a run used, and its status.

-- A user's label on a run, one value per key: efaxx run --tag k=v writes it
-- into run.json and ingest stores it; efaxx tag sets or deletes it later,
-- and wins over the manifest (ingest never overwrites a tag).
CREATE TABLE run_tags (
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    key    TEXT    NOT NULL CHECK (key <> ''),
    value  TEXT    NOT NULL,
    PRIMARY KEY (run_id, key)
) WITHOUT ROWID;

-- "Runs tagged k=v" is one range of this index (which holds run_id too).
CREATE INDEX run_tags_key_value ON run_tags (key, value);

-- The distinct hosts of each run, one row each, so that "runs on host h"
-- is one range of the key instead of a scan of every run's hosts JSON.
-- runs.hosts keeps the list in rank order for display.
CREATE TABLE run_hosts (
    host   TEXT    NOT NULL,
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    PRIMARY KEY (host, run_id)
) WITHOUT ROWID;

INSERT INTO run_hosts (host, run_id)
SELECT DISTINCT j.value, r.id
FROM runs r, json_each(r.hosts) j
WHERE j.type = 'text' AND j.value <> '';

-- "Failed runs, newest first" reads one index range, as the benchmark does.
CREATE INDEX runs_status_started ON runs (status, started_ns);
