"""Version 3: rubric judgments name their test-bank item.

The exam-question and exam-nugget methods grade a document once per item of a bank, so a
judgment keeps the item's id (NULL for whole-document judgments).
"""

VERSION = 3

SQL = """
        -- Rubric methods grade a document once per test-bank item: the item's id is kept with
        -- the judgment (NULL for whole-document judgments).
        ALTER TABLE judgments ADD COLUMN item_id VARCHAR;
        """
