"""Version 19: leaderboards imported from other tools, to correlate the studio's against.

A score table is a named leaderboard as another tool computed it (trec_eval, ir_measures, a
published paper's table): each run's value of each measure on each topic, the mean under the
topic `all`. A reader of a file without them lists no score tables.
"""

VERSION = 19

# A studio reading a file at the version before this one needs nothing this version adds: a
# read-only file not yet upgraded to it is read as it is.
READERS_NEED = False

SQL = """
        -- Leaderboards read from files (`studio import leaderboard`): name, the file, its layout.
        CREATE SEQUENCE score_table_ids START 1;
        CREATE TABLE score_tables (
            score_table_id  INTEGER PRIMARY KEY DEFAULT nextval('score_table_ids'),
            name            VARCHAR NOT NULL UNIQUE,
            source          VARCHAR NOT NULL,   -- the file it was read from
            layout          VARCHAR NOT NULL,   -- trec_eval | ir_measures | tot | jsonl | json | tsv | csv
            imported_at     TIMESTAMP NOT NULL DEFAULT current_timestamp
        );
        -- Their values: a run's measure on a topic, or its mean (topic 'all').
        CREATE TABLE score_values (
            score_table_id  INTEGER NOT NULL,
            run             VARCHAR NOT NULL,
            measure         VARCHAR NOT NULL,
            topic           VARCHAR NOT NULL,
            value           DOUBLE NOT NULL,
            PRIMARY KEY (score_table_id, run, measure, topic)
        );
        """
