"""What the Leaderboard screen shows: the runs ranked under two label sets side by side, the rank
correlation of the two leaderboards and the agreement of their shared labels, on one frame."""

from __future__ import annotations

import numpy as np

from studio.domain.frames import EVERY_TOPIC, TopicChoice
from studio.domain.views import LeaderboardView, RankedRun
from studio.metrics import correlation as corr
from studio.services.evaluation.engine import EvaluationEngine, measure_of
from studio.services.meta.frame import comparison_frame, side_means
from studio.services.meta.label_agreement import agreement
from studio.services.meta.rank_correlation import correlation


def ranks(runs: list[str], scores: list[float]) -> dict[str, int]:
    """1-based places, best score first; equal scores by run name, as `correlation.ranking`."""
    return {run: place for place, run in enumerate(corr.ranking(runs, np.array(scores)), start=1)}


def leaderboard_view(
    engine: EvaluationEngine, ref: str, qrels: str, measure: str, topics: TopicChoice = EVERY_TOPIC
) -> LeaderboardView:
    """Both leaderboards under `measure` on the topics `topics` frames, their correlation and the
    label agreement."""
    m = measure_of(measure)
    frame = comparison_frame(engine, ref, qrels, topics)
    stats = correlation(engine, ref, qrels, m, topics=topics, details=False)
    runs = list(frame.runs)
    x, y = side_means(engine, frame, m, m)
    swapped = {pair[key] for pair in corr.swapped_pairs(runs, x, y) for key in ("above_in_ref", "below_in_ref")}
    ref_ranks, aud_ranks = ranks(runs, x.tolist()), ranks(runs, y.tolist())
    rows = [
        RankedRun(run, float(a), ref_ranks[run], float(b), aud_ranks[run], run in swapped)
        for run, a, b in zip(runs, x, y, strict=True)
    ]
    rows.sort(key=lambda row: row.ref_rank)
    try:
        labels = agreement(engine, ref, qrels, topics=topics)
        kappa, shared = labels["kappa_graded"], labels["pairs"]
    except ValueError:  # nothing shared to agree on
        kappa, shared = None, None
    return LeaderboardView(
        ref,
        qrels,
        str(m),
        rows,
        stats["kendall_tau"],
        stats["spearman_rho"],
        stats["tau_ap"],
        stats["rbo"],
        stats["swaps"],
        kappa,
        shared,
        frame,
    )
