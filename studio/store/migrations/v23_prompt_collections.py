"""Version 23: prompt collections and the label sets made with them.

A prompt collection holds each author's system and user message per method (the published
`prompts.json` layout of the prompt-sensitivity study); a label set may be linked to the prompt,
the judge model and the test collection it was made with; pairwise verdicts keep, per pair of
passages judged in both orders, the verdict and (when known) the raw answer of each order.
"""

VERSION = 23

# A reader of a file without these tables reads every other table as before.
READERS_NEED = False

SQL = """
        CREATE TABLE study_prompts (
            collection   VARCHAR NOT NULL,   -- the prompt collection's name
            prompt_id    VARCHAR NOT NULL,
            participant  VARCHAR NOT NULL,
            author_group VARCHAR NOT NULL,   -- people | llm | the author's name
            method       VARCHAR NOT NULL,   -- binary | graded | pairwise
            system_text  VARCHAR NOT NULL,
            user_text    VARCHAR NOT NULL,
            position     INTEGER NOT NULL,   -- order in the imported file
            batch_id     BIGINT NOT NULL,
            PRIMARY KEY (collection, prompt_id, method)
        );
        CREATE TABLE label_set_prompts (
            label_set_id     INTEGER PRIMARY KEY,
            collection       VARCHAR NOT NULL,   -- the prompt collection
            prompt_id        VARCHAR NOT NULL,
            method           VARCHAR NOT NULL,
            model            VARCHAR NOT NULL,   -- the judge model behind the labels
            test_collection  VARCHAR NOT NULL    -- e.g. dl20
        );
        CREATE TABLE preference_verdicts (
            label_set_id  INTEGER NOT NULL,
            qid           VARCHAR NOT NULL,
            category      VARCHAR NOT NULL,   -- e.g. 3-vs-01
            doc_a         VARCHAR NOT NULL,   -- the passage the reference grades higher
            doc_b         VARCHAR NOT NULL,
            verdict       VARCHAR NOT NULL,   -- agree | disagree | tie
            a_first       DOUBLE,             -- raw answer with doc_a shown first (1 or 2), if known
            b_first       DOUBLE              -- raw answer with doc_b shown first
        );
        """
