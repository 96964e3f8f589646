"""What the Leaderboard screen shows: the runs ranked under two label sets side by side, the rank
correlation of the two leaderboards and the agreement of their shared labels."""

from __future__ import annotations

import numpy as np

from studio.domain.views import LeaderboardView, RankedRun
from studio.metrics import correlation as corr
from studio.services.evaluation.engine import EvaluationEngine, measure_of
from studio.services.meta.comparison import agreement, correlation


def ranks(runs: list[str], scores: list[float]) -> dict[str, int]:
    """1-based places, best score first; equal scores by run name, as `correlation.ranking`."""
    return {run: place for place, run in enumerate(corr.ranking(runs, np.array(scores)), start=1)}


def leaderboard_view(engine: EvaluationEngine, ref: str, qrels: str, measure: str) -> LeaderboardView:
    """Both leaderboards under `measure`, their correlation and the label agreement."""
    m = measure_of(measure)
    stats = correlation(engine, ref, qrels, m, details=False)
    runs = engine.evaluator(ref).runs
    x = engine.evaluator(ref).means(m)
    y = engine.evaluator(qrels).means(m)
    swapped = {pair[key] for pair in corr.swapped_pairs(runs, x, y) for key in ("above_in_ref", "below_in_ref")}
    ref_ranks, aud_ranks = ranks(runs, x.tolist()), ranks(runs, y.tolist())
    rows = [
        RankedRun(run, float(a), ref_ranks[run], float(b), aud_ranks[run], run in swapped)
        for run, a, b in zip(runs, x, y, strict=True)
    ]
    rows.sort(key=lambda row: row.ref_rank)
    try:
        labels = agreement(engine, ref, qrels)
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
    )
