"""Judging methods on a level playing field: each label set's agreement with a reference's labels
and its preservation of the reference's leaderboard, in one row (`studio compare`)."""

from __future__ import annotations

from studio.domain.comparisons import MethodComparison
from studio.domain.errors import UsageError
from studio.domain.frames import EVERY_TOPIC, TopicChoice
from studio.metrics import correlation as corr
from studio.metrics.names import Measure
from studio.services.evaluation.engine import EvaluationEngine, measure_of
from studio.services.meta.frame import (
    aligned_matrices,
    comparison_frame,
    evaluated_runs,
    framed_means,
    side_means,
    without_runs,
)
from studio.services.meta.label_agreement import agreement
from studio.services.meta.label_agreement import finite as _finite
from studio.services.meta.rank_correlation import BOOTSTRAP_RESAMPLES

COMPAT_MEASURE = "Compat(p=0.9)"
COMPAT_REFERENCE_MEASURE = "nDCG@10"


def compare(
    engine: EvaluationEngine,
    ref: str,
    qrels: list[str],
    measure: str | Measure = "nDCG@10",
    *,
    topics: TopicChoice = EVERY_TOPIC,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = 0,
) -> list[MethodComparison]:
    """Judging methods on a level playing field: per label set, agreement with the reference's
    labels (κ binary and graded, Krippendorff's α, alignment, leniency) and preservation of its
    leaderboard (τ-b and τ_AP with bootstrap intervals over topics, and the τ between the
    reference's nDCG@10 leaderboard and the label set's compatibility leaderboard, as in Table 3
    of Arabzadeh & Clarke 2025), each label set on its own frame with the reference."""
    for name in qrels:
        if name == ref:
            raise UsageError(f"{name!r} is the reference; compare it with other label sets")
    return [_compared(engine, ref, name, measure_of(measure), topics, resamples=resamples, seed=seed) for name in qrels]


def _compared(
    engine: EvaluationEngine, ref: str, name: str, m: Measure, topics: TopicChoice, *, resamples: int, seed: int
) -> MethodComparison:
    frame = comparison_frame(engine, ref, name, topics)
    labels = agreement(engine, ref, name, topics=topics)
    ref_eval, aud_eval = engine.evaluator(ref), engine.evaluator(name)
    ref_matrix, aud_matrix = aligned_matrices(ref_eval, aud_eval, frame, m)
    x, y = side_means(engine, frame, m, m)
    kept = evaluated_runs(engine, frame, m, m)  # a run no topic evaluates on a side has no rank there
    if kept.any() and not kept.all():  # (a copy only then: a copy's layout may sum in another order)
        frame = without_runs(frame, kept)
        ref_matrix, aud_matrix, x, y = ref_matrix[:, kept], aud_matrix[:, kept], x[kept], y[kept]
    tau_interval = corr.bootstrap(ref_matrix, aud_matrix, corr.kendall_tau_b, resamples=resamples, seed=seed)
    ap_interval = corr.bootstrap(ref_matrix, aud_matrix, corr.tau_ap, resamples=resamples, seed=seed)
    compat_reference = framed_means(ref_eval, measure_of(COMPAT_REFERENCE_MEASURE), frame.ref_topics())
    compat = framed_means(aud_eval, measure_of(COMPAT_MEASURE), frame.qrels_topics())
    if len(frame.runs) < len(compat):
        compat_reference, compat = compat_reference[kept], compat[kept]
    return MethodComparison(
        qrels=name,
        measure=str(m),
        pairs=labels["pairs"],
        kappa_binary=labels["kappa_binary"],
        kappa_graded=labels["kappa_graded"],
        krippendorff_alpha=labels["krippendorff_alpha"],
        alignment=labels["alignment"],
        kendall_tau=_finite(corr.kendall_tau_b(x, y)),
        kendall_tau_low=_finite(tau_interval.low),
        kendall_tau_high=_finite(tau_interval.high),
        tau_ap=_finite(corr.tau_ap(x, y)),
        tau_ap_low=_finite(ap_interval.low),
        tau_ap_high=_finite(ap_interval.high),
        compat_tau=_finite(corr.kendall_tau_b(compat_reference, compat)),
        more_lenient=labels["more_lenient"],
        stricter=labels["stricter"],
        topics=frame.topics,
        frame=frame.as_json(),
    )
