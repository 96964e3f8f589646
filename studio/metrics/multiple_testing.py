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
    """Adjusted p-values (a hypothesis is rejected at level α when its adjusted p ≤ α)."""
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


def rejected(adjusted: np.ndarray, alpha: float) -> np.ndarray:
    """Significant at level `alpha`: adjusted p ≤ α (never for an untested pair)."""
    return np.asarray(np.isfinite(adjusted) & (adjusted <= alpha))
