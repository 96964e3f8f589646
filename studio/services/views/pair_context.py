"""Why a reviewed pair matters: the runs that retrieved the document, at which rank, and the runs
whose place in the audited leaderboard a different grade would change."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from studio.metrics.rankings import Rankings
from studio.services.evaluation.engine import EvaluationEngine, measure_of
from studio.services.views.leaderboard import ranks


@dataclass(frozen=True)
class Retrieval:
    run: str
    rank: int  # 1-based, in trec_eval's order of the run's ranking of the topic


@dataclass(frozen=True)
class RankMove:
    run: str
    rank_now: int
    rank_then: int
    score_now: float
    score_then: float


def retrieved_by(rankings: Rankings, qid: str, docid: str) -> list[Retrieval]:
    """Every run that retrieved `docid` for `qid`, best rank first (then by run name)."""
    topic = rankings.topics.get(qid)
    index = topic.doc_index.get(docid) if topic is not None else None
    if topic is None or index is None:
        return []
    found = []
    for r, run in enumerate(rankings.runs):
        positions = np.flatnonzero(topic.order[r] == index)
        if len(positions):
            found.append(Retrieval(run, int(positions[0]) + 1))
    return sorted(found, key=lambda f: (f.rank, f.run))


def leaderboard_moves(engine: EvaluationEngine, qrels: str, measure: str, qid: str, docid: str,
                      grade: float | None) -> list[RankMove]:
    """The runs whose place under `qrels` would change if the pair had `grade`, largest move first.

    The label is changed on the cached evaluator and put back at once (one topic recomputed each
    way), so the caller must hold the engine to itself for the duration.
    """
    m = measure_of(measure)
    evaluator = engine.evaluator(qrels)
    topic = evaluator.labels.get(qid)
    current = topic.judged.get(docid) if topic is not None else None
    if grade == current:
        return []
    now = evaluator.means(m).tolist()
    evaluator.set_label(qid, docid, grade)
    try:
        then = evaluator.means(m).tolist()
    finally:
        evaluator.set_label(qid, docid, current)
    runs = evaluator.runs
    before, after = ranks(runs, now), ranks(runs, then)
    moves = [RankMove(run, before[run], after[run], a, b)
             for run, a, b in zip(runs, now, then, strict=True) if before[run] != after[run]]
    return sorted(moves, key=lambda move: (-abs(move.rank_now - move.rank_then), move.rank_now))
