"""The review queue: pairs two label sets grade differently, the most leaderboard-changing first."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from studio.domain.errors import UsageError
from studio.domain.frames import EVERY_TOPIC, ComparisonFrame, TopicChoice
from studio.domain.rows import Disagreement
from studio.metrics import correlation as corr
from studio.metrics.evaluator import Evaluator
from studio.metrics.names import Measure
from studio.metrics.rankings import TopicLabels
from studio.services.evaluation.engine import EvaluationEngine, measure_of
from studio.services.meta.frame import comparison_frame, framed_means
from studio.services.meta.label_agreement import shared_pairs
from studio.store import ensembles as ensemble_store


def disagreements(
    engine: EvaluationEngine,
    ref: str,
    qrels: str,
    measure: str | Measure = "nDCG@10",
    *,
    topics: TopicChoice = EVERY_TOPIC,
    limit: int | None = None,
    order: str = "delta-tau",
) -> list[Disagreement]:
    """Pairs the two label sets grade differently, the most leaderboard-changing first (`order`
    "spread": those whose judges disagree most first, see `by_spread`).

    For each pair, the audited label is set to the reference grade on a scratch evaluator and
    the change in Kendall τ between the two leaderboards is measured; ties in |Δτ| go to the
    larger grade distance. Both leaderboards stand on the topics `topics` frames (by default those
    both label); only the pairs of those topics are queued.
    """
    m = measure_of(measure)
    frame = comparison_frame(engine, ref, qrels, topics)
    ref_eval = engine.evaluator(ref)
    audited = engine.evaluator(qrels).labels
    board = scratch_board(engine, ref_eval, audited, m, frame)
    in_frame = set(frame.common)
    by_topic = differing_pairs(
        {q: t.judged for q, t in ref_eval.labels.items() if q in in_frame},
        {q: t.judged for q, t in audited.items() if q in in_frame},
    )
    queue = [found for qid, pairs in by_topic.items() for found in topic_disagreements(board, qid, pairs)]
    queue.sort(key=lambda d: (-abs(d["delta_tau"]), -(d["distance"] or 0.0), d["qid"], d["docid"]))
    if order == "spread":
        queue = by_spread(engine, [ref, qrels], queue)
    elif order != "delta-tau":
        raise UsageError(f"unknown order {order!r} (delta-tau, spread)")
    return queue[:limit] if limit is not None else queue


class DifferingPair(NamedTuple):
    """A document of a topic the two label sets grade differently."""

    docid: str
    ref_grade: float
    grade: float  # the audited set's


def differing_pairs(
    ref_labels: dict[str, dict[str, float]], audited_labels: dict[str, dict[str, float]]
) -> dict[str, list[DifferingPair]]:
    """Per topic, the pairs both sets label with different grades."""
    by_topic: dict[str, list[DifferingPair]] = {}
    for qid, docid, ref_grade, grade in shared_pairs(ref_labels, audited_labels):
        if ref_grade != grade:
            by_topic.setdefault(qid, []).append(DifferingPair(docid, ref_grade, grade))
    return by_topic


@dataclass(frozen=True)
class ScratchBoard:
    """The audited set's leaderboard on a scratch evaluator that takes one edit at a time."""

    scratch: Evaluator  # a copy of the audited labels: an edit is set, measured and set back
    reference: np.ndarray  # (runs,) the reference's means over its framed topics
    before: float  # τ between the two leaderboards before any edit
    matrix: np.ndarray  # (topics × runs) the scratch's per-topic values, updated in place by set_label
    totals: np.ndarray  # (runs,) each run's sum of values over the framed topics
    counts: np.ndarray  # (runs,) the framed topics each run has a value on


def scratch_board(
    engine: EvaluationEngine, ref_eval: Evaluator, audited: dict[str, TopicLabels], m: Measure, frame: ComparisonFrame
) -> ScratchBoard:
    """The leaderboards before any edit, and the audited one's per-topic values to edit."""
    reference = framed_means(ref_eval, m, frame.ref_topics())
    # The scratch copy takes the audited set's document numbers: no topic's docids are read.
    scratch = type(ref_eval)(
        engine.rankings(),
        {q: dict(t.judged) for q, t in audited.items()},
        {q: dict(t.numbers) for q, t in audited.items()},
    )
    framed = np.sort(scratch.rows_of(frame.qrels_topics()))
    before = corr.kendall_tau_b(reference, scratch.means(m, topics=frame.qrels_topics()))
    # An edit changes one topic's row: each run's mean follows from the other framed topics' totals.
    matrix = scratch.per_topic(m)
    filled = ~np.isnan(matrix[framed])
    totals, counts = np.where(filled, matrix[framed], 0.0).sum(axis=0), filled.sum(axis=0)
    return ScratchBoard(scratch, reference, before, matrix, totals, counts)


def topic_disagreements(board: ScratchBoard, qid: str, pairs: list[DifferingPair]) -> list[Disagreement]:
    """Each of a topic's differing pairs with the change in τ when the audited grade takes the
    reference's (the scratch labels are left as they were)."""
    scratch = board.scratch
    row = board.matrix[scratch.row[qid]]
    other_totals = board.totals - np.where(np.isnan(row), 0.0, row)
    other_counts = board.counts - ~np.isnan(row)
    edited = []
    for docid, ref_grade, grade in pairs:
        scratch.set_label(qid, docid, ref_grade)
        counted = ~np.isnan(row)
        n = other_counts + counted
        edited.append(np.divide(other_totals + np.where(counted, row, 0.0), n, out=np.zeros(len(n)), where=n > 0))
        scratch.set_label(qid, docid, grade)
    # One topic's edits share the reference's pair signs: their τ come as one matrix product.
    after = corr.kendall_tau_b_rows(board.reference, np.array(edited))
    before = board.before
    return [
        Disagreement(
            qid=qid,
            docid=docid,
            ref_grade=ref_grade,
            grade=grade,
            delta_tau=float((tau - before) if not (np.isnan(tau) or np.isnan(before)) else 0.0),
            distance=abs(ref_grade - grade),
        )
        for (docid, ref_grade, grade), tau in zip(pairs, after, strict=True)
    ]


def by_spread(engine: EvaluationEngine, label_sets: list[str], queue: list[Disagreement]) -> list[Disagreement]:
    """The queue with the pairs whose judges disagree most first: by the spread (standard deviation,
    then range) stored with the audited set's labels (an ensemble or a judge's samples), or else
    the reference's; pairs without a spread last, each group in its τ order."""
    con = engine.db.cursor()
    spreads: dict[tuple[str, str], ensemble_store.SpreadRow] = {}
    for name in reversed(label_sets):
        spreads = spreads or ensemble_store.spreads(con, engine.label_set_id(name))
    rows: list[Disagreement] = []
    for row in queue:
        found = spreads.get((row["qid"], row["docid"]))
        spread = None if found is None else round(found.std, 6)
        spread_range = None if found is None else found.high - found.low
        with_spread = Disagreement(**row)
        with_spread["spread"], with_spread["spread_range"] = spread, spread_range
        rows.append(with_spread)
    return sorted(
        rows, key=lambda d: (d.get("spread") is None, -(d.get("spread") or 0.0), -(d.get("spread_range") or 0.0))
    )
