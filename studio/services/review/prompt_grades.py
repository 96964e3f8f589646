"""A pair's grades under the prompts of a study, read for Review (studio.domain.prompt_grades says
which rows it shows and in what order)."""

from __future__ import annotations

from collections.abc import Sequence

from studio.domain.prompt_grades import shown_prompt_grades
from studio.domain.rows import PromptGrade
from studio.store import Connection
from studio.store.prompt_collections import pairs_prompt_grades


def shown_prompt_grades_of(
    con: Connection, pairs: Sequence[tuple[str, str]]
) -> dict[tuple[str, str], list[PromptGrade]]:
    """Each pair's grade under each linked pointwise prompt, of the test collections that hold it."""
    return {pair: shown_prompt_grades(rows) for pair, rows in pairs_prompt_grades(con, pairs).items()}
