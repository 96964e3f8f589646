"""Correlating against an imported leaderboard (a score table): `leaderboard:NAME` on either side
of `studio correlate` names the table `NAME` instead of a label set.

The table's means (topic `all`) are taken as the tool that wrote them computed them, so
`--complete` changes only a label set's side. Runs are matched by name; the statistics are over
the runs both sides rank (the others are listed as `unmatched_runs`). The per-topic statistics
(bootstrap, subsampling, per-topic and pooled τ) need label sets on both sides and are null here.
"""

from __future__ import annotations

import numpy as np

from studio.domain.comparisons import BoardRow, Correlation, TauInterval
from studio.domain.errors import UsageError
from studio.metrics import correlation as corr
from studio.metrics.names import parse_measure
from studio.services.evaluation.engine import EvaluationEngine
from studio.services.meta.rank_correlation import BOOTSTRAP_RESAMPLES, SUBSAMPLE_FRACTIONS, empty_subsample
from studio.store import score_tables as score_store

LEADERBOARD_PREFIX = "leaderboard:"
MEAN_TOPIC = "all"


def names_score_table(name: str) -> bool:
    """Whether a side of a comparison names an imported leaderboard (`leaderboard:NAME`)."""
    return name.startswith(LEADERBOARD_PREFIX)


def _measure_name(measure: str, tables_only: bool) -> str:
    """The studio's name of `measure`; a name the studio does not compute (trec_eval's `bpref`) is
    taken as written when both sides are score tables."""
    try:
        return str(parse_measure(measure))
    except ValueError as error:
        if tables_only:
            return measure.strip()
        raise UsageError(str(error)) from error


def _table_means(engine: EvaluationEngine, side: str, measure: str) -> dict[str, float]:
    name = side.removeprefix(LEADERBOARD_PREFIX)
    con = engine.db.cursor()
    table = score_store.score_table_id(con, name)
    if table is None:
        raise UsageError(f"no leaderboard named {name!r} (see `studio list leaderboards`)")
    means = {
        run: value for (run, topic), value in score_store.values_of(con, table, measure).items() if topic == MEAN_TOPIC
    }
    if not means:
        held = ", ".join(score_store.measures_of(con, table)) or "none"
        raise UsageError(f"leaderboard {name!r} holds no means of {measure} (its measures: {held})")
    return means


def side_means(engine: EvaluationEngine, side: str, measure: str, *, complete: bool) -> dict[str, float]:
    """{run: mean} of one side: a score table's means, or the leaderboard under a label set."""
    if names_score_table(side):
        return _table_means(engine, side, measure)
    return engine.leaderboard(side, measure, complete=complete)


def correlation(
    engine: EvaluationEngine,
    ref: str,
    qrels: str,
    measure: str = "nDCG@10",
    *,
    complete: bool = False,
    details: bool = True,
    seed: int = 0,
) -> Correlation:
    """`studio correlate`'s result where a side is a score table: the run-level statistics over the
    runs both sides rank, the per-topic ones null (the keys kept, so the shape is the usual one)."""
    name = _measure_name(measure, names_score_table(ref) and names_score_table(qrels))
    left = side_means(engine, ref, name, complete=complete)
    right = side_means(engine, qrels, name, complete=complete)
    runs = [run for run in left if run in right]
    unmatched = sorted(set(left) ^ set(right))
    x = np.array([left[run] for run in runs], dtype=float)
    y = np.array([right[run] for run in runs], dtype=float)
    # A score table's means come as its tool computed them, over topics it chose: no frame.
    result = Correlation(
        ref=ref,
        qrels=qrels,
        measure=name,
        runs=len(runs),
        kendall_tau=_finite(corr.kendall_tau_b(x, y)),
        kendall_variant="tau-b",
        kendall_tau_a=_finite(corr.kendall_tau_a(x, y)),
        spearman_rho=_finite(corr.spearman_rho(x, y)),
        tau_ap=_finite(corr.tau_ap(x, y)) if len(runs) >= 2 else None,
        rbo=_finite(corr.rbo(corr.ranking(runs, x), corr.ranking(runs, y), p=0.9)) if runs else None,
        swaps=corr.swap_count(x, y),
        unmatched_runs=unmatched,
        topics=0,
        frame=None,
    )
    if not details:
        return result
    result["swapped_pairs"] = corr.swapped_pairs(runs, x, y)
    result["per_topic_tau"] = None
    result["pooled_tau"] = None
    result["bootstrap"] = TauInterval(
        low=None, high=None, mean=None, resamples=BOOTSTRAP_RESAMPLES, seed=seed, level=0.95
    )
    result["subsampling"] = [empty_subsample(f) for f in SUBSAMPLE_FRACTIONS]
    result["leaderboard"] = [
        BoardRow(run=run, ref=float(a), qrels=float(b)) for run, a, b in zip(runs, x, y, strict=True)
    ]
    return result


def _finite(value: float) -> float | None:
    return None if np.isnan(value) else float(value)
