"""Version 13: audits.

A sample of an LLM label set's pool drawn with known inclusion probabilities (by topics, pairs or
strata), its units in the order they are walked in, and which units have been graded, so that gold
labels of the sample estimate the whole pool without bias.
"""

VERSION = 13

SQL = """
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
        """
