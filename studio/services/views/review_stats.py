"""The two figures Review shows after every decision: Kendall τ between the reference's and the
audited set's leaderboards, and graded Cohen's κ of the labels both sets have."""

from __future__ import annotations

import numpy as np

from studio.metrics import agreement as agree
from studio.metrics.correlation import kendall_tau_b
from studio.services.evaluation.engine import EvaluationEngine, measure_of


def tau_and_kappa(engine: EvaluationEngine, ref: str, qrels: str, measure: str) -> tuple[float | None, float | None]:
    """τ-b of the two leaderboards under `measure` (`correlate`'s τ) and κ of the shared labels, now
    (None where undefined); the caller holds the engine."""
    ref_eval, aud_eval = engine.evaluator(ref), engine.evaluator(qrels)
    m = measure_of(measure)
    tau = kendall_tau_b(ref_eval.means(m), aud_eval.means(m))
    a: list[float] = []
    b: list[float] = []
    aud_labels = aud_eval.labels
    for qid, topic in ref_eval.labels.items():
        other = aud_labels.get(qid)
        if other is None:
            continue
        for docid, grade in topic.judged.items():
            if docid in other.judged:
                a.append(grade)
                b.append(other.judged[docid])
    kappa = agree.cohen_kappa(np.array(a), np.array(b)) if a else float("nan")
    return (None if np.isnan(tau) else float(tau)), (None if np.isnan(kappa) else float(kappa))
