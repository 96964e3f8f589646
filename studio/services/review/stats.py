"""The two figures Review shows after every decision: Kendall τ between the reference's and the
audited set's leaderboards, and graded Cohen's κ of the labels both sets have, both on the topics
the comparison's frame gives (by default those both label, as `studio correlate` and `agree`)."""

from __future__ import annotations

import numpy as np

from studio.domain.frames import EVERY_TOPIC, ComparisonFrame, TopicChoice
from studio.metrics import agreement as agree
from studio.metrics.correlation import kendall_tau_b
from studio.services.evaluation.engine import EvaluationEngine, measure_of
from studio.services.meta.frame import comparison_frame, evaluated_runs, side_means


def tau_and_kappa(
    engine: EvaluationEngine, ref: str, qrels: str, measure: str, topics: TopicChoice = EVERY_TOPIC
) -> tuple[float | None, float | None, ComparisonFrame]:
    """τ-b of the two leaderboards under `measure` (`correlate`'s τ) and κ of the shared labels, now
    (None where undefined), with the frame they stand on; the caller holds the engine."""
    frame = comparison_frame(engine, ref, qrels, topics)
    m = measure_of(measure)
    x, y = side_means(engine, frame, m, m)
    kept = evaluated_runs(engine, frame, m, m)  # as `correlate`: a run with no topic evaluated has no rank
    tau = kendall_tau_b(x[kept], y[kept]) if kept.any() else kendall_tau_b(x, y)
    a: list[float] = []
    b: list[float] = []
    ref_labels, aud_labels = engine.evaluator(ref).labels, engine.evaluator(qrels).labels
    for qid in frame.common:
        theirs = aud_labels[qid].judged
        for docid, grade in ref_labels[qid].judged.items():
            if docid in theirs:
                a.append(grade)
                b.append(theirs[docid])
    kappa = agree.cohen_kappa(np.array(a), np.array(b)) if a else float("nan")
    return (None if np.isnan(tau) else float(tau)), (None if np.isnan(kappa) else float(kappa)), frame
