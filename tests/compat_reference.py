"""An oracle for Compat: the conventions of Clarke's reference `compatibility.py`
(claclark/Compatibility), written out plainly on Python lists and sets, as the reference does it,
for tests to hold the studio's vectorised Compat to (as pytrec_eval holds trec_eval's measures).

* qrels keep each document's highest positive grade (grades ≤ 0 are not in the ideal ranking);
* a run is ordered by docid ascending, then (stably) by score as a double descending;
* the ideal ranking: the positive documents in qrels order, stably sorted by their rank in the run
  (not retrieved: after every retrieved one), then stably by grade descending;
* RBO is summed over ranks 1 … 1000, weights p^i accumulated by multiplication, normalised by
  their sum, and divided by the ideal ranking's own RBO;
* a topic counts only when the run has it and it has a positive grade.
"""

from __future__ import annotations

from collections.abc import Iterable

DEPTH = 1000


def ideal_qrels(lines: Iterable[tuple[str, str, float]]) -> tuple[dict[str, list[str]], dict[str, dict[str, float]]]:
    """(qid, docid, grade) rows -> the positive documents per topic in first-seen order, and their
    highest grade."""
    order: dict[str, list[str]] = {}
    best: dict[str, dict[str, float]] = {}
    for qid, docid, grade in lines:
        if grade <= 0:
            continue
        grades = best.setdefault(qid, {})
        if docid in grades:
            grades[docid] = max(grades[docid], grade)
        else:
            order.setdefault(qid, []).append(docid)
            grades[docid] = grade
    return order, best


def run_order(scores: dict[str, float]) -> list[str]:
    ranked = sorted(scores)
    ranked.sort(key=lambda docid: scores[docid], reverse=True)
    return ranked


def rbo(run: list[str], ideal: list[str], p: float) -> float:
    seen_run: set[str] = set()
    seen_ideal: set[str] = set()
    total, normalizer, weight = 0.0, 0.0, 1.0
    for i in range(DEPTH):
        if i < len(run):
            seen_run.add(run[i])
        if i < len(ideal):
            seen_ideal.add(ideal[i])
        total += weight * len(seen_run & seen_ideal) / (i + 1)
        normalizer += weight
        weight *= p
    return total / normalizer


def per_topic(
    qrels_rows: Iterable[tuple[str, str, float]], run: dict[str, dict[str, float]], p: float
) -> dict[str, float]:
    """{qid: Compat} of one run ({qid: {docid: score}}), for the topics the reference reports."""
    order, grades = ideal_qrels(qrels_rows)
    found = {}
    for qid, scores in run.items():
        if qid not in order:
            continue
        ranked = run_order(scores)
        position = {docid: i for i, docid in enumerate(ranked)}
        ideal = list(order[qid])
        ideal.sort(key=lambda docid: position.get(docid, len(ranked)))
        ideal.sort(key=lambda docid: grades[qid][docid], reverse=True)
        best = rbo(ideal, ideal, p)
        found[qid] = rbo(ranked, ideal, p) / best if best > 0 else best
    return found
