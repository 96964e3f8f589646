"""The project file's schema, as an ordered list of migrations.

A migration is applied once, inside the transaction that opens an older file, and recorded in
`schema_version`. Never edit a released migration: add the next one.

Labels and bank items are append-only event tables; the current state is a view over them,
so every edit keeps its provenance and can be undone by appending its inverse.
"""

from __future__ import annotations

from studio.store.migrations_from_11 import MIGRATIONS_FROM_11

MIGRATIONS: list[tuple[int, str]] = [
    (
        1,
        """
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
        """,
    ),
    (
        2,
        """
        -- Every model call, keyed by sha256 of (backend, model, decoding parameters, prompt).
        -- Written the moment a call returns, so a killed judge loses no finished call.
        CREATE TABLE calls (
            key                VARCHAR PRIMARY KEY,
            backend            VARCHAR NOT NULL,
            model              VARCHAR NOT NULL,
            params             VARCHAR NOT NULL,   -- JSON: decoding parameters
            messages           VARCHAR NOT NULL,   -- JSON: the rendered prompt
            output             VARCHAR,            -- raw text (NULL when the call failed)
            error              VARCHAR,            -- why the call failed for good
            label_probs        VARCHAR,            -- JSON {label: probability} from log-probabilities
            prompt_tokens      INTEGER,
            completion_tokens  INTEGER,
            seconds            DOUBLE,
            cost               DOUBLE,
            created_at         TIMESTAMP NOT NULL DEFAULT current_timestamp
        );

        CREATE SEQUENCE judge_run_ids START 1;
        CREATE TABLE judge_runs (
            judge_run_id  INTEGER PRIMARY KEY,
            label_set_id  INTEGER NOT NULL,
            method        VARCHAR NOT NULL,
            backend       VARCHAR NOT NULL,
            model         VARCHAR NOT NULL,
            prompt_name   VARCHAR NOT NULL,
            prompt_hash   VARCHAR NOT NULL,
            params        VARCHAR NOT NULL,   -- JSON: decoding parameters, pool, options
            pool          VARCHAR NOT NULL,
            started_at    TIMESTAMP NOT NULL DEFAULT current_timestamp,
            finished_at   TIMESTAMP,
            pairs         INTEGER,
            calls         INTEGER,
            cache_hits    INTEGER,
            failures      INTEGER
        );

        -- One outcome per judged unit: a (topic, document) pair, or an ordered document pair
        -- for preference judgments (docid_b set). label NULL with parse_error = a recorded failure.
        CREATE TABLE judgments (
            judge_run_id  INTEGER NOT NULL,
            qid           VARCHAR NOT NULL,
            docid         VARCHAR NOT NULL,
            docid_b       VARCHAR,
            call_key      VARCHAR NOT NULL,
            label         DOUBLE,
            parse_error   VARCHAR,
            expected      DOUBLE,             -- expected label under the label distribution
            confidence    DOUBLE              -- probability of the most likely label
        );
        """,
    ),
    (
        3,
        """
        -- Rubric methods grade a document once per test-bank item: the item's id is kept with
        -- the judgment (NULL for whole-document judgments).
        ALTER TABLE judgments ADD COLUMN item_id VARCHAR;
        """,
    ),
    (
        4,
        """
        -- Grading verification: the call that extracted the document's answer to the item.
        ALTER TABLE judgments ADD COLUMN answer_key VARCHAR;
        """,
    ),
    (
        5,
        """
        -- The md5 of the item text a rubric judgment graded: an edited item's grades are stale.
        ALTER TABLE judgments ADD COLUMN item_hash VARCHAR;
        -- How a derived label set was made, so it follows when its source's grades change.
        CREATE TABLE derivations (
            label_set_id  INTEGER PRIMARY KEY,
            source        VARCHAR NOT NULL,   -- the rubric judge's label set
            bank          VARCHAR NOT NULL,
            score         VARCHAR NOT NULL,
            min_grade     DOUBLE NOT NULL
        );
        """,
    ),
    (
        6,
        """
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
        """,
    ),
    (
        7,
        """
        -- Sentence embeddings of texts (documents, answers), keyed by the embedding model and the
        -- md5 of the text: a second embedding judge or FD leaderboard encodes nothing again.
        CREATE TABLE embeddings (
            model      VARCHAR NOT NULL,
            text_hash  VARCHAR NOT NULL,
            vector     FLOAT[] NOT NULL,   -- L2-normalised
            PRIMARY KEY (model, text_hash)
        );
        """,
    ),
    (
        8,
        """
        -- Robustness probes: a judge's label of a passage before and after the passage was
        -- stuffed with the query's terms and a claim of relevance.
        CREATE SEQUENCE probe_ids START 1;
        CREATE TABLE probes (
            probe_id      INTEGER PRIMARY KEY,
            label_set     VARCHAR NOT NULL,   -- the judge's label set
            method        VARCHAR NOT NULL,
            model         VARCHAR NOT NULL,
            perturbation  VARCHAR NOT NULL,
            ref           VARCHAR NOT NULL,
            created_at    TIMESTAMP NOT NULL DEFAULT current_timestamp
        );
        CREATE TABLE probe_results (
            probe_id   INTEGER NOT NULL,
            qid        VARCHAR NOT NULL,
            docid      VARCHAR NOT NULL,
            original   DOUBLE,
            perturbed  DOUBLE,            -- NULL with error: the perturbed passage got no label
            call_key   VARCHAR NOT NULL,
            error      VARCHAR
        );
        """,
    ),
    (
        9,
        """
        -- The file layout a bank was imported in (rubric | rubric-questions | nuggetizer | tsv;
        -- NULL: made in the studio, or from files of several layouts), so an export writes it
        -- back the same way, and the test collection its file named (NULL: none given).
        ALTER TABLE banks ADD COLUMN layout VARCHAR;
        ALTER TABLE banks ADD COLUMN test_collection VARCHAR;
        """,
    ),
    (
        10,
        """
        -- trec_eval's order of every run, kept from the import on (studio.store.rankings): topics
        -- and documents numbered once, each run's ranking of a topic one list of document numbers
        -- in trec_eval's order, with the rank and score as written. The ranked rows of the older
        -- files are numbered and ranked here, once; run_rows becomes a view over the lists.
        CREATE TABLE ranking_topics (
            topic  INTEGER NOT NULL,
            qid    VARCHAR NOT NULL
        );
        CREATE TABLE ranking_docs (
            topic  INTEGER NOT NULL,
            doc    INTEGER NOT NULL,   -- 0 … n-1 within the topic
            docid  VARCHAR NOT NULL
        );
        CREATE TABLE run_rankings (
            run_id  INTEGER NOT NULL,
            topic   INTEGER NOT NULL,
            docs    INTEGER[] NOT NULL,   -- document numbers in trec_eval's order
            ranks   BIGINT[] NOT NULL,    -- the rank column as written, aligned with docs
            scores  DOUBLE[] NOT NULL     -- the score as written, aligned with docs
        );
        INSERT INTO ranking_topics
        SELECT row_number() OVER (ORDER BY qid) - 1, qid FROM (SELECT DISTINCT qid FROM run_rows);
        INSERT INTO ranking_docs
        SELECT t.topic, row_number() OVER (PARTITION BY t.topic ORDER BY r.docid) - 1, r.docid
        FROM (SELECT DISTINCT qid, docid FROM run_rows) AS r JOIN ranking_topics AS t USING (qid);
        INSERT INTO run_rankings
        SELECT run_id, topic, list_transform(ranked, lambda e: e.doc), list_transform(ranked, lambda e: e.rank),
               list_transform(ranked, lambda e: e.score)
        FROM (SELECT r.run_id, t.topic,
                     list({'doc': d.doc, 'rank': r.rank, 'score': r.score}
                          ORDER BY CASE WHEN abs(r.score) > 3.4028234663852886e38
                                        THEN sign(r.score) * 'inf'::FLOAT ELSE r.score::FLOAT END DESC,
                                   r.docid DESC) AS ranked
              FROM run_rows AS r
              JOIN ranking_topics AS t USING (qid)
              JOIN ranking_docs AS d ON d.topic = t.topic AND d.docid = r.docid
              GROUP BY r.run_id, t.topic);
        DROP TABLE run_rows;
        CREATE VIEW run_rows AS
        SELECT r.run_id, t.qid, d.docid, r.rank, r.score
        FROM (SELECT run_id, topic, unnest(docs) AS doc, unnest(ranks) AS rank, unnest(scores) AS score
              FROM run_rankings) AS r
        JOIN ranking_topics AS t ON t.topic = r.topic
        JOIN ranking_docs AS d ON d.topic = r.topic AND d.doc = r.doc;
        """,
    ),
    *MIGRATIONS_FROM_11,
]

LATEST_VERSION = MIGRATIONS[-1][0]
