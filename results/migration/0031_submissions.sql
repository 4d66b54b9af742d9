-- 0031_submissions: jobs handed to sbatch whose answer is not recorded yet.
--
-- efaxx submit adds a row before it runs sbatch, and removes it in the
-- transaction that records the job sbatch accepted. A row left behind is
-- a submit stopped in between (SIGKILL, a crash): sync finds its job in
-- Slurm by its working directory, or by the job.start marker its script
-- writes there, and records it then. Instants as in 0001.

CREATE TABLE submissions (
    id           INTEGER PRIMARY KEY,
    dir          TEXT    NOT NULL UNIQUE, -- the job's directory, sbatch --chdir
    job          TEXT    NOT NULL,        -- the jobs row to record, as JSON (results.Job), without job_id
    submitted_ns INTEGER NOT NULL
);
