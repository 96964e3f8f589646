"""Prediction-powered nDCG@k from an audit of judged pairs: a linearised (ratio) estimator.

A run's nDCG@k is a mean over topics of D_q / I_q: D_q = Σ_{pairs of q} gain_i · disc_i (disc the
run's discount 1/log2(rank + 1) of the pair's document within the top k, else 0) is a total over
the topic's pairs, and the ideal DCG I_q = I(N_q) is a function of the topic's counts N_q,g of
pairs at each positive grade g (the top k filled by the highest grades first). Both are totals
over the pool, which a pair audit estimates; their ratio is not, so it is linearised (Woodruff's
method, Särndal et al., *Model Assisted Survey Sampling*, §5.5).

With real-valued counts, I(N) = Σ_j (g_j − g_{j+1}) · Φ(min(k, C_j)), grades g_1 > g_2 > … (and
g_{last+1} = 0), C_j = Σ_{g ≥ g_j} N_g the pairs graded at least g_j, and Φ the cumulative
discount interpolated linearly between whole positions: exact at whole counts, with a slope
∂I/∂N_g = Σ_{j: g_j ≤ g} (g_j − g_{j+1}) · φ(C_j), φ(x) the discount of position ⌊x⌋ + 1 (0 past k).

At a point (D̂, N̂) — the Horvitz–Thompson estimates of the totals from the gold sample — the
first-order expansion of θ = (1/T) Σ_q D_q / I(N_q) is θ ≈ c + Σ_U u_i with the per-pair term

    u_i = (1/T) [ d_i / Î_q − (D̂_q / Î_q²) · ∂I/∂N_{g_i} ],    d_i = gain_i · disc_i,

and the constant c = θ(D̂, N̂) − Σ_q (1/T)[D̂_q/Î_q − (D̂_q/Î_q²) ∇I·N̂_q]. The u's under gold and
under LLM grades are unit contributions like any other: `ppi.estimate_totals` estimates Σ_U u
(with the chosen estimator, λ and the design's variance), and c is added to the estimate and
the interval. A topic whose estimated ideal DCG is 0 contributes 0 (trec_eval's convention).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from studio.metrics import ppi


@dataclass(frozen=True)
class PairPool:
    """The pairs of a pool, each with its topic and every run's discount at it."""

    topic: np.ndarray  # (M,) topic index 0 … Q−1
    discount: np.ndarray  # (M, R) 1/log2(rank + 1) within the run's top k, else 0
    topic_counts: np.ndarray  # (R,) topics each run's mean is over
    covered: np.ndarray  # (Q, R) bool: the topic is in the run's mean
    cutoff: int

    @property
    def topics(self) -> int:
        return int(self.covered.shape[0])


def ideal_dcg(counts: np.ndarray, grades: np.ndarray, cutoff: int) -> tuple[np.ndarray, np.ndarray]:
    """I(N) and ∂I/∂N_g per topic for real-valued counts (Q × G) of the positive `grades` (G,)."""
    order = np.argsort(-grades)
    g = grades[order]
    steps = g - np.append(g[1:], 0.0)  # g_j − g_{j+1}
    cumulative = np.cumsum(counts[:, order], axis=1)  # C_j
    positions = np.arange(1, cutoff + 1)
    phi_whole = np.concatenate([[0.0], np.cumsum(1.0 / np.log2(positions + 1))])  # Φ at 0 … k
    x = np.clip(cumulative, 0.0, cutoff)
    whole = np.minimum(np.floor(x).astype(np.int64), cutoff)
    slope = np.where(whole < cutoff, 1.0 / np.log2(np.minimum(whole, cutoff - 1) + 2.0), 0.0)
    phi = phi_whole[whole] + (x - whole) * slope
    value = (steps[None, :] * phi).sum(axis=1)
    weighted = steps[None, :] * slope  # (Q, G) in sorted order
    # ∂I/∂N at the sorted grade j sums the terms of every j' ≥ j (grades at most its own).
    derivative_sorted = np.cumsum(weighted[:, ::-1], axis=1)[:, ::-1]
    derivative = np.empty_like(derivative_sorted)
    derivative[:, order] = derivative_sorted
    return value, derivative


@dataclass(frozen=True)
class Linearised:
    """Per-pair contributions (M × R) under gold and LLM grades, and the constant c (R,):
    θ ≈ c + Σ_U a."""

    a: np.ndarray
    b: np.ndarray | None
    constant: np.ndarray


def linearise(
    sampled: np.ndarray,
    pool: PairPool,
    gold_grade: np.ndarray,
    llm_grade: np.ndarray,
    pi: np.ndarray,
    *,
    gold_only: bool = False,
) -> Linearised:
    """The linearised nDCG@k of every run at the point the audit (`sampled` (M,) 0/1) gives: gold
    grades on the sample (any value elsewhere), LLM grades everywhere (NaN where the LLM set lacks
    the pair: no prediction). `gold_only` leaves the LLM's grades out altogether."""
    mask = np.asarray(sampled, dtype=np.float64).reshape(-1)
    grades = _grade_levels(np.where(mask > 0, gold_grade, np.nan), llm_grade)
    gold_gain = np.where(mask > 0, np.maximum(np.nan_to_num(gold_grade), 0.0), 0.0)
    llm_gain = np.zeros_like(gold_gain) if gold_only else np.maximum(np.nan_to_num(llm_grade), 0.0)
    gold_counts = ((gold_gain[:, None] == grades[None, :]) & (mask[:, None] > 0)).astype(np.float64)
    llm_counts = (llm_gain[:, None] == grades[None, :]).astype(np.float64)
    weight = np.where(mask > 0, 1.0 / np.where(mask > 0, pi, 1.0), 0.0)[:, None]
    # The linearisation point: each topic's totals from the gold sample alone (Horvitz–Thompson).
    # The LLM's totals would be sharper but can contradict each other where the judge is off
    # (a DCG above the ideal one), and the point only needs to be consistent: the LLM's grades
    # enter as the control variate b, whose weight λ the estimator fits.
    dcg_hat = _topic_sums(pool, weight * gold_gain[:, None] * pool.discount)
    count_hat = _topic_sums(pool, weight * gold_counts)
    ideal, slope = ideal_dcg(count_hat, grades, pool.cutoff)
    live = ideal > 1e-12
    inverse = np.where(live, 1.0 / np.where(live, ideal, 1.0), 0.0)[:, None] * pool.covered  # (Q, R)
    ratio_weight = dcg_hat * inverse**2  # D̂/Î²
    scale = 1.0 / np.maximum(pool.topic_counts, 1)[None, :]
    point = (dcg_hat * inverse * scale).sum(axis=0)
    linear_at_point = ((dcg_hat * inverse - ratio_weight * (count_hat * slope).sum(axis=1)[:, None]) * scale).sum(
        axis=0
    )

    def contributions(gain: np.ndarray, counts: np.ndarray) -> np.ndarray:
        q = pool.topic
        pair_slope = (counts * slope[q]).sum(axis=1)  # ∂I/∂N at the pair's grade
        result: np.ndarray = (
            gain[:, None] * pool.discount * inverse[q] - pair_slope[:, None] * ratio_weight[q]
        ) * scale
        return result

    a = contributions(gold_gain, gold_counts)
    b = None if gold_only else contributions(llm_gain, llm_counts)
    return Linearised(a, b, point - linear_at_point)


def estimate_ndcg(
    sampled: np.ndarray,
    pool: PairPool,
    gold_grade: np.ndarray,
    llm_grade: np.ndarray,
    pi: np.ndarray,
    *,
    level: float = 0.95,
    estimator: str | None = None,
    strata: np.ndarray | None = None,
    gold_only: bool = False,
) -> ppi.Intervals:
    """nDCG@k of every run from one audit, with intervals (see `linearise`); its units are single
    pairs, so the estimate adds a pair's pseudo-unit (see `ppi.estimate_totals`)."""
    found = linearise(sampled, pool, gold_grade, llm_grade, pi, gold_only=gold_only)
    return shifted(
        ppi.estimate_totals(
            sampled, found.a, found.b, pi, level=level, estimator=estimator, strata=strata, pseudo=ppi.PSEUDO_PAIR
        ),
        found.constant,
    )


def shifted(found: ppi.Intervals, constant: np.ndarray) -> ppi.Intervals:
    """The intervals of c + Σ_U a from those of Σ_U a."""
    return replace(found, estimate=found.estimate + constant, low=found.low + constant, high=found.high + constant)


def true_ndcg(pool: PairPool, grade: np.ndarray) -> np.ndarray:
    """Every run's nDCG@k over the pool when `grade` (M,) holds every pair's grade."""
    gain = np.maximum(np.nan_to_num(grade), 0.0)
    grades = _grade_levels(gain, gain)
    counts = (gain[:, None] == grades[None, :]).astype(np.float64)
    ideal, _ = ideal_dcg(_topic_sums(pool, counts), grades, pool.cutoff)
    dcg = _topic_sums(pool, gain[:, None] * pool.discount)
    with np.errstate(invalid="ignore", divide="ignore"):
        per_topic = np.where(ideal[:, None] > 0, dcg / ideal[:, None], 0.0) * pool.covered
    result: np.ndarray = per_topic.sum(axis=0) / np.maximum(pool.topic_counts, 1)
    return result


def _grade_levels(*grades: np.ndarray) -> np.ndarray:
    """The positive grades that occur (gains are the grades themselves, as in trec_eval)."""
    found = np.concatenate([np.asarray(g, dtype=np.float64).reshape(-1) for g in grades])
    found = found[np.isfinite(found) & (found > 0)]
    levels = np.unique(found)
    return levels if levels.size else np.array([1.0])


def _topic_sums(pool: PairPool, values: np.ndarray) -> np.ndarray:
    """Σ over each topic's pairs: (M × C) → (Q × C)."""
    out = np.zeros((pool.topics, values.shape[1]))
    np.add.at(out, pool.topic, values)
    return out
