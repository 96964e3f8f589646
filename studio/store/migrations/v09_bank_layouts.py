"""Version 9: a bank remembers the file layout and test collection it was imported from.

So that an export writes a bank back the way it came (rubric, rubric-questions, nuggetizer or
TSV); banks of older files have neither and export in the Rubric default.
"""

VERSION = 9

SQL = """
        -- The file layout a bank was imported in (rubric | rubric-questions | nuggetizer | tsv;
        -- NULL: made in the studio, or from files of several layouts), so an export writes it
        -- back the same way, and the test collection its file named (NULL: none given).
        ALTER TABLE banks ADD COLUMN layout VARCHAR;
        ALTER TABLE banks ADD COLUMN test_collection VARCHAR;
        """
