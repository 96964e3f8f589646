"""Generative systems ranked by the grades a label set gives their answers (Gen-IR)."""

from __future__ import annotations

from studio.domain.answer_results import AnswerRow
from studio.domain.errors import UsageError
from studio.metrics.answers import answer_leaderboard
from studio.services.evaluation.engine import EvaluationEngine
from studio.store.pools import ANSWER_PREFIX


def answer_grades(engine: EvaluationEngine, qrels: str) -> dict[str, dict[str, float]]:
    """{system: {qid: grade}} of every generated answer the label set grades."""
    by_system: dict[str, dict[str, float]] = {}
    for qid, labels in engine.evaluator(qrels).labels.items():
        for docid, grade in labels.judged.items():
            if docid.startswith(ANSWER_PREFIX):
                by_system.setdefault(docid.removeprefix(ANSWER_PREFIX), {})[qid] = grade
    return by_system


def system_leaderboard(
    engine: EvaluationEngine, qrels: str, *, resamples: int = 1000, seed: int = 0
) -> list[AnswerRow]:
    """Systems by mean answer grade, best first, with a 95% bootstrap interval over topics."""
    by_system = answer_grades(engine, qrels)
    if not by_system:
        raise UsageError(f"label set {qrels!r} grades no generated answer (judge with --pool responses)")
    # The metric's rows are plain dicts of mixed values: typed here, key for key.
    return [
        {
            "system": str(row["system"]),
            "mean": float(row["mean"]),
            "low": float(row["low"]),
            "high": float(row["high"]),
            "topics": int(row["topics"]),
        }
        for row in answer_leaderboard(by_system, resamples=resamples, seed=seed)
    ]
