"""Version 6: the review log.

Every decision an auditor makes on a disagreement between two label sets (grade, accept, keep the
reference, skip, flag, note, undo), append-only like the labels, so a review can be resumed and
audited.
"""

VERSION = 6

SQL = """
        -- The review log: every decision an auditor made on a disagreement of (ref, qrels).
        -- A label-changing decision points at its label event; undo appends a row that names
        -- the decision it reverts, so the log stays append-only like the labels.
        CREATE SEQUENCE review_decision_ids START 1;
        CREATE TABLE review_decisions (
            decision_id  BIGINT PRIMARY KEY,
            ref          VARCHAR NOT NULL,
            qrels        VARCHAR NOT NULL,
            qid          VARCHAR NOT NULL,
            docid        VARCHAR NOT NULL,
            action       VARCHAR NOT NULL,   -- grade | accept | reference | skip | flag | note | undo
            grade        DOUBLE,
            label_event  BIGINT,
            note         VARCHAR,
            person       VARCHAR,
            undoes       BIGINT,
            created_at   TIMESTAMP NOT NULL DEFAULT current_timestamp
        );
        """
