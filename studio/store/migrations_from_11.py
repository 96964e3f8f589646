"""Migrations 11 on: judge-run owners, the change counter, audits, calibrations, ensembles
(the list continues `migrations.MIGRATIONS`; the same rules apply: never edit a released one)."""

from __future__ import annotations

MIGRATIONS_FROM_11: list[tuple[int, str]] = [
    (
        11,
        """
        -- The process that created a judge run (pid, host, and its start time in clock ticks after
        -- boot, so that a pid handed to another process later is not taken for the judge's), and
        -- when that process let go of the run without finishing it (cancelled, or stopped by an
        -- error). Whether an unfinished run is still at work is read from its process: a judge
        -- killed at any point leaves a run that reads as interrupted, never as finished.
        ALTER TABLE judge_runs ADD COLUMN owner_pid INTEGER;
        ALTER TABLE judge_runs ADD COLUMN owner_host VARCHAR;
        ALTER TABLE judge_runs ADD COLUMN owner_started BIGINT;
        ALTER TABLE judge_runs ADD COLUMN stopped_at TIMESTAMP;
        """,
    ),
    (
        12,
        """
        -- One more per write transaction, from any process: a process that keeps the project's
        -- state in memory (the TUI) compares it with what it saw last to notice others' writes.
        CREATE TABLE project_changes (counter BIGINT NOT NULL);
        INSERT INTO project_changes VALUES (0);
        """,
    ),
    (
        13,
        """
        -- Audits: a sample of an LLM label set's pool drawn with known inclusion probabilities, so
        -- that gold labels given to the sample estimate the whole pool without bias. The gold
        -- grades themselves are label events of the label set named like the audit (kind human);
        -- audit_grades records which units the audit has graded (and by which event).
        CREATE SEQUENCE audit_ids START 1;
        CREATE TABLE audits (
            audit_id    INTEGER PRIMARY KEY,
            name        VARCHAR NOT NULL UNIQUE,   -- also the gold label set's name
            label_set   VARCHAR NOT NULL,          -- the audited (LLM) label set
            design      VARCHAR NOT NULL,          -- topics | pairs | stratified
            strata      VARCHAR,                   -- grade | confidence | topic (stratified only)
            allocation  VARCHAR,                   -- neyman | proportional (stratified only)
            pilot       VARCHAR,                   -- the label set the Neyman allocation came from
            budget      INTEGER NOT NULL,          -- units drawn: topics, or pairs
            population  INTEGER NOT NULL,          -- units in the pool
            seed        BIGINT NOT NULL,
            created_at  TIMESTAMP NOT NULL DEFAULT current_timestamp
        );
        -- docid NULL: a whole topic (every pair of the label set's pool for it).
        CREATE TABLE audit_units (
            audit_id   INTEGER NOT NULL,
            qid        VARCHAR NOT NULL,
            docid      VARCHAR,
            stratum    VARCHAR,
            inclusion  DOUBLE NOT NULL,   -- the unit's probability of being drawn
            position   INTEGER NOT NULL   -- its place in the random order the audit is walked in
        );
        CREATE TABLE audit_grades (
            audit_id     INTEGER NOT NULL,
            qid          VARCHAR NOT NULL,
            docid        VARCHAR NOT NULL,
            label_event  BIGINT NOT NULL,
            created_at   TIMESTAMP NOT NULL DEFAULT current_timestamp
        );
        """,
    ),
    (
        15,
        """
        -- Calibrated label sets: how each was made (its LLM label set, the people's label set it
        -- was fitted to, method, folds, seed), the map fitted on all gold pairs, the cross-fitted
        -- figures and the calibration curve (JSON), so it can be shown and refreshed when a
        -- source changes.
        CREATE TABLE calibrations (
            label_set_id  INTEGER PRIMARY KEY,
            source        VARCHAR NOT NULL,   -- the LLM label set
            gold          VARCHAR NOT NULL,   -- the people's label set
            method        VARCHAR NOT NULL,   -- isotonic | ordinal
            folds         INTEGER NOT NULL,
            seed          BIGINT NOT NULL,
            measure       VARCHAR NOT NULL,   -- the measure of the leaderboard τ
            fitted        VARCHAR NOT NULL,   -- the map fitted on all gold pairs (JSON)
            figures       VARCHAR NOT NULL,   -- cross-fitted κ and τ beside the raw set's (JSON)
            curve         VARCHAR NOT NULL,   -- LLM value bins -> mean gold grade (JSON)
            updated_at    TIMESTAMP NOT NULL DEFAULT current_timestamp
        );
        """,
    ),
    (
        16,
        """
        -- Ensembles (label sets combined pair by pair: majority | mean | median of `members`), and
        -- how far apart the grades behind a label are: an ensemble's members, a judge's samples, or
        -- one answer's label distribution (judges = 0). A judgment's `sample`: which of a pair's
        -- K sampled answers it is (NULL: the pair was asked once).
        CREATE TABLE ensembles (label_set_id INTEGER PRIMARY KEY, members VARCHAR[] NOT NULL, how VARCHAR NOT NULL);
        CREATE TABLE label_spreads (
            label_set_id INTEGER NOT NULL, qid VARCHAR NOT NULL, docid VARCHAR NOT NULL, judges INTEGER NOT NULL,
            std DOUBLE NOT NULL, low DOUBLE NOT NULL, high DOUBLE NOT NULL,   -- population std, lowest, highest
            PRIMARY KEY (label_set_id, qid, docid));
        ALTER TABLE judgments ADD COLUMN sample INTEGER;
        """,
    ),
]
