"""Version 16: ensembles and the spread behind a label.

Ensembles (label sets combined pair by pair by majority, mean or median), how far apart the
grades behind each label are (an ensemble's members, a judge's samples, or one answer's label
distribution), and which of a pair's sampled answers a judgment is.
"""

VERSION = 16

SQL = """
        -- Ensembles (label sets combined pair by pair: majority | mean | median of `members`), and
        -- how far apart the grades behind a label are: an ensemble's members, a judge's samples, or
        -- one answer's label distribution (judges = 0). A judgment's `sample`: which of a pair's
        -- K sampled answers it is (NULL: the pair was asked once).
        CREATE TABLE ensembles (label_set_id INTEGER PRIMARY KEY, members VARCHAR[] NOT NULL, how VARCHAR NOT NULL);
        CREATE TABLE label_spreads (
            label_set_id INTEGER NOT NULL, qid VARCHAR NOT NULL, docid VARCHAR NOT NULL, judges INTEGER NOT NULL,
            std DOUBLE NOT NULL, low DOUBLE NOT NULL, high DOUBLE NOT NULL,   -- population std, lowest, highest
            PRIMARY KEY (label_set_id, qid, docid));
        ALTER TABLE judgments ADD COLUMN sample INTEGER;
        """
