"""A pair's grades under the prompts of a study, as Review shows them beside the pair
(docs/tui.md#review): one line per prompt, model and test collection, the collection named;
the test collections that do not hold the pair's topic left out (a DL21 prompt has nothing to say
of a DL20 topic); lists split by method, so that binary 0/1 and graded 0–3 grades never mix."""

from __future__ import annotations

from collections.abc import Sequence

from studio.domain.natural_order import NaturalKey, natural_key
from studio.domain.rows import PromptGrade

SCALES = {"binary": "0/1", "graded": "0–3"}  # the scale each pointwise method grades on


def shown_prompt_grades(rows: Sequence[PromptGrade]) -> list[PromptGrade]:
    """The rows of the test collections that grade the pair under some prompt (all of them when none
    does), by method, collection, model, group and prompt in natural order (2 before 10)."""
    holding = {r["test_collection"] for r in rows if r["grade"] is not None}
    kept = [r for r in rows if r["test_collection"] in holding] if holding else list(rows)
    return sorted(kept, key=_order)


def by_method(rows: Sequence[PromptGrade]) -> list[tuple[str, list[PromptGrade]]]:
    """The rows split by method (one scale each), methods in the order the rows come."""
    found: dict[str, list[PromptGrade]] = {}
    for row in rows:
        found.setdefault(row["method"], []).append(row)
    return list(found.items())


def _order(row: PromptGrade) -> tuple[NaturalKey, ...]:
    keys = (row["method"], row["test_collection"], row["model"], row["author_group"], row["prompt_id"])
    return tuple(natural_key(k) for k in keys)
