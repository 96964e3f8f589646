"""Derived label sets: document scores computed from a rubric judge's item grades or from a bank.

They are ordinary label sets (kind `derived`), written as label events, so every measure,
correlation and agreement works on them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from studio.banks import derived
from studio.domain.errors import UsageError
from studio.domain.models import BankItem, QrelsRow
from studio.judges.parsing import assignments_from_grades
from studio.store import Connection, Database
from studio.store import banks as bank_store
from studio.store import derivations as derivation_store
from studio.store import judging as judge_store
from studio.store import labels as label_store

Scores = dict[str, dict[str, float]]


def _nuggets(variant: derived.NuggetVariant, strict: bool) -> Callable[..., Any]:
    def score(grades: Any, items: Any, _: float) -> Any:
        try:
            assignments = assignments_from_grades(grades)
        except ValueError:
            raise UsageError(
                "nugget scores need a nugget-assign judge (support / partial_support / not_support)"
            ) from None
        return derived.nugget_scores(assignments, items, variant, strict=strict)

    return score


SCORES: dict[str, Callable[..., Any]] = {
    "exam-binary": lambda g, items, t: derived.exam_binary(g, items, t),
    "exam-max": lambda g, items, t: derived.exam_graded_max(g, items),
    "exam-mean": lambda g, items, t: derived.exam_graded_mean(g, items),
    "rubric-qrels": lambda g, items, t: derived.rubric_qrels(g, t, items),
    "rubric-graded": lambda g, items, t: derived.rubric_graded_qrels(g, items),
    # Subtopic grades are 0/1: the fraction of the topic's subtopics the document satisfies.
    "subtopic": lambda g, items, t: derived.exam_binary(g, items, 1),
    **{
        f"nugget-{variant}{'-strict' if strict else ''}": _nuggets(variant, strict)
        for variant in ("all", "vital", "weighted")
        for strict in (False, True)
    },
}


def scores_of(score: str, grades: derived.ItemGrades, items: list[BankItem], min_grade: float) -> Scores:
    """Document scores of the item grades under one of SCORES."""
    if score not in SCORES:
        raise UsageError(f"unknown score {score!r} (known: {', '.join(SCORES)})")
    return {q: {d: float(v) for d, v in docs.items()} for q, docs in SCORES[score](grades, items, min_grade).items()}


def rubric_grades(db: Database, source: str, bank: str) -> tuple[derived.ItemGrades, list[BankItem]]:
    """The item grades of `source`'s newest rubric judge run and the current items of `bank`."""
    con = db.cursor()
    source_id = label_store.label_set_id(con, source)
    bank_id = bank_store.bank_id(con, bank)
    if source_id is None or bank_id is None:
        raise UsageError(f"no label set {source!r}" if source_id is None else f"no bank {bank!r}")
    newest = judge_store.newest_judge_run(con, source_id)
    grades = judge_store.item_grades(con, newest[0]) if newest is not None else {}
    if not grades:
        raise UsageError(f"label set {source!r} has no item grades (judge it with an exam method and --bank)")
    return grades, bank_store.current_items(con, bank_id)


def check_bank_score(con: Connection, score: str, name: str, *, replace: bool) -> None:
    """Refuse an unknown score, or a name held by a label set other than a bank-score one (unless replaced)."""
    if score not in SCORES:
        raise UsageError(f"unknown score {score!r} (known: {', '.join(SCORES)})")
    existing = label_store.label_set_id(con, name)
    if existing is not None and not replace:
        raise UsageError(f"label set {name!r} already exists (use --replace)")
    if existing is not None and derivation_store.derivation(con, name) is None:
        raise UsageError(f"label set {name!r} already exists and is not derived from item grades")


def bank_score_rows(db: Database, source: str, bank: str, score: str, min_grade: float) -> tuple[list[QrelsRow], int]:
    """The label set `score` makes of the item grades of `source`'s newest rubric judge run with
    `bank`'s current items, in (qid, docid) order, and how many topics it covers."""
    grades, items = rubric_grades(db, source, bank)
    scores = scores_of(score, grades, items, min_grade)
    return derived.to_qrels_rows(scores), len(scores)
