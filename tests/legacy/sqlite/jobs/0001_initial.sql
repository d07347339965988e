-- The runs of the lifecycle jobs. A scheduled run names its slot (the time it was
-- scheduled for): a slot is claimed once per job.
CREATE TABLE job_runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    job TEXT NOT NULL,
    replica TEXT NOT NULL,
    started_at REAL NOT NULL,
    finished_at REAL,
    result TEXT,
    error TEXT,
    slot REAL
);
CREATE UNIQUE INDEX job_runs_slot ON job_runs(job, slot) WHERE slot IS NOT NULL;
CREATE INDEX job_runs_job ON job_runs(job, started_at);
