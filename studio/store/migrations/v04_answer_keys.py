"""Version 4: grading verification.

A rubric judgment points at the call that extracted the document's answer to the item, so the
grades can be listed beside the answers they were given for.
"""

VERSION = 4

SQL = """
        -- Grading verification: the call that extracted the document's answer to the item.
        ALTER TABLE judgments ADD COLUMN answer_key VARCHAR;
        """
