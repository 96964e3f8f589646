"""Version 2: LLM judges.

The call cache (one row per model call, keyed by the hash of backend, model, decoding parameters
and rendered prompt, written as each call returns so a killed judge loses nothing), judge runs
(how a label set was judged) and their judgments (one outcome per unit; a parse failure is a
recorded outcome, never a silent 0).
"""

VERSION = 2

SQL = """
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
        """
