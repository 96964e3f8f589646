"""Test-bank diagnostics: which items mislead, which relevant documents no item catches, and how
much each item moves the leaderboard (Rubric workbench's verification ideas, as data).

All of it is computed from a rubric judge's item grades, the reference label set and the runs.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from studio.banks.derived import DEFAULT_MIN_GRADE, ItemGrades, exam_binary
from studio.domain.bank_results import BankReport, ItemCoverage, ItemEffect, UncoveredDocument
from studio.domain.models import BankItem
from studio.metrics.correlation import kendall_tau_b
from studio.metrics.evaluator import Evaluator
from studio.services.evaluation.engine import EvaluationEngine, measure_of
from studio.services.meta.label_agreement import default_threshold
from studio.services.rubric.derive import rubric_grades

SPURIOUS_SHARE = 0.5  # an item is spurious when at least half the documents it covers are non-relevant
SPURIOUS_MIN_DOCS = 2


def bank_report(
    engine: EvaluationEngine,
    bank: str,
    source: str,
    *,
    ref: str = "human",
    min_grade: float = DEFAULT_MIN_GRADE,
    relevant: float | None = None,
    measure: str = "nDCG@10",
    topics: list[str] | None = None,
) -> BankReport:
    """Coverage per item, spurious items, uncovered relevant documents, the doc × item grid and each
    item's leaderboard effect (Kendall τ against the reference with the item left out)."""
    grades, bank_items = rubric_grades(engine.db, source, bank)
    items = [i for i in bank_items if topics is None or i.qid in topics]
    reference = {q: t.judged for q, t in engine.evaluator(ref).labels.items()}
    threshold = relevant if relevant is not None else _default_relevant(reference)
    coverage = _coverage(items, grades, reference, min_grade, threshold)
    spurious = [
        c
        for c in coverage
        if c["covered"] >= SPURIOUS_MIN_DOCS and c["covered_nonrelevant"] >= SPURIOUS_SHARE * c["covered"]
    ]
    spurious.sort(key=lambda c: (-c["covered_nonrelevant"], c["item_id"]))
    effects = _item_effects(engine, items, grades, ref, min_grade, measure)
    return {
        "bank": bank,
        "source": source,
        "ref": ref,
        "min_grade": min_grade,
        "relevant_at": threshold,
        "items": coverage,
        "spurious": spurious,
        "uncovered_relevant": _uncovered(items, grades, reference, min_grade, threshold),
        "measure": effects.measure,
        "tau_all_items": effects.tau_all_items,
        "item_effect": effects.rows,
        "grid": {
            q: {d: dict(per) for d, per in docs.items()} for q, docs in grades.items() if topics is None or q in topics
        },
    }


def _default_relevant(reference: dict[str, dict[str, float]]) -> float:
    return default_threshold(np.array([g for docs in reference.values() for g in docs.values()]))


def _coverage(
    items: list[BankItem], grades: ItemGrades, reference: dict[str, dict[str, float]], min_grade: float, relevant: float
) -> list[ItemCoverage]:
    rows: list[ItemCoverage] = []
    for item in items:
        covered = [d for d, per in grades.get(item.qid, {}).items() if per.get(item.item_id, -1) >= min_grade]
        ref = reference.get(item.qid, {})
        rel = [d for d in covered if ref.get(d, -1) >= relevant]
        nonrel = [d for d in covered if d in ref and ref[d] < relevant]
        rows.append(
            {
                "qid": item.qid,
                "item_id": item.item_id,
                "kind": item.kind,
                "importance": item.importance,
                "text": item.text,
                "covered": len(covered),
                "covered_relevant": len(rel),
                "covered_nonrelevant": len(nonrel),
                "nonrelevant_docs": sorted(nonrel),
            }
        )
    return rows


def _uncovered(
    items: list[BankItem], grades: ItemGrades, reference: dict[str, dict[str, float]], min_grade: float, relevant: float
) -> list[UncoveredDocument]:
    """Reference-relevant documents that were graded but that no item covers."""
    qids = {i.qid for i in items}
    rows: list[UncoveredDocument] = []
    for qid in sorted(qids, key=lambda q: q.encode("utf-8")):
        for docid, per in sorted(grades.get(qid, {}).items()):
            grade = reference.get(qid, {}).get(docid)
            if grade is not None and grade >= relevant and max(per.values(), default=-1) < min_grade:
                rows.append({"qid": qid, "docid": docid, "ref_grade": grade, "best_item_grade": max(per.values())})
    return rows


class ItemEffects(NamedTuple):
    """Each item's effect on the Exam-Binary leaderboard's τ, and τ with every item."""

    measure: str
    tau_all_items: float | None
    rows: list[ItemEffect]


def _item_effects(
    engine: EvaluationEngine, items: list[BankItem], grades: ItemGrades, ref: str, min_grade: float, measure: str
) -> ItemEffects:
    """τ between the reference leaderboard and the Exam-Binary one, with all items and with each left out."""
    m = measure_of(measure)
    gold = engine.evaluator(ref)
    # The comparison frame of every τ between two label sets: the topics both label (the reference's and the
    # bank's graded ones), so that leaving an item out never changes the topics the τ stands on.
    topics = sorted(
        gold.labelled_topics() & Evaluator(engine.rankings(), exam_binary(grades, items, min_grade)).labelled_topics()
    )
    reference = gold.means(m, topics=topics)

    def tau_with(kept: list[BankItem]) -> float:
        scores = exam_binary(grades, kept, min_grade)
        evaluator = Evaluator(engine.rankings(), scores)
        return kendall_tau_b(reference, evaluator.means(m, topics=topics))

    full = tau_with(items)
    rows: list[ItemEffect] = []
    for item in items:
        without = tau_with([i for i in items if i.item_id != item.item_id])
        change = None if np.isnan(without) or np.isnan(full) else without - full
        rows.append(
            {
                "qid": item.qid,
                "item_id": item.item_id,
                "text": item.text,
                "tau_without": None if np.isnan(without) else without,
                "tau_change": change,
            }
        )
    rows.sort(key=lambda r: -float(r["tau_change"] or 0.0))
    return ItemEffects(str(m), None if np.isnan(full) else full, rows)
