"""What many pair audits of one pool share, for the linearised nDCG@k (`ppi_ratio_trials`): the
pool's pairs with their gains, grade classes, strata and top-k entries, and the LLM's moments
Σ ω (g·d)^j per stratum, topic and grade, from which each audit's population figures of b (its
mean, variance and pseudo-unit, `llm_population`) follow without a (pairs × runs) array: an
audit's b = s·(x − y) has x = g·d/Î and y = σ(g)·D̂/Î², so Σ ω (x − y)^p is a binomial sum of the
moments times powers of the audit's 1/Î, D̂/Î² and σ.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb
from typing import NamedTuple

import numpy as np

from studio.metrics.ppi_ratio import PairPool
from studio.metrics.ppi_sums import LlmPopulation


@dataclass(frozen=True)
class AuditPool:
    """What the audits share: the pool's pairs with their gains, grade classes, strata, weights
    and top-k entries, and the LLM's moments per stratum (see the module's docstring)."""

    pool: PairPool
    levels: np.ndarray  # (G,) the positive grades that occur
    gold_gain: np.ndarray  # (M,)
    gold_class: np.ndarray  # (M,) index into levels, −1: not relevant
    llm_gain: np.ndarray
    llm_class: np.ndarray
    llm_levels: np.ndarray  # (G,) bool: a grade the LLM gives
    layer: np.ndarray  # (M,) the pair's stratum 0 … H−1
    sizes: np.ndarray  # (H,) M_h
    pi: np.ndarray  # (M,)
    top_start: np.ndarray  # (M + 1,) each pair's top-k entries: top_run[top_start[i]:top_start[i + 1]]
    top_run: np.ndarray
    top_discount: np.ndarray
    run_scale: np.ndarray  # (R,) s_r
    moments: dict[tuple[int, int], np.ndarray]  # (ω power of 1/π, j) → (H, Q, C, R) Σ ω (g·d)^j by LLM grade class


def audit_pool(
    pool: PairPool, gold_grade: np.ndarray, llm_grade: np.ndarray, pi: np.ndarray, strata: np.ndarray | None
) -> AuditPool:
    """The pool's pairs as the audits read them, and the LLM's moments (once, before any audit)."""
    gold_gain = np.maximum(np.nan_to_num(np.asarray(gold_grade, dtype=np.float64)), 0.0)
    llm_gain = np.maximum(np.nan_to_num(np.asarray(llm_grade, dtype=np.float64)), 0.0)
    found = np.unique(np.concatenate([gold_gain[gold_gain > 0], llm_gain[llm_gain > 0]]))
    levels = found if found.size else np.array([1.0])

    def grade_class(gain: np.ndarray) -> np.ndarray:
        result: np.ndarray = np.where(gain > 0, np.searchsorted(levels, gain), -1)
        return result

    labels = np.zeros(len(pi), dtype=np.int64) if strata is None else np.asarray(strata)
    _, layer = np.unique(labels, return_inverse=True)
    layer = layer.reshape(-1)
    unit, run = np.nonzero(pool.discount > 0)
    top_start = np.searchsorted(unit, np.arange(len(pi) + 1))
    shared = AuditPool(
        pool=pool,
        levels=levels,
        gold_gain=gold_gain,
        gold_class=grade_class(gold_gain),
        llm_gain=llm_gain,
        llm_class=grade_class(llm_gain),
        llm_levels=np.isin(levels, llm_gain[llm_gain > 0]),
        layer=layer,
        sizes=np.bincount(layer),
        pi=np.asarray(pi, dtype=np.float64),
        top_start=top_start,
        top_run=run,
        top_discount=pool.discount[unit, run],
        run_scale=1.0 / np.maximum(pool.topic_counts, 1),
        moments={},
    )
    for weight_power, most in ((0, 2), (2, 2), (4, 4)):
        for j in range(most + 1):
            shared.moments[(weight_power, j)] = _moment(shared, weight_power, j)
    return shared


def _moment(shared: AuditPool, weight_power: int, j: int) -> np.ndarray:
    """(H, Q, C, R) Σ π^−weight_power · (g·d)^j over the stratum's pairs of the topic that the LLM
    grades at the class (j = 0: their weights, the same for every run)."""
    pool = shared.pool
    shape = (len(shared.sizes), pool.topics, len(shared.levels), pool.discount.shape[1])
    out = np.zeros(shape)
    graded = shared.llm_class >= 0
    weight = shared.pi**-weight_power
    if j == 0:
        index = (shared.layer[graded], pool.topic[graded], shared.llm_class[graded])
        flat = np.zeros(shape[:3])
        np.add.at(flat, index, weight[graded])
        out[...] = flat[..., None]
        return out
    unit = np.repeat(np.arange(len(shared.pi)), np.diff(shared.top_start))
    on = graded[unit]
    unit, run = unit[on], shared.top_run[on]
    values = weight[unit] * (shared.llm_gain[unit] * shared.top_discount[on]) ** j
    np.add.at(out, (shared.layer[unit], pool.topic[unit], shared.llm_class[unit], run), values)
    return out


class Point(NamedTuple):
    """Each audit's linearisation point (`ppi_ratio.linearise`), (T, Q, ·)."""

    inverse: np.ndarray  # (T, Q, R) 1/Î where the topic counts for the run, else 0
    ratio_weight: np.ndarray  # (T, Q, R) D̂/Î²
    slope: np.ndarray  # (T, Q, G) ∂I/∂N_g
    constant: np.ndarray  # (T, R) c


def llm_population(shared: AuditPool, point: Point, drawn: np.ndarray) -> list[LlmPopulation]:
    """Per stratum, the population mean and variance of b and the pair pseudo-unit's square, by audit."""
    s = shared.run_scale
    power = _Powers(point)
    total = _power_sum(shared, power, 0, 1)
    squares = _power_sum(shared, power, 0, 2)
    weighted_squares = _power_sum(shared, power, 2, 2)
    weighted_fourths = _power_sum(shared, power, 4, 4)
    found = []
    for h, size in enumerate(shared.sizes):
        mean = s * total[:, h] / size
        with np.errstate(invalid="ignore", divide="ignore"):
            spread = (
                np.maximum(s**2 * squares[:, h] - size * mean**2, 0.0) / (size - 1) if size > 1 else np.zeros_like(mean)
            )
            share = (drawn[:, h] / size)[:, None]
            pair_squares = share**2 * s**2 * weighted_squares[:, h]
            pseudo = np.where(pair_squares > 0, share**4 * s**4 * weighted_fourths[:, h] / pair_squares, 0.0)
        found.append(LlmPopulation(mean, spread, pseudo))
    return found


class _Powers:
    """Powers of an audit's 1/Î, D̂/Î² (T, Q, R) and σ (T, Q, G), each computed once."""

    def __init__(self, point: Point) -> None:
        self._inverse = [np.ones_like(point.inverse), point.inverse]
        self._ratio = [np.ones_like(point.ratio_weight), point.ratio_weight]
        self._slope = [np.ones_like(point.slope), point.slope]
        self._factors: dict[tuple[int, int], np.ndarray] = {}
        self._slopes: dict[int, np.ndarray] = {}

    @staticmethod
    def _nth(powers: list[np.ndarray], n: int) -> np.ndarray:
        while len(powers) <= n:
            powers.append(powers[-1] * powers[1])
        return powers[n]

    def factor(self, j: int, k: int) -> np.ndarray:
        """(T, Q, R) (1/Î)^j · (D̂/Î²)^k."""
        if (j, k) not in self._factors:
            self._factors[(j, k)] = self._nth(self._inverse, j) * self._nth(self._ratio, k)
        return self._factors[(j, k)]

    def slope(self, k: int) -> np.ndarray:
        """(Q, T, G) σ^k, topics first (the batch axis of a product over grades)."""
        if k not in self._slopes:
            self._slopes[k] = np.ascontiguousarray(self._nth(self._slope, k).transpose(1, 0, 2))
        return self._slopes[k]


def _power_sum(shared: AuditPool, power: _Powers, weight_power: int, p: int) -> np.ndarray:
    """(T, H, R) Σ_i π_i^−weight_power (x_ir − y_ir)^p over each stratum's pairs the LLM grades
    (b = s·(x − y); a pair it does not grade has b = 0), the binomial expansion over the moments."""
    strata, topics, grades, runs = shared.moments[(weight_power, 0)].shape
    total: np.ndarray | None = None
    for j in range(p + 1):
        k = p - j  # the power of y = σ · D̂/Î²
        moment = shared.moments[(weight_power, j)]  # (H, Q, C, R)
        by_topic = moment.transpose(1, 2, 0, 3).reshape(topics, grades, strata * runs)
        by_grade = (power.slope(k) @ by_topic).reshape(topics, -1, strata, runs)  # (Q, T, H, R)
        term = comb(p, j) * (-1) ** k * np.einsum("tqr,qthr->thr", power.factor(j, k), by_grade)
        total = term if total is None else total + term
    assert total is not None
    return total
