"""Version 5: stale rubric grades and derived label sets that follow their source.

A rubric judgment keeps the md5 of the item text it graded (an edited item's grades are then
stale), and `derivations` records how a derived label set was made from a rubric judge's grades,
so it is recomputed when they change.
"""

VERSION = 5

SQL = """
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
        """
