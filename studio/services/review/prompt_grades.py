"""A pair's grades under the prompts of a study, read for Review (studio.domain.prompt_grades says
which rows it shows and in what order)."""

from __future__ import annotations

from studio.domain.prompt_grades import shown_prompt_grades
from studio.domain.rows import PromptGrade
from studio.store import Connection
from studio.store.prompt_collections import prompt_grades


def pair_prompt_grades(con: Connection, qid: str, docid: str) -> list[PromptGrade]:
    """The pair's grade under each linked pointwise prompt, of the test collections that hold it."""
    return shown_prompt_grades(prompt_grades(con, qid, docid))
