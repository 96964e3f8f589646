"""Version 11: the process behind a judge run.

A judge run records the process that created it (pid, host, start time) and when that process let
go of it unfinished, so that whether an unfinished run is still at work is read from its process:
a judge killed at any point reads as interrupted, never as finished.
"""

VERSION = 11

SQL = """
        -- The process that created a judge run (pid, host, and its start time in clock ticks after
        -- boot, so that a pid handed to another process later is not taken for the judge's), and
        -- when that process let go of the run without finishing it (cancelled, or stopped by an
        -- error). Whether an unfinished run is still at work is read from its process: a judge
        -- killed at any point leaves a run that reads as interrupted, never as finished.
        ALTER TABLE judge_runs ADD COLUMN owner_pid INTEGER;
        ALTER TABLE judge_runs ADD COLUMN owner_host VARCHAR;
        ALTER TABLE judge_runs ADD COLUMN owner_started BIGINT;
        ALTER TABLE judge_runs ADD COLUMN stopped_at TIMESTAMP;
        """
