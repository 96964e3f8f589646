"""Version 20: several assessors on one audit.

Which assessor grades which pair of an audit's sample (a share of the pairs goes to two, so that
their agreement can be measured), and every grade each assessor gave, with the seconds it took and
the gold label event it made; an adjudication of a conflict is recorded the same way.
"""

VERSION = 20

# A studio reading a file at the version before this one needs nothing this version adds: a
# read-only file not yet upgraded to it is read as it is (its audits have one assessor).
READERS_NEED = False

SQL = """
        -- The pairs of an audit each assessor is given (`studio audit assign`).
        CREATE TABLE audit_assignments (
            audit_id  INTEGER NOT NULL,
            qid       VARCHAR NOT NULL,
            docid     VARCHAR NOT NULL,
            assessor  VARCHAR NOT NULL,
            PRIMARY KEY (audit_id, qid, docid, assessor)
        );
        -- Append-only: each grade an assessor gave a pair (grade NULL: the assessor took it back),
        -- and each adjudication (kind 'adjudication'). label_event is the gold label event written
        -- with it; a row whose event was undone no longer counts. The newest row per (pair,
        -- assessor, kind) is the one that stands.
        CREATE SEQUENCE audit_assessment_ids START 1;
        CREATE TABLE audit_assessments (
            assessment_id  BIGINT PRIMARY KEY DEFAULT nextval('audit_assessment_ids'),
            audit_id       INTEGER NOT NULL,
            qid            VARCHAR NOT NULL,
            docid          VARCHAR NOT NULL,
            assessor       VARCHAR NOT NULL,
            kind           VARCHAR NOT NULL,   -- grade | adjudication
            grade          DOUBLE,
            seconds        DOUBLE,             -- from the pair shown to the grade (blind audit only)
            label_event    BIGINT NOT NULL,
            created_at     TIMESTAMP NOT NULL DEFAULT current_timestamp
        );
        """
