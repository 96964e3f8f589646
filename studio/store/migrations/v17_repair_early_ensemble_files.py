"""Version 17: what files written by an early form of version 16 lack.

Version 16 was committed once before 15 and before it added `judgments.sample`; a file written
then records 16 without 15, so it never got the calibrations table, and has no `sample` column.
Nothing is changed in a file that has them: both statements are conditional.
"""

VERSION = 17

SQL = """
        -- Files migrated by the first form of version 16 (before 15 existed, and before it added
        -- judgments.sample): the table and the column they lack; a no-op everywhere else.
        CREATE TABLE IF NOT EXISTS calibrations (
            label_set_id  INTEGER PRIMARY KEY,
            source        VARCHAR NOT NULL,
            gold          VARCHAR NOT NULL,
            method        VARCHAR NOT NULL,
            folds         INTEGER NOT NULL,
            seed          BIGINT NOT NULL,
            measure       VARCHAR NOT NULL,
            fitted        VARCHAR NOT NULL,
            figures       VARCHAR NOT NULL,
            curve         VARCHAR NOT NULL,
            updated_at    TIMESTAMP NOT NULL DEFAULT current_timestamp
        );
        ALTER TABLE judgments ADD COLUMN IF NOT EXISTS sample INTEGER;
        """
