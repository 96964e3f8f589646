"""Version 25: a label event's row holds what every event needs, and no more.

Every edit appends a label event, and appending one cost about twice DuckDB's one-integer row: the
row carried two texts every event repeats (its origin and source, the same for every event of a
write), two columns almost every event leaves empty (a note, the event an undo reverts) and a
primary-key index the sequence already guarantees. Now:

* `label_event_rows` keeps the pair, the grade, the grade it replaced, the batch, the time, and a
  `source_id` into `label_event_sources`, which holds each (origin, source) once;
* `label_event_notes` holds a note and the event an undo reverts, for the events that have one;
* `label_events` is a view with the columns the table had, so every reader reads as before (a
  reader of a file not yet upgraded reads the table of that name: the same columns);
* `labels` reads the rows directly.

Event ids still come from `label_event_ids`, in order; nothing else about an event changes.
"""

VERSION = 25

# Readers read `label_events` and `labels`, which an older file has as a table and a view of
# the same columns; only writers need the new tables.
READERS_NEED = False

SQL = """
        CREATE SEQUENCE label_event_source_ids START 1;
        -- Each (origin, source) of label events once: import | judge | person | undo | derived …
        CREATE TABLE label_event_sources (
            source_id  INTEGER NOT NULL,
            origin     VARCHAR NOT NULL,
            source     VARCHAR             -- file, judge or person name
        );
        INSERT INTO label_event_sources
        SELECT nextval('label_event_source_ids'), origin, source
        FROM (SELECT DISTINCT origin, source FROM label_events ORDER BY origin, source NULLS FIRST);

        -- grade NULL removes the label; previous is the grade the event replaced (NULL if none).
        CREATE TABLE label_event_rows (
            event_id      BIGINT NOT NULL,    -- from label_event_ids: unique, in the order written
            label_set_id  INTEGER NOT NULL,
            qid           VARCHAR NOT NULL,
            docid         VARCHAR NOT NULL,
            grade         DOUBLE,
            previous      DOUBLE,
            source_id     INTEGER NOT NULL,   -- its origin and source (label_event_sources)
            batch_id      BIGINT NOT NULL,
            created_at    TIMESTAMP NOT NULL DEFAULT current_timestamp
        );
        INSERT INTO label_event_rows
        SELECT e.event_id, e.label_set_id, e.qid, e.docid, e.grade, e.previous, s.source_id, e.batch_id, e.created_at
        FROM label_events e
        JOIN label_event_sources s ON s.origin = e.origin AND s.source IS NOT DISTINCT FROM e.source
        ORDER BY e.event_id;

        -- What few events have: a person's note, and for an undo the event it reverts.
        CREATE TABLE label_event_notes (
            event_id  BIGINT NOT NULL,
            note      VARCHAR,
            undoes    BIGINT
        );
        INSERT INTO label_event_notes
        SELECT event_id, note, undoes FROM label_events WHERE note IS NOT NULL OR undoes IS NOT NULL
        ORDER BY event_id;

        DROP VIEW labels;
        DROP TABLE label_events;
        CREATE VIEW label_events AS
            SELECT e.event_id, e.label_set_id, e.qid, e.docid, e.grade, e.previous, s.origin, s.source,
                   n.note, n.undoes, e.batch_id, e.created_at
            FROM label_event_rows e
            JOIN label_event_sources s USING (source_id)
            LEFT JOIN label_event_notes n USING (event_id);
        CREATE VIEW labels AS
            SELECT label_set_id, qid, docid, grade
            FROM (
                -- arg_max_null: a removal (NULL grade) must win when it is the newest event
                SELECT label_set_id, qid, docid, arg_max_null(grade, event_id) AS grade
                FROM label_event_rows
                GROUP BY label_set_id, qid, docid
            )
            WHERE grade IS NOT NULL;
        """
