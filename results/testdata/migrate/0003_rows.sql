-- What ingest adds from schema version 3 on, to the rows of 0001_rows.sql:
-- the run's hosts and a tag.
INSERT INTO run_hosts (host, run_id) VALUES ('n1', 1), ('n2', 1);
INSERT INTO run_tags (run_id, key, value) VALUES (1, 'cluster', 'old');
