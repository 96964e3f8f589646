"""Leaderboard correlation of two label sets: Kendall τ (τ-b, τ-a), Spearman ρ, τ_AP, RBO and swaps at
run level; per-topic and pooled τ, bootstrap and topic subsampling on the topics both label."""

from __future__ import annotations

import numpy as np

from studio.domain.comparisons import BoardRow, Correlation, SideLevels, TauInterval, TauSubsample
from studio.domain.frames import EVERY_TOPIC, ComparisonFrame, TopicChoice
from studio.metrics import correlation as corr
from studio.metrics.evaluator import Evaluator
from studio.metrics.names import Measure
from studio.metrics.reference_board import ReferenceBoard
from studio.services.audit.levels import at_level
from studio.services.evaluation.engine import EvaluationEngine, measure_of
from studio.services.meta.frame import aligned_matrices, comparison_frame, evaluated_runs, side_means, without_runs
from studio.services.meta.label_agreement import finite as _finite
from studio.services.meta.live_correlation import LiveKey, LiveSides, audited_side, evaluated_on, keep_sides
from studio.services.meta.unreachable_levels import side_warnings

BOOTSTRAP_RESAMPLES = 1000
SUBSAMPLE_FRACTIONS = (1 / 3, 2 / 3)
SUBSAMPLE_TRIALS = 100


def correlation(
    engine: EvaluationEngine,
    ref: str,
    qrels: str,
    measure: str | Measure = "nDCG@10",
    *,
    topics: TopicChoice = EVERY_TOPIC,
    complete: bool = False,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = 0,
    details: bool = True,
    llm_relevant: float | None = None,
) -> Correlation:
    """How well the leaderboard under `qrels` reproduces the one under `ref`, both on the topics
    `topics` frames (by default the topics both label).

    `llm_relevant`: `qrels`' own relevance level for a binary measure (the measure's `rel=` stays
    the reference's), so a 0/1 judge can stand beside people's "relevant at 2"."""
    m = measure_of(measure)
    aud_m = at_level(m, llm_relevant)
    key: LiveKey = (ref, qrels, m, aud_m, topics, complete)
    if not details and (kept_sides := audited_side(engine, key)) is not None:
        sides, y = kept_sides  # the live view after an edit: only the audited side is new
        return run_level(sides.frame, sides.board, y, sides.board.swap_count(y))
    frame = comparison_frame(engine, ref, qrels, topics, m, aud_m)
    ref_eval, aud_eval = engine.evaluator(ref), engine.evaluator(qrels)
    x, y = side_means(engine, frame, m, aud_m, complete=complete)
    if not (
        _evaluates_a_topic(ref_eval, m, frame.ref_topics())
        and _evaluates_a_topic(aud_eval, aud_m, frame.qrels_topics())
    ):
        return _without_topics(engine, frame, m, aud_m, x, y, details=details, resamples=resamples, seed=seed)
    # A run no topic evaluates on a side has no place in either ranking (trec_eval -c gives it 0s: kept).
    kept = np.ones(len(x), dtype=bool) if complete else evaluated_runs(engine, frame, m, aud_m)
    if not kept.all():
        frame, x, y = without_runs(frame, kept), x[kept], y[kept]
    runs = list(frame.runs)
    board = ReferenceBoard.of(runs, x)
    if not details:  # the live view after an edit: the count, not the pairs
        keep_sides(engine, key, _live_sides(engine, frame, key, kept, board))
        return run_level(frame, board, y, board.swap_count(y))
    swaps = corr.swapped_pairs(runs, x, y)
    result = run_level(frame, board, y, len(swaps))
    ref_matrix, aud_matrix = aligned_matrices(ref_eval, aud_eval, frame, m, aud_m)
    if not kept.all():  # a copy only when runs are left out: a copy's layout may sum in another order
        ref_matrix, aud_matrix = ref_matrix[:, kept], aud_matrix[:, kept]
    interval = corr.bootstrap_tau(ref_matrix, aud_matrix, resamples=resamples, seed=seed)
    result["swapped_pairs"] = swaps
    result["per_topic_tau"] = _finite(corr.per_topic_tau(ref_matrix, aud_matrix))
    result["pooled_tau"] = _finite(corr.pooled_tau(ref_matrix, aud_matrix))
    result["bootstrap"] = TauInterval(
        low=_finite(interval.low),
        high=_finite(interval.high),
        mean=_finite(interval.mean),
        resamples=resamples,
        seed=seed,
        level=0.95,
    )
    result["subsampling"] = [subsample(ref_matrix, aud_matrix, fraction, seed=seed) for fraction in SUBSAMPLE_FRACTIONS]
    result["leaderboard"] = board_rows(runs, x, y)
    result["warnings"] = side_warnings(engine, ref, qrels, m, aud_m) + frame.warnings()
    return result


def run_level(frame: ComparisonFrame, board: ReferenceBoard, y: np.ndarray, swaps: int) -> Correlation:
    """Kendall τ-b and τ-a, Spearman ρ, τ_AP, RBO and swaps of the reference leaderboard (`board`)
    and `y`: the live form of `correlation`, which the full one extends."""
    return Correlation(
        ref=frame.ref,
        qrels=frame.qrels,
        measure=str(frame.measure),
        levels=side_levels(frame),
        runs=len(frame.runs),
        kendall_tau=_finite(board.kendall_tau_b(y)),
        kendall_variant="tau-b",
        kendall_tau_a=_finite(board.kendall_tau_a(y)),
        spearman_rho=_finite(board.spearman_rho(y)),
        tau_ap=_finite(board.tau_ap(y)),
        rbo=_finite(board.rbo(y, p=0.9)),
        swaps=swaps,
        topics=frame.topics,
        frame=frame.as_json(),
    )


def _live_sides(
    engine: EvaluationEngine, frame: ComparisonFrame, key: LiveKey, kept: np.ndarray, board: ReferenceBoard
) -> LiveSides:
    """What the next live correlation of `key` may keep (`live_correlation`)."""
    ref, qrels, m, _, _, _ = key
    ref_eval, aud_eval = engine.evaluator(ref), engine.evaluator(qrels)
    qrels_topics = frame.qrels_topics()
    return LiveSides(
        ref=ref_eval,
        ref_version=ref_eval.version,
        qrels=aud_eval,
        qrels_topics_version=aud_eval.topics_version,
        frame=frame,
        qrels_means_topics=None if frozenset(qrels_topics) == aud_eval.labelled_topics() else qrels_topics,
        qrels_rows=aud_eval.rows_of(qrels_topics),
        ref_evaluated=evaluated_on(ref_eval, m, ref_eval.rows_of(frame.ref_topics())),
        kept=kept,
        board=board,
    )


def subsample(ref_matrix: np.ndarray, aud_matrix: np.ndarray, fraction: float, *, seed: int) -> TauSubsample:
    """τ on a random `fraction` of the common topics over SUBSAMPLE_TRIALS draws, with the draws'
    95% interval (their 2.5th and 97.5th percentiles, as UMBRELA's Table 2 gives it)."""
    found = corr.subsample_tau(ref_matrix, aud_matrix, fraction, trials=SUBSAMPLE_TRIALS, seed=seed)
    return TauSubsample(
        fraction=fraction,
        topics=int(found["topics"]),
        mean=_finite(found["mean"]),
        std=_finite(found["std"]),
        min=_finite(found["min"]),
        max=_finite(found["max"]),
        low=_finite(found["low"]),
        high=_finite(found["high"]),
        draws=SUBSAMPLE_TRIALS,
        level=0.95,
    )


def board_rows(runs: list[str], x: np.ndarray, y: np.ndarray) -> list[BoardRow]:
    return [BoardRow(run=run, ref=float(a), qrels=float(b)) for run, a, b in zip(runs, x, y, strict=True)]


def side_levels(frame: ComparisonFrame) -> SideLevels | None:
    """The relevance level each side's leaderboard used (None: the measure reads grades as gains)."""
    return None if frame.levels is None else SideLevels(ref=frame.levels[0], qrels=frame.levels[1])


def _evaluates_a_topic(evaluator: Evaluator, measure: Measure, topics: tuple[str, ...]) -> bool:
    """Whether some run has one of `topics` the label set labels: without one every run ties at 0."""
    return bool((~np.isnan(evaluator.per_topic(measure)[evaluator.rows_of(topics)])).any())


def _without_topics(
    engine: EvaluationEngine,
    frame: ComparisonFrame,
    measure: Measure,
    aud_measure: Measure,
    x: np.ndarray,
    y: np.ndarray,
    *,
    details: bool,
    resamples: int,
    seed: int,
) -> Correlation:
    """`correlation`'s result when a side gives no run a topic of its frame (an empty set, one of
    other topics, or no topic both label): every statistic null, not the τ_AP or RBO of
    leaderboards tied at 0."""
    result = Correlation(
        ref=frame.ref,
        qrels=frame.qrels,
        measure=str(measure),
        levels=side_levels(frame),
        runs=len(frame.runs),
        kendall_tau=None,
        kendall_variant="tau-b",
        kendall_tau_a=None,
        spearman_rho=None,
        tau_ap=None,
        rbo=None,
        swaps=0,
        topics=frame.topics,
        frame=frame.as_json(),
    )
    if not details:
        return result
    result["swapped_pairs"] = []
    result["per_topic_tau"] = None
    result["pooled_tau"] = None
    result["bootstrap"] = TauInterval(low=None, high=None, mean=None, resamples=resamples, seed=seed, level=0.95)
    result["subsampling"] = [empty_subsample(f) for f in SUBSAMPLE_FRACTIONS]
    result["leaderboard"] = board_rows(list(frame.runs), x, y)
    result["warnings"] = side_warnings(engine, frame.ref, frame.qrels, measure, aud_measure) + frame.warnings()
    return result


def empty_subsample(fraction: float) -> TauSubsample:
    """Subsampling without topics to draw from: every figure null."""
    return TauSubsample(
        fraction=fraction,
        topics=0,
        mean=None,
        std=None,
        min=None,
        max=None,
        low=None,
        high=None,
        draws=SUBSAMPLE_TRIALS,
        level=0.95,
    )
