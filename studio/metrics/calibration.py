"""Calibration maps from an LLM's grade (or its expected grade under its label distribution) to
people's grades: isotonic regression and a proportional-odds (cumulative logit) model.

A map is fitted on (x, gold) pairs and predicts a fractional gold grade (`value`); `grade` puts
that on the gold scale. Maps serialise to plain dicts so the project can keep them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

METHODS = ("isotonic", "ordinal")


def pava(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Isotonic (non-decreasing) least-squares fit of y on x: (distinct x ascending, fitted y)."""
    xs, inverse = np.unique(np.asarray(x, dtype=np.float64), return_inverse=True)
    weights = np.bincount(inverse).astype(np.float64)
    means = np.bincount(inverse, weights=np.asarray(y, dtype=np.float64)) / weights
    # Pool adjacent violators: blocks of (mean, weight, how many distinct x), merged backwards.
    block_mean: list[float] = []
    block_weight: list[float] = []
    block_size: list[int] = []
    for mean, weight in zip(means.tolist(), weights.tolist(), strict=True):
        block_mean.append(mean)
        block_weight.append(weight)
        block_size.append(1)
        while len(block_mean) > 1 and block_mean[-2] > block_mean[-1]:
            w = block_weight[-2] + block_weight[-1]
            m = (block_mean[-2] * block_weight[-2] + block_mean[-1] * block_weight[-1]) / w
            size = block_size[-2] + block_size[-1]
            del block_mean[-1], block_weight[-1], block_size[-1]
            block_mean[-1], block_weight[-1], block_size[-1] = m, w, size
    return xs, np.repeat(np.array(block_mean), block_size)


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return np.asarray(0.5 * (1.0 + np.tanh(0.5 * z)))


def _cumulative(params: np.ndarray, x: np.ndarray) -> np.ndarray:
    """P(gold ≤ level k | x) for every level but the top: σ(θ_k − βx), θ increasing."""
    slope, first, steps = params[0], params[1], params[2:]
    thresholds = first + np.concatenate([[0.0], np.cumsum(np.exp(steps))])
    return _sigmoid(thresholds[None, :] - slope * x[:, None])


def _level_probabilities(params: np.ndarray, x: np.ndarray) -> np.ndarray:
    below = _cumulative(params, x)
    ones = np.ones((len(x), 1))
    upper = np.hstack([below, ones])
    lower = np.hstack([np.zeros((len(x), 1)), below])
    return np.clip(upper - lower, 1e-12, 1.0)


def proportional_odds(x: np.ndarray, y: np.ndarray, levels: Sequence[float]) -> np.ndarray:
    """Maximum-likelihood cumulative-logit parameters (β, θ₁, log steps) with a small ridge, which
    keeps the fit finite when the grades separate perfectly."""
    # scipy is imported when a model is fitted: at module level it would slow every start.
    from scipy.optimize import minimize

    index = np.searchsorted(np.asarray(levels), np.asarray(y, dtype=np.float64))
    x = np.asarray(x, dtype=np.float64)
    rows = np.arange(len(x))

    def loss(params: np.ndarray) -> float:
        return float(-np.log(_level_probabilities(params, x)[rows, index]).sum() + 1e-3 * (params @ params))

    start = np.concatenate([[1.0, 0.0], np.zeros(len(levels) - 2)])
    found = minimize(loss, start, method="L-BFGS-B")
    return np.asarray(found.x, dtype=np.float64)


@dataclass(frozen=True)
class CalibrationMap:
    """A fitted map: isotonic points (xs → ys) or proportional-odds parameters."""

    method: str
    levels: tuple[float, ...]  # the gold grades seen in fitting, ascending
    xs: tuple[float, ...] = ()
    ys: tuple[float, ...] = ()
    params: tuple[float, ...] = ()

    def value(self, x: np.ndarray) -> np.ndarray:
        """The fractional gold grade of each x: the isotonic fit (linear between fitted points,
        flat beyond them), or the median gold grade under the ordinal model."""
        x = np.asarray(x, dtype=np.float64)
        if len(self.levels) == 1:
            return np.full(len(x), self.levels[0])
        if self.method == "isotonic":
            return np.asarray(np.interp(x, self.xs, self.ys))
        # The median: the lowest level whose cumulative probability reaches one half; the natural
        # point prediction of a cumulative-link model (it minimises the expected absolute error).
        below = _cumulative(np.asarray(self.params), x)
        reached = np.hstack([below >= 0.5, np.ones((len(x), 1), dtype=bool)])
        return np.asarray(self.levels)[np.argmax(reached, axis=1)]

    def grade(self, x: np.ndarray) -> np.ndarray:
        """`value` put on the gold scale: the nearest gold grade (ties to the lower)."""
        return snap(self.value(x), self.levels)

    def as_dict(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "levels": list(self.levels),
            "xs": list(self.xs),
            "ys": list(self.ys),
            "params": list(self.params),
        }

    @classmethod
    def from_dict(cls, found: Mapping[str, Any]) -> CalibrationMap:
        return cls(
            str(found["method"]),
            tuple(found["levels"]),
            tuple(found.get("xs", ())),
            tuple(found.get("ys", ())),
            tuple(found.get("params", ())),
        )


def snap(values: np.ndarray, levels: Sequence[float]) -> np.ndarray:
    grid = np.asarray(levels, dtype=np.float64)
    distance = np.abs(np.asarray(values, dtype=np.float64)[:, None] - grid[None, :])
    return np.asarray(grid[np.argmin(distance + 1e-9 * np.arange(len(grid))[None, :], axis=1)])


def fit_map(method: str, x: np.ndarray, y: np.ndarray) -> CalibrationMap:
    """Fit `method` (isotonic or ordinal) of gold grades `y` on LLM values `x`."""
    if method not in METHODS:
        raise ValueError(f"unknown calibration method {method!r} (known: {', '.join(METHODS)})")
    if len(x) == 0:
        raise ValueError("no pairs to fit a calibration map on")
    levels = tuple(float(v) for v in np.unique(np.asarray(y, dtype=np.float64)))
    if len(levels) == 1:
        return CalibrationMap(method, levels)
    if method == "isotonic":
        xs, ys = pava(x, y)
        return CalibrationMap(method, levels, tuple(xs.tolist()), tuple(ys.tolist()))
    return CalibrationMap(method, levels, params=tuple(proportional_odds(x, y, levels).tolist()))


def topic_folds(topics: Sequence[str], folds: int, seed: int) -> dict[str, int]:
    """Each topic's fold (0 … folds−1): topics shuffled with `seed`, then dealt round-robin, so a
    topic's pairs stay together and the folds differ in size by at most one topic."""
    ordered = sorted(set(topics), key=lambda q: q.encode("utf-8"))
    order = np.random.default_rng(seed).permutation(len(ordered))
    return {ordered[i]: position % folds for position, i in enumerate(order.tolist())}


def cross_fit(method: str, x: np.ndarray, y: np.ndarray, fold: np.ndarray) -> np.ndarray:
    """Out-of-fold gold grades: each fold predicted by the map fitted on the other folds."""
    predicted = np.full(len(x), np.nan)
    for k in np.unique(fold).tolist():
        held = fold == k
        predicted[held] = fit_map(method, x[~held], y[~held]).grade(x[held])
    return predicted


def curve(x: np.ndarray, y: np.ndarray, fitted: CalibrationMap, *, bins: int = 6) -> list[dict[str, float]]:
    """Calibration curve: per bin of the LLM value, its range, pair count, mean LLM value, mean gold
    grade and the fitted map's value there. One bin per value when the values are grades (few
    distinct); else equal-count bins."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    distinct = np.unique(x)
    if len(distinct) <= bins:
        groups = [(float(v), float(v), x == v) for v in distinct.tolist()]
    else:
        edges = np.unique(np.quantile(x, np.linspace(0.0, 1.0, bins + 1)))
        groups = []
        for i, (lo, hi) in enumerate(zip(edges[:-1].tolist(), edges[1:].tolist(), strict=True)):
            mask = (x >= lo) & ((x <= hi) if i == len(edges) - 2 else (x < hi))
            groups.append((lo, hi, mask))
    rows = []
    for lo, hi, mask in groups:
        if not mask.any():
            continue
        mean_x = float(x[mask].mean())
        rows.append(
            {
                "low": lo,
                "high": hi,
                "pairs": int(mask.sum()),
                "mean_llm": round(mean_x, 4),
                "mean_gold": round(float(y[mask].mean()), 4),
                "fitted": round(float(fitted.value(np.array([mean_x]))[0]), 4),
            }
        )
    return rows


def finite(value: float) -> float | None:
    return None if math.isnan(value) else round(float(value), 4)
