"""The linearised nDCG@k of `ppi_ratio.py` for many pair audits at once (`studio audit simulate`).

Each audit has its own linearisation point, hence its own per-pair contributions (pairs × runs)
under gold and LLM grades; for 1,000 audits of a 10,000-pair pool and 63 runs they would be 630
million numbers each. The estimator reads only sums of them (`ppi_sums.StratumSums`), and a pair's
contribution to run r of topic q is

    u_ir = s_r (x_ir − y_ir),   x_ir = g_i · d_ir / Î_q,   y_ir = σ_q(g_i) · D̂_q / Î_q²,

s_r = 1/T_r, g_i the pair's gain, d_ir its discount in the run (0 outside the top k), σ_q(g) =
∂I/∂N_g at the audit's point. x is 0 unless the pair is in the run's top k (a few pairs a topic
and run), and y is the same for every pair of a topic and grade. So each sum over a sample splits
into the top-k pairs, summed one by one, and per-(topic, grade) sums of weights times the topic's
D̂/Î² (powers of x − y expanded); a sum over a stratum's whole population (the mean and variance of
b, the pseudo-unit) into moments Σ ω (g·d)^j of the pool, known before any draw, per topic and
grade. Every figure is the one `ppi_ratio.estimate_ndcg` gives for each audit on its own, up to
the order of additions (the estimates agree to about 1e-14 relative).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from studio.metrics import ppi_sums
from studio.metrics.ppi_ratio import PairPool, ideal_dcg
from studio.metrics.ppi_ratio_pool import AuditPool, Point, audit_pool, llm_population
from studio.metrics.ppi_sums import FoldSums, Intervals, LlmPopulation, StratumSums

CHUNK = 100  # audits estimated together: bounds the (audits × topics × grades × runs) arrays


class TrialEstimates(NamedTuple):
    """Every audit's intervals of every run's nDCG@k: with the LLM's grades, and the gold sample's alone."""

    ours: Intervals
    gold: Intervals


def estimate_ndcg_trials(
    masks: np.ndarray,
    pool: PairPool,
    gold_grade: np.ndarray,
    llm_grade: np.ndarray,
    pi: np.ndarray,
    *,
    level: float = 0.95,
    estimator: str = "cross-fit",
    strata: np.ndarray | None = None,
) -> TrialEstimates:
    """Each audit's (row of `masks`, trials × M, 0/1) nDCG@k intervals, as `ppi_ratio.estimate_ndcg`
    gives them with and without (`gold_only`) the LLM's grades: `gold_grade` must hold every pair's
    grade (the simulation's truth), `llm_grade` NaN where the LLM set lacks the pair."""
    shared = audit_pool(pool, gold_grade, llm_grade, pi, strata)
    parts = [_chunk(shared, masks[start : start + CHUNK], level, estimator) for start in range(0, len(masks), CHUNK)]
    return TrialEstimates(_joined([p.ours for p in parts]), _joined([p.gold for p in parts]))


class _Sample(NamedTuple):
    """The audits' sampled pairs, one entry each, in trial then pair order."""

    trial: np.ndarray  # (E,)
    unit: np.ndarray
    group: np.ndarray  # stratum · folds + fold
    scale: np.ndarray  # the estimator's z = n_h/(M_h π)
    folds: int  # folds per stratum (the most any audit has)
    drawn: np.ndarray  # (T, H) n_h
    fold_sizes: np.ndarray  # (T, folds)


def _chunk(shared: AuditPool, masks: np.ndarray, level: float, estimator: str) -> TrialEstimates:
    trial, unit = np.nonzero(masks)
    point = _point(shared, masks.shape[0], trial, unit)
    sample = _sample(shared, masks, trial, unit, estimator)
    ours, gold = _sample_sums(shared, point, sample)
    population = llm_population(shared, point, sample.drawn)
    layers = [StratumSums(int(size), sample.drawn[:, h], ours[h], population[h]) for h, size in enumerate(shared.sizes)]
    unknown = LlmPopulation(np.zeros(1), np.zeros(1), np.zeros_like(point.constant))  # gold only: b = 0
    gold_layers = [StratumSums(int(size), sample.drawn[:, h], gold[h], unknown) for h, size in enumerate(shared.sizes)]
    found = ppi_sums.intervals(layers, sample.fold_sizes, estimator, level)
    alone = ppi_sums.intervals(gold_layers, sample.fold_sizes.sum(axis=1, keepdims=True), "gold", level)
    return TrialEstimates(_shifted(found, point.constant), _shifted(alone, point.constant))


def _point(shared: AuditPool, trials: int, trial: np.ndarray, unit: np.ndarray) -> Point:
    """Each audit's Horvitz–Thompson totals D̂ and N̂ per topic, and the linearisation at them."""
    from scipy.sparse import csr_matrix  # with scipy, as `ppi_sums.t_quantile` imports it: not at start-up

    pool, levels = shared.pool, shared.levels
    topics, runs = pool.topics, pool.discount.shape[1]
    weight = 1.0 / shared.pi[unit]
    row = trial * topics + pool.topic[unit]
    relevant = shared.gold_class[unit] >= 0
    gains = csr_matrix(
        ((weight * shared.gold_gain[unit])[relevant], (row[relevant], unit[relevant])),
        shape=(trials * topics, len(shared.pi)),
    )
    dcg_hat = np.asarray(gains @ pool.discount).reshape(trials, topics, runs)
    cells = row[relevant] * len(levels) + shared.gold_class[unit][relevant]
    count_hat = np.bincount(cells, weights=weight[relevant], minlength=trials * topics * len(levels))
    count_hat = count_hat.reshape(trials, topics, len(levels))
    ideal, slope = _ideal(shared, count_hat, trial[relevant], shared.gold_class[unit][relevant])
    live = ideal > 1e-12
    inverse = np.where(live, 1.0 / np.where(live, ideal, 1.0), 0.0)[:, :, None] * pool.covered[None, :, :]
    ratio_weight = dcg_hat * inverse**2
    scale = shared.run_scale
    point = (dcg_hat * inverse * scale).sum(axis=1)
    at_point = ((dcg_hat * inverse - ratio_weight * (count_hat * slope).sum(axis=2)[:, :, None]) * scale).sum(axis=1)
    return Point(inverse, ratio_weight, slope, point - at_point)


def _ideal(
    shared: AuditPool, count_hat: np.ndarray, trial: np.ndarray, gold_class: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """I(N̂) and ∂I/∂N per audit and topic, over the grades the audit's gold sample or the LLM gives
    (those `ppi_ratio.linearise` sees: a grade no pair of the audit has would only move the last digits)."""
    trials, topics, grades = count_hat.shape
    seen = np.zeros((trials, grades), dtype=bool)
    seen[trial, gold_class] = True
    present = seen | shared.llm_levels[None, :]
    ideal = np.zeros((trials, topics))
    slope = np.zeros((trials, topics, grades))
    patterns, which = np.unique(present, axis=0, return_inverse=True)
    for p, pattern in enumerate(patterns):
        rows = np.flatnonzero(which.reshape(-1) == p)
        counts = count_hat[rows][:, :, pattern].reshape(-1, int(pattern.sum()))
        levels = shared.levels[pattern]
        if not levels.size:  # no grade at all: `ppi_ratio` takes 1 as the only level, counted by no pair
            counts, levels = np.zeros((len(rows) * topics, 1)), np.array([1.0])
        value, derivative = ideal_dcg(counts, levels, shared.pool.cutoff)
        ideal[rows] = value.reshape(len(rows), topics)
        if pattern.any():
            block = slope[rows]
            block[:, :, pattern] = derivative.reshape(len(rows), topics, -1)
            slope[rows] = block
    return ideal, slope


def _sample(shared: AuditPool, masks: np.ndarray, trial: np.ndarray, unit: np.ndarray, estimator: str) -> _Sample:
    """The sampled pairs' strata, folds (each audit's own count, as `ppi.estimate_totals` deals them
    for one audit) and scales."""
    trials, strata = masks.shape[0], len(shared.sizes)
    n = masks.sum(axis=1)
    per_trial = ppi_sums.fold_count(n) if estimator == "cross-fit" else np.ones(trials, dtype=np.int64)
    folds = int(per_trial.max(initial=1))
    fold = ppi_sums.dealt_folds(trial, per_trial)
    layer = shared.layer[unit]
    drawn = np.bincount(trial * strata + layer, minlength=trials * strata).reshape(trials, strata).astype(np.float64)
    scale = drawn[trial, layer] / (shared.sizes[layer] * shared.pi[unit])
    fold_sizes = np.bincount(trial * folds + fold, minlength=trials * folds).reshape(trials, folds)
    return _Sample(trial, unit, layer * folds + fold, scale, folds, drawn, fold_sizes.astype(np.float64))


def _sample_sums(shared: AuditPool, point: Point, sample: _Sample) -> tuple[list[FoldSums], list[FoldSums]]:
    """Per stratum, (count, Σz_a, Σz_b, Σz_a², Σz_a·z_b, Σz_b²) by audit and fold, with the LLM's
    grades; and (Σz_a, 0, Σz_a², 0, 0) over each audit's whole sample, without them."""
    pool = shared.pool
    trials, topics, runs = point.inverse.shape
    groups = len(shared.sizes) * sample.folds
    trial, unit, w = sample.trial, sample.unit, sample.scale
    q = pool.topic[unit]
    sigma_a = _slope_at(point.slope, trial, q, shared.gold_class[unit])
    sigma_b = _slope_at(point.slope, trial, q, shared.llm_class[unit])
    # The y terms: per audit, group and topic, sums of weights times σ, then times D̂/Î² (or its square).
    cell = (trial * groups + sample.group) * topics + q
    size = trials * groups * topics

    def per_topic(values: np.ndarray) -> np.ndarray:
        return np.bincount(cell, weights=values, minlength=size).reshape(trials, groups, topics)

    first = np.concatenate([per_topic(w * sigma_a), per_topic(w * sigma_b)], axis=1) @ point.ratio_weight
    w2 = w * w
    second = np.concatenate(
        [per_topic(w2 * sigma_a**2), per_topic(w2 * sigma_a * sigma_b), per_topic(w2 * sigma_b**2)], axis=1
    ) @ (point.ratio_weight**2)
    # The x terms: the sampled pairs' top-k entries, one by one.
    entry, top = _top_entries(shared, unit)
    run, d = shared.top_run[top], shared.top_discount[top]
    t, u, qq = trial[entry], unit[entry], q[entry]
    inv, rw = point.inverse[t, qq, run], point.ratio_weight[t, qq, run]
    xa, xb = shared.gold_gain[u] * d * inv, shared.llm_gain[u] * d * inv
    ya, yb = sigma_a[entry] * rw, sigma_b[entry] * rw
    we, we2 = w[entry], w2[entry]
    bins = (t * groups + sample.group[entry]) * runs + run

    def per_run(values: np.ndarray) -> np.ndarray:
        return np.bincount(bins, weights=values, minlength=trials * groups * runs).reshape(trials, groups, runs)

    s, s2 = shared.run_scale, shared.run_scale**2
    za = s * (per_run(we * xa) - first[:, :groups])
    zb = s * (per_run(we * xb) - first[:, groups:])
    zaa = s2 * (per_run(we2 * xa * (xa - 2 * ya)) + second[:, :groups])
    zab = s2 * (per_run(we2 * (xa * xb - xa * yb - ya * xb)) + second[:, groups : 2 * groups])
    zbb = s2 * (per_run(we2 * xb * (xb - 2 * yb)) + second[:, 2 * groups :])
    count = np.bincount(trial * groups + sample.group, minlength=trials * groups).reshape(trials, groups)
    ours, gold = [], []
    nothing = np.zeros((trials, 1, runs))
    for h in range(len(shared.sizes)):
        part = slice(h * sample.folds, (h + 1) * sample.folds)
        units = count[:, part].astype(np.float64)
        ours.append(FoldSums(units, za[:, part], zb[:, part], zaa[:, part], zab[:, part], zbb[:, part]))
        whole = units.sum(axis=1, keepdims=True)
        gold.append(
            FoldSums(
                whole,
                za[:, part].sum(axis=1, keepdims=True),
                nothing,
                zaa[:, part].sum(axis=1, keepdims=True),
                nothing,
                nothing,
            )
        )
    return ours, gold


def _top_entries(shared: AuditPool, unit: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The top-k entries of the sampled pairs `unit` (E,): for each, the sample entry it is of and
    its index into `top_run` and `top_discount`."""
    lengths = np.diff(shared.top_start)[unit]
    entry = np.repeat(np.arange(len(unit)), lengths)
    first = np.cumsum(lengths) - lengths  # where each sample entry's run of top-k entries begins
    top = shared.top_start[unit][entry] + np.arange(len(entry)) - first[entry]
    return entry, top


def _slope_at(slope: np.ndarray, trial: np.ndarray, topic: np.ndarray, grade_class: np.ndarray) -> np.ndarray:
    """σ at each entry's grade class (0 where the pair is not relevant)."""
    result: np.ndarray = np.where(grade_class >= 0, slope[trial, topic, np.maximum(grade_class, 0)], 0.0)
    return result


def _shifted(found: Intervals, constant: np.ndarray) -> Intervals:
    """The intervals of c + Σ_U a from those of Σ_U a (as `ppi_ratio.shifted`)."""
    return Intervals(
        found.estimate + constant, found.low + constant, found.high + constant, found.se, found.lam, found.df
    )


def _joined(parts: list[Intervals]) -> Intervals:
    def joined(name: str) -> np.ndarray:
        return np.concatenate([getattr(p, name) for p in parts])

    df = [p.df for p in parts if p.df is not None]
    return Intervals(
        joined("estimate"),
        joined("low"),
        joined("high"),
        joined("se"),
        joined("lam"),
        np.concatenate(df) if len(df) == len(parts) else None,
    )
