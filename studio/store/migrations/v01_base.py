"""Version 1: the project file's base schema.

Batches (one per command that writes), topics, documents, runs and their ranked rows, label sets
with their append-only label events and the `labels` view over them, generated responses, and test
banks with their append-only item events and the `bank_items` view. Labels and bank items are
events from the start so that every edit keeps its provenance and is undone by appending its
inverse.
"""

VERSION = 1

SQL = """
        CREATE SEQUENCE batch_ids START 1;
        CREATE TABLE batches (
            batch_id    BIGINT PRIMARY KEY,
            command     VARCHAR NOT NULL,   -- e.g. 'import qrels', 'label', 'judge'
            source      VARCHAR,            -- file path, judge name or person
            created_at  TIMESTAMP NOT NULL DEFAULT current_timestamp
        );

        CREATE TABLE topics (
            qid   VARCHAR PRIMARY KEY,
            text  VARCHAR NOT NULL
        );

        CREATE TABLE documents (
            docid  VARCHAR PRIMARY KEY,
            title  VARCHAR,
            text   VARCHAR NOT NULL
        );

        CREATE SEQUENCE run_ids START 1;
        CREATE TABLE runs (
            run_id       INTEGER PRIMARY KEY,
            name         VARCHAR NOT NULL UNIQUE,
            source_file  VARCHAR,
            batch_id     BIGINT NOT NULL
        );
        -- One row per ranked document; rank is kept as written, scores decide the order.
        CREATE TABLE run_rows (
            run_id  INTEGER NOT NULL,
            qid     VARCHAR NOT NULL,
            docid   VARCHAR NOT NULL,
            rank    BIGINT NOT NULL,
            score   DOUBLE NOT NULL
        );

        CREATE SEQUENCE label_set_ids START 1;
        CREATE TABLE label_sets (
            label_set_id  INTEGER PRIMARY KEY,
            name          VARCHAR NOT NULL UNIQUE,
            kind          VARCHAR NOT NULL,   -- human | llm | derived | simulated
            source        VARCHAR,
            created_at    TIMESTAMP NOT NULL DEFAULT current_timestamp
        );
        CREATE SEQUENCE label_event_ids START 1;
        -- grade NULL removes the label; previous is the grade the event replaced (NULL if none).
        CREATE TABLE label_events (
            event_id      BIGINT PRIMARY KEY,
            label_set_id  INTEGER NOT NULL,
            qid           VARCHAR NOT NULL,
            docid         VARCHAR NOT NULL,
            grade         DOUBLE,
            previous      DOUBLE,
            origin        VARCHAR NOT NULL,   -- import | judge | person | undo
            source        VARCHAR,            -- file, judge or person name
            note          VARCHAR,
            undoes        BIGINT,             -- for origin = 'undo': the event it reverts
            batch_id      BIGINT NOT NULL,
            created_at    TIMESTAMP NOT NULL DEFAULT current_timestamp
        );
        CREATE VIEW labels AS
            SELECT label_set_id, qid, docid, grade
            FROM (
                -- arg_max_null: a removal (NULL grade) must win when it is the newest event
                SELECT label_set_id, qid, docid, arg_max_null(grade, event_id) AS grade
                FROM label_events
                GROUP BY label_set_id, qid, docid
            )
            WHERE grade IS NOT NULL;

        CREATE TABLE responses (
            qid        VARCHAR NOT NULL,
            system     VARCHAR NOT NULL,
            text       VARCHAR NOT NULL,
            citations  VARCHAR[] NOT NULL,
            batch_id   BIGINT NOT NULL,
            PRIMARY KEY (qid, system)
        );

        CREATE SEQUENCE bank_ids START 1;
        CREATE TABLE banks (
            bank_id     INTEGER PRIMARY KEY,
            name        VARCHAR NOT NULL UNIQUE,
            source      VARCHAR,
            created_at  TIMESTAMP NOT NULL DEFAULT current_timestamp
        );
        CREATE SEQUENCE bank_event_ids START 1;
        -- Each event states the whole item after the change (op 'delete' retires it).
        CREATE TABLE bank_events (
            event_id      BIGINT PRIMARY KEY,
            bank_id       INTEGER NOT NULL,
            item_id       VARCHAR NOT NULL,
            qid           VARCHAR NOT NULL,
            op            VARCHAR NOT NULL,   -- add | edit | delete | merge | split | weight
            kind          VARCHAR NOT NULL,   -- question | nugget
            text          VARCHAR NOT NULL,
            importance    VARCHAR,            -- vital | okay
            gold_answers  VARCHAR[] NOT NULL,
            position      INTEGER NOT NULL,
            origin        VARCHAR NOT NULL,   -- import | generate | person
            source        VARCHAR,
            note          VARCHAR,
            batch_id      BIGINT NOT NULL,
            created_at    TIMESTAMP NOT NULL DEFAULT current_timestamp
        );
        CREATE VIEW bank_items AS
            SELECT bank_id, item_id, qid, kind, text, importance, gold_answers, position
            FROM (
                SELECT *, row_number() OVER (PARTITION BY bank_id, item_id ORDER BY event_id DESC) AS newest
                FROM bank_events
            )
            WHERE newest = 1 AND op <> 'delete';
        """
