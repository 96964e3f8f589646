"""The Rubric-Cover@k leaderboard: how many of a topic's test-bank items each run's top k covers."""

from __future__ import annotations

from typing import Any

import numpy as np

from studio.banks.derived import DEFAULT_MIN_GRADE, mean_over_topics, rubric_cover_at_k
from studio.domain.errors import UsageError
from studio.metrics.correlation import kendall_tau_b
from studio.metrics.rankings import UNRANKED
from studio.services.evaluation import EvaluationEngine, measure_of
from studio.store import banks as bank_store
from studio.store import judging as judge_store
from studio.store import labels as label_store


def cover_leaderboard(
    engine: EvaluationEngine, source: str, bank: str, *, k: int = 10, min_grade: float = DEFAULT_MIN_GRADE,
    normalise: bool = False, ref: str | None = "human", measure: str = "nDCG@10",
) -> dict[str, Any]:
    """Mean Rubric-Cover@k per run over the bank's topics, and its Kendall τ against `ref`'s leaderboard."""
    con = engine.db.cursor()
    source_id = label_store.label_set_id(con, source)
    bank_id = bank_store.bank_id(con, bank)
    if source_id is None or bank_id is None:
        raise UsageError(f"no label set {source!r}" if source_id is None else f"no bank {bank!r}")
    row = con.execute("SELECT max(judge_run_id) FROM judge_runs WHERE label_set_id = ?", [source_id]).fetchone()
    grades = judge_store.item_grades(con, int(row[0])) if row and row[0] is not None else {}
    if not grades:
        raise UsageError(f"label set {source!r} has no item grades (judge it with an exam method and --bank)")
    items = bank_store.current_items(con, bank_id)
    qids = sorted({i.qid for i in items}, key=lambda q: q.encode("utf-8"))
    rankings = engine.rankings()
    values = []
    for r in range(len(rankings.runs)):
        ranking = {}
        for qid, topic in rankings.topics.items():
            order = topic.order[r]
            ranking[qid] = [topic.docids[d] for d in order[order != UNRANKED]]
        per_topic = rubric_cover_at_k(grades, items, ranking, k, min_grade, normalise)
        values.append(mean_over_topics(per_topic, qids))
    board = np.array(values)
    result: dict[str, Any] = {
        "measure": f"Rubric-Cover@{k}" + (" (normalised)" if normalise else ""), "source": source, "bank": bank,
        "topics": len(qids), "leaderboard": [{"run": run, "value": float(v)}
                                             for run, v in zip(rankings.runs, board, strict=True)],
    }
    if ref is not None:
        reference = engine.evaluator(ref).means(measure_of(measure))
        tau = kendall_tau_b(reference, board)
        result |= {"ref": ref, "ref_measure": measure, "kendall_tau": None if np.isnan(tau) else tau}
    return result
