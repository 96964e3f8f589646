"""Why a reviewed pair matters: the runs that retrieved the document, at which rank, and the runs
whose place in the audited leaderboard a different grade would change."""

from __future__ import annotations

import numpy as np

from studio.domain.views import RankMove, Retrieval
from studio.metrics.rankings import Rankings, TopicLabels
from studio.services.evaluation.engine import EvaluationEngine, measure_of
from studio.services.views.leaderboard import ranks


def retrieved_by(rankings: Rankings, qid: str, docid: str, labelled: TopicLabels | None = None) -> list[Retrieval]:
    """Every run that retrieved `docid` for `qid`, best rank first (then by run name).

    `labelled` (the topic's labels in some label set) knows the document number of a labelled
    document, which spares reading the topic's docids; one it labels without a number no run ranked.
    """
    topic = rankings.topics.get(qid)
    if topic is None:
        return []
    if labelled is not None and docid in labelled.judged:
        index = labelled.numbers.get(docid)
    else:
        index = topic.doc_index.get(docid)
    if index is None:
        return []
    hits = topic.order == index  # (runs, depth): a run ranks a document once
    runs = np.flatnonzero(hits.any(axis=1))
    positions = hits[runs].argmax(axis=1)
    found = [Retrieval(rankings.runs[r], int(p) + 1) for r, p in zip(runs.tolist(), positions.tolist(), strict=True)]
    return sorted(found, key=lambda f: (f.rank, f.run))


def leaderboard_moves(
    engine: EvaluationEngine,
    qrels: str,
    measure: str,
    qid: str,
    docid: str,
    grade: float | None,
    topics: tuple[str, ...] | None = None,
) -> list[RankMove]:
    """The runs whose place under `qrels` would change if the pair had `grade`, largest move first
    (`topics`: the leaderboard over these only, as the review's frame has it).

    The label is changed on the cached evaluator and put back at once (one topic recomputed each
    way), so the caller must hold the engine to itself for the duration.
    """
    m = measure_of(measure)
    evaluator = engine.evaluator(qrels)
    topic = evaluator.labels.get(qid)
    current = topic.judged.get(docid) if topic is not None else None
    if grade == current:
        return []
    now = evaluator.means(m, topics=topics).tolist()
    evaluator.set_label(qid, docid, grade)
    try:
        then = evaluator.means(m, topics=topics).tolist()
    finally:
        evaluator.set_label(qid, docid, current)
    runs = evaluator.runs
    before, after = ranks(runs, now), ranks(runs, then)
    moves = [
        RankMove(run, before[run], after[run], a, b)
        for run, a, b in zip(runs, now, then, strict=True)
        if before[run] != after[run]
    ]
    return sorted(moves, key=lambda move: (-abs(move.rank_now - move.rank_then), move.rank_now))
