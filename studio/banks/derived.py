"""Document scores derived from test-bank item grades (docs/design.md#2-methods): ordinary label sets.

Inputs are plain data. Exam/Rubric self-ratings are `ItemGrades`, {qid: {docid: {item_id: grade}}}
with grades 0–5 (an item a document was not graded on is absent); nugget assignments are
`Assignments`, {qid: {docid: {nugget_id: "support" | "partial_support" | "not_support"}}}. The
topic's items come from the bank (`BankItem`s), which is the denominator of every fraction: an item
without a grade counts as not answered, a nugget without an assignment as not_support. Grades or
assignments of items no longer in the bank are validated but ignored. A document gets a score for
each topic it is graded (or assigned) under; a topic with no items in the bank scores 0.

Sources: EXAM — Sander & Dietz, "EXAM: How to Evaluate Retrieve-and-Generate Systems for Users Who
Do Not (Yet) Know What They Want", DESIRES 2021; Rubric — Farzi & Dietz, "Pencils Down! Automatic
Rubric-based Evaluation of Retrieve/Generate Systems", ICTIR 2024, and Dietz, "A Workbench for
Autograding Retrieve/Generate Systems", SIGIR 2024 (`--min-grade 4`); nuggets — Pradeep et al.,
"Initial Nugget Evaluation Results for the TREC 2024 RAG Track with the AutoNuggetizer Framework",
2024 (All / Vital / Weighted, strict).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping, Sequence
from typing import Literal, TypeAlias

from studio.domain.models import BankItem, QrelsRow

MAX_GRADE = 5
DEFAULT_MIN_GRADE = 4
ASSIGNMENTS = ("support", "partial_support", "not_support")
NUGGET_VARIANTS = ("all", "vital", "weighted")
OKAY_WEIGHT = 0.5  # AutoNuggetizer's weight of an okay nugget (a vital one weighs 1)

ItemGrades: TypeAlias = Mapping[str, Mapping[str, Mapping[str, float]]]
Assignments: TypeAlias = Mapping[str, Mapping[str, Mapping[str, str]]]
DocScores: TypeAlias = dict[str, dict[str, float]]
NuggetVariant: TypeAlias = Literal["all", "vital", "weighted"]


# --- validation ---------------------------------------------------------------------------------


def _grade(value: object, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"grade of {where} must be a number from 0 to {MAX_GRADE}, not {value!r}")
    grade = float(value)
    if not (math.isfinite(grade) and 0 <= grade <= MAX_GRADE):
        raise ValueError(f"grade of {where} must lie in 0–{MAX_GRADE}, not {value!r}")
    return grade


def _min_grade(value: float) -> float:
    return _grade(value, "the threshold min_grade")


def _grades(grades: ItemGrades) -> dict[str, dict[str, dict[str, float]]]:
    """The grades as floats, every one checked to lie in 0–5."""
    return {
        qid: {
            docid: {
                item: _grade(g, f"item {item!r} of document {docid!r}, topic {qid!r}") for item, g in per_item.items()
            }
            for docid, per_item in per_doc.items()
        }
        for qid, per_doc in grades.items()
    }


def _bank(items: Iterable[BankItem]) -> dict[str, list[BankItem]]:
    """The bank's items grouped by topic; an item id twice in one topic is an error."""
    topics: dict[str, list[BankItem]] = {}
    seen: set[tuple[str, str]] = set()
    for item in items:
        if (item.qid, item.item_id) in seen:
            raise ValueError(f"item {item.item_id!r} appears twice in topic {item.qid!r}")
        seen.add((item.qid, item.item_id))
        topics.setdefault(item.qid, []).append(item)
    return topics


def _fraction(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator else 0.0


# --- Exam and Rubric ----------------------------------------------------------------------------


def exam_binary(grades: ItemGrades, items: Iterable[BankItem], min_grade: float = DEFAULT_MIN_GRADE) -> DocScores:
    """Exam-Binary: the fraction of the topic's bank items the document answers (grade ≥ min_grade).

    The mean of a 0/1 "answerable" per item (EXAM, Sander & Dietz 2021; Rubric, Farzi & Dietz
    2024). Ungraded items count as not answered.
    """
    t, bank, g = _min_grade(min_grade), _bank(items), _grades(grades)
    return {
        qid: {
            docid: _fraction(
                sum(1 for it in bank.get(qid, ()) if per_item.get(it.item_id, -1.0) >= t), len(bank.get(qid, ()))
            )
            for docid, per_item in per_doc.items()
        }
        for qid, per_doc in g.items()
    }


def exam_graded_max(grades: ItemGrades, items: Iterable[BankItem]) -> DocScores:
    """Exam-Graded max: the document's best self-rating over the topic's items, divided by 5.

    Rubric's graded relevance (Farzi & Dietz 2024) scaled to [0, 1]; `rubric_graded_qrels` keeps
    the raw 0–5 grade.
    """
    bank, g = _bank(items), _grades(grades)
    return {
        qid: {
            docid: max((per_item.get(it.item_id, 0.0) for it in bank.get(qid, ())), default=0.0) / MAX_GRADE
            for docid, per_item in per_doc.items()
        }
        for qid, per_doc in g.items()
    }


def exam_graded_mean(grades: ItemGrades, items: Iterable[BankItem]) -> DocScores:
    """Exam-Graded mean: the mean self-rating over the topic's items (ungraded = 0), divided by 5."""
    bank, g = _bank(items), _grades(grades)
    return {
        qid: {
            docid: _fraction(
                sum(per_item.get(it.item_id, 0.0) for it in bank.get(qid, ())), MAX_GRADE * len(bank.get(qid, ()))
            )
            for docid, per_item in per_doc.items()
        }
        for qid, per_doc in g.items()
    }


def _on_bank(grades: ItemGrades, items: Iterable[BankItem] | None) -> dict[str, dict[str, dict[str, float]]]:
    """The validated grades, kept to the bank's items of each topic when `items` is given."""
    g = _grades(grades)
    if items is None:
        return g
    ids = {qid: {it.item_id for it in topic} for qid, topic in _bank(items).items()}
    return {
        qid: {
            docid: {item: grade for item, grade in per_item.items() if item in ids.get(qid, ())}
            for docid, per_item in per_doc.items()
        }
        for qid, per_doc in g.items()
    }


def rubric_graded_qrels(grades: ItemGrades, items: Iterable[BankItem] | None = None) -> DocScores:
    """Rubric graded qrels: the document's best grade (0–5, 0 when ungraded) over its items.

    As the Rubric workbench exports graded qrels (Dietz 2024). With `items`, only grades of the
    topic's bank items count (a deleted item no longer makes a document relevant).
    """
    return {
        qid: {docid: max(per_item.values(), default=0.0) for docid, per_item in per_doc.items()}
        for qid, per_doc in _on_bank(grades, items).items()
    }


def rubric_qrels(
    grades: ItemGrades, min_grade: float = DEFAULT_MIN_GRADE, items: Iterable[BankItem] | None = None
) -> dict[str, dict[str, int]]:
    """Rubric-Qrels: a document is relevant (1) when some item grade is ≥ min_grade, else 0.

    The binary qrels of the Rubric workbench's `--min-grade 4` (Farzi & Dietz 2024; Dietz 2024).
    With `items`, only grades of the topic's bank items count.
    """
    t = _min_grade(min_grade)
    return {
        qid: {docid: int(any(grade >= t for grade in per_item.values())) for docid, per_item in per_doc.items()}
        for qid, per_doc in _on_bank(grades, items).items()
    }


def rubric_cover_at_k(
    grades: ItemGrades,
    items: Iterable[BankItem],
    ranking: Mapping[str, Sequence[str]],
    k: int,
    min_grade: float = DEFAULT_MIN_GRADE,
    normalise: bool = False,
) -> dict[str, float]:
    """Rubric-Cover@k of one run: per topic, the fraction of its items covered by the run's top k.

    An item is covered by a document whose grade on it is ≥ min_grade; ungraded documents cover
    nothing. Normalised, the value is divided by the fraction of items covered by any graded
    document of the topic (0 when none is), as EXAM normalises by the questions any system answers
    (Sander & Dietz 2021; Farzi & Dietz 2024). Every topic with bank items gets a value (0 when the
    run did not retrieve for it); topics of the run without bank items are left out.
    """
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k must be a positive integer, not {k!r}")
    t, bank, g = _min_grade(min_grade), _bank(items), _grades(grades)
    values: dict[str, float] = {}
    for qid, topic_items in bank.items():
        ids, per_doc = {it.item_id for it in topic_items}, g.get(qid, {})
        top_k = len(_covered(per_doc, ranking.get(qid, ())[:k], ids, t))
        values[qid] = _fraction(top_k, len(_covered(per_doc, per_doc, ids, t)) if normalise else len(ids))
    return values


def _covered(per_doc: Mapping[str, Mapping[str, float]], docids: Iterable[str], ids: set[str], t: float) -> set[str]:
    """The items of `ids` some document of `docids` has a grade ≥ t on."""
    return {item for d in docids for item, grade in per_doc.get(d, {}).items() if item in ids and grade >= t}


def mean_over_topics(values: Mapping[str, float], qids: Iterable[str]) -> float:
    """The mean of per-topic values over `qids` (a topic without a value counts as 0)."""
    topics = list(dict.fromkeys(qids))
    if not topics:
        raise ValueError("no topics to average over")
    return sum(values.get(qid, 0.0) for qid in topics) / len(topics)


# --- nuggets ------------------------------------------------------------------------------------


def nugget_scores(
    assignments: Assignments, items: Iterable[BankItem], variant: NuggetVariant = "all", strict: bool = False
) -> DocScores:
    """AutoNuggetizer nugget scores of each document (Pradeep et al., TREC 2024 RAG Track).

    A nugget scores 1 when supported, 0.5 when partially supported (0 when `strict`), else 0;
    unassigned nuggets count as not_support. Only the bank's items of kind "nugget" count.
    * "all": the mean over all the topic's nuggets;
    * "vital": the mean over its vital nuggets only (0 for a topic without vital nuggets);
    * "weighted": (Σvital + 0.5·Σokay) / (n_vital + 0.5·n_okay), vital weight 1, okay weight 0.5.
    """
    if variant not in NUGGET_VARIANTS:
        raise ValueError(f"nugget score variant must be one of {NUGGET_VARIANTS}, not {variant!r}")
    for qid, per_doc in assignments.items():
        for docid, per_nugget in per_doc.items():
            for nugget, label in per_nugget.items():
                if label not in ASSIGNMENTS:
                    raise ValueError(
                        f"assignment of nugget {nugget!r} to document {docid!r}, topic {qid!r} "
                        f"must be one of {ASSIGNMENTS}, not {label!r}"
                    )
    bank = {qid: [it for it in topic if it.kind == "nugget"] for qid, topic in _bank(items).items()}
    weights: dict[str, dict[str, float]] = {}
    for qid, nuggets in bank.items():
        if variant != "all" and (bare := [it.item_id for it in nuggets if it.importance is None]):
            raise ValueError(
                f"the {variant} nugget score needs vital/okay importance; topic {qid!r} has nuggets without: {bare}"
            )
        weights[qid] = {
            it.item_id: 1.0
            if variant == "all" or it.importance == "vital"
            else (OKAY_WEIGHT if variant == "weighted" else 0.0)
            for it in nuggets
        }
    partial = 0.0 if strict else 0.5
    score = {"support": 1.0, "partial_support": partial, "not_support": 0.0}
    return {
        qid: {
            docid: _fraction(
                sum(w * score[per_nugget.get(n, "not_support")] for n, w in weights.get(qid, {}).items()),
                sum(weights.get(qid, {}).values()),
            )
            for docid, per_nugget in per_doc.items()
        }
        for qid, per_doc in assignments.items()
    }


def to_qrels_rows(scores: Mapping[str, Mapping[str, float]]) -> list[QrelsRow]:
    """A derived label set as qrels rows, ordered by topic and document."""
    return [QrelsRow(qid, docid, float(scores[qid][docid])) for qid in sorted(scores) for docid in sorted(scores[qid])]
