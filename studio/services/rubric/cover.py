"""The Rubric-Cover@k leaderboard: how many of a topic's test-bank items each run's top k covers."""

from __future__ import annotations

import numpy as np

from studio.banks.derived import DEFAULT_MIN_GRADE, mean_over_topics, rubric_cover_at_k
from studio.domain.bank_results import CoverLeaderboard
from studio.metrics.correlation import kendall_tau_b
from studio.metrics.rankings import UNRANKED
from studio.services.evaluation.engine import EvaluationEngine, measure_of
from studio.services.rubric.derive import rubric_grades


def cover_leaderboard(
    engine: EvaluationEngine,
    source: str,
    bank: str,
    *,
    k: int = 10,
    min_grade: float = DEFAULT_MIN_GRADE,
    normalise: bool = False,
    ref: str | None = "human",
    measure: str = "nDCG@10",
) -> CoverLeaderboard:
    """Mean Rubric-Cover@k per run over the bank's topics, and its Kendall τ against `ref`'s leaderboard."""
    grades, items = rubric_grades(engine.db, source, bank)
    qids = sorted({i.qid for i in items}, key=lambda q: q.encode("utf-8"))
    rankings = engine.rankings()
    per_run = []
    for r in range(len(rankings.runs)):
        ranking = {}
        for qid in qids:  # only the bank's topics count
            topic = rankings.topics.get(qid)
            if topic is None:
                continue
            order = topic.order[r]
            ranking[qid] = [topic.docids[d] for d in order[order != UNRANKED]]
        per_run.append(rubric_cover_at_k(grades, items, ranking, k, min_grade, normalise))
    values = [mean_over_topics(per_topic, qids) for per_topic in per_run]
    board = np.array(values)
    result: CoverLeaderboard = {
        "measure": f"Rubric-Cover@{k}" + (" (normalised)" if normalise else ""),
        "source": source,
        "bank": bank,
        "topics": len(qids),
        "leaderboard": [{"run": run, "value": float(v)} for run, v in zip(rankings.runs, board, strict=True)],
    }
    if ref is not None:
        # τ on the topics both sides have (the bank's and the reference's labelled ones), as every
        # comparison of two label sets: neither leaderboard is a mean over topics the other lacks.
        gold = engine.evaluator(ref)
        labelled = gold.labelled_topics()
        common = [q for q in qids if q in labelled]
        reference = gold.means(measure_of(measure), topics=common)
        framed = np.array([mean_over_topics(per_topic, common) for per_topic in per_run]) if common else board
        tau = kendall_tau_b(reference, framed) if common else float("nan")
        result["ref"] = ref
        result["ref_measure"] = measure
        result["kendall_tau"] = None if np.isnan(tau) else tau
        result["ref_topics"] = len(common)
    return result
