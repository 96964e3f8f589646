"""Corrections for testing many run pairs at once, as statsmodels' `multipletests` computes them.

* `bonferroni`: p·m, capped at 1 (family-wise error).
* `holm`: Holm's step-down (family-wise error, uniformly more powerful than Bonferroni): the k-th
  smallest p times (m − k + 1), made non-decreasing.
* `bh`: Benjamini–Hochberg (false discovery rate): the k-th smallest p times m/k, made
  non-increasing from the largest.
* `none`: the p-values as they are.

A NaN p-value (a pair that cannot be tested: fewer than two shared topics) is no hypothesis: it
stays NaN and does not count in m.
"""

from __future__ import annotations

import numpy as np

CORRECTIONS = ("holm", "bh", "bonferroni", "none")


def adjust(p_values: np.ndarray, method: str) -> np.ndarray:
    """Adjusted p-values (a hypothesis is rejected at level α when its adjusted p ≤ α, up to
    rounding: `rejected` decides)."""
    p = np.asarray(p_values, dtype=np.float64)
    result = np.full(p.shape, np.nan)
    tested = np.isfinite(p)
    result[tested] = _adjusted(p[tested], method)
    return result


def _adjusted(p: np.ndarray, method: str) -> np.ndarray:
    m = len(p)
    if method == "none":
        return p.copy()
    if method == "bonferroni":
        return np.minimum(p * m, 1.0)
    if m == 0:
        return p.copy()
    order = np.argsort(p, kind="mergesort")
    ranked = p[order]
    if method == "holm":
        stepped = np.minimum(np.maximum.accumulate(ranked * (m - np.arange(m))), 1.0)
    elif method == "bh":
        stepped = np.minimum(np.minimum.accumulate((ranked * m / np.arange(1, m + 1))[::-1])[::-1], 1.0)
    else:
        raise ValueError(f"unknown correction {method!r} ({', '.join(CORRECTIONS)})")
    result = np.empty(m)
    result[order] = stepped
    return result


def rejected(p_values: np.ndarray, method: str, alpha: float) -> np.ndarray:
    """Significant at level `alpha` after the correction (never an untested pair). Decided on the
    raw p-values against each step's threshold, as statsmodels decides, not by comparing the
    adjusted p with α: p·m/k can round to just above α where p ≤ α·k/m holds exactly."""
    p = np.asarray(p_values, dtype=np.float64)
    result = np.zeros(p.shape, dtype=bool)
    tested = np.isfinite(p)
    result[tested] = _rejected(p[tested], method, alpha)
    return result


def _rejected(p: np.ndarray, method: str, alpha: float) -> np.ndarray:
    m = len(p)
    if method == "none":
        return p <= alpha
    if method == "bonferroni":
        return p <= alpha / m if m else p <= alpha
    if m == 0:
        return np.zeros(0, dtype=bool)
    order = np.argsort(p, kind="mergesort")
    ranked = p[order]
    if method == "holm":
        # Step down: reject the smallest while each stays within α/(m − k); stop at the first that does not.
        failing = np.nonzero(ranked > alpha / (m - np.arange(m)))[0]
        keep = m if failing.size == 0 else int(failing[0])
        decided = np.arange(m) < keep
    elif method == "bh":
        # Step up: reject every p up to the largest k with p_(k) ≤ α·k/m.
        passing = np.nonzero(ranked <= alpha * np.arange(1, m + 1) / m)[0]
        decided = np.arange(m) <= (int(passing[-1]) if passing.size else -1)
    else:
        raise ValueError(f"unknown correction {method!r} ({', '.join(CORRECTIONS)})")
    result = np.empty(m, dtype=bool)
    result[order] = decided
    return result
