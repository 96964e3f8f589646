"""The review queue: pairs two label sets grade differently, the most leaderboard-changing first."""

from __future__ import annotations

import numpy as np

from studio.domain.errors import UsageError
from studio.domain.frames import EVERY_TOPIC, TopicChoice
from studio.domain.rows import Disagreement
from studio.metrics import correlation as corr
from studio.metrics.names import Measure
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
    x = framed_means(ref_eval, m, frame.ref_topics())
    audited = engine.evaluator(qrels).labels
    # The scratch copy takes the audited set's document numbers: no topic's docids are read.
    scratch = type(ref_eval)(
        engine.rankings(),
        {q: dict(t.judged) for q, t in audited.items()},
        {q: dict(t.numbers) for q, t in audited.items()},
    )
    framed = np.sort(scratch.rows_of(frame.qrels_topics()))
    before = corr.kendall_tau_b(x, scratch.means(m, topics=frame.qrels_topics()))
    in_frame = set(frame.common)
    by_topic: dict[str, list[tuple[str, float, float]]] = {}
    ref_labels = {q: t.judged for q, t in ref_eval.labels.items() if q in in_frame}
    aud_labels = {q: t.judged for q, t in audited.items() if q in in_frame}
    for qid, docid, ref_grade, grade in shared_pairs(ref_labels, aud_labels):
        if ref_grade != grade:
            by_topic.setdefault(qid, []).append((docid, ref_grade, grade))
    # An edit changes one topic's row: each run's mean follows from the other framed topics' totals.
    matrix = scratch.per_topic(m)  # updated in place by set_label
    filled = ~np.isnan(matrix[framed])
    totals, counts = np.where(filled, matrix[framed], 0.0).sum(axis=0), filled.sum(axis=0)
    queue: list[Disagreement] = []
    for qid, pairs in by_topic.items():
        row = matrix[scratch.row[qid]]
        other_totals = totals - np.where(np.isnan(row), 0.0, row)
        other_counts = counts - ~np.isnan(row)
        edited = []
        for docid, ref_grade, grade in pairs:
            scratch.set_label(qid, docid, ref_grade)
            counted = ~np.isnan(row)
            n = other_counts + counted
            edited.append(np.divide(other_totals + np.where(counted, row, 0.0), n, out=np.zeros(len(n)), where=n > 0))
            scratch.set_label(qid, docid, grade)
        # One topic's edits share x's pair signs: their τ come as one matrix product.
        after = corr.kendall_tau_b_rows(x, np.array(edited))
        for (docid, ref_grade, grade), tau in zip(pairs, after, strict=True):
            delta = (tau - before) if not (np.isnan(tau) or np.isnan(before)) else 0.0
            queue.append(
                Disagreement(
                    qid=qid,
                    docid=docid,
                    ref_grade=ref_grade,
                    grade=grade,
                    delta_tau=float(delta),
                    distance=abs(ref_grade - grade),
                )
            )
    queue.sort(key=lambda d: (-abs(d["delta_tau"]), -(d["distance"] or 0.0), d["qid"], d["docid"]))
    if order == "spread":
        queue = by_spread(engine, [ref, qrels], queue)
    elif order != "delta-tau":
        raise UsageError(f"unknown order {order!r} (delta-tau, spread)")
    return queue[:limit] if limit is not None else queue


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
