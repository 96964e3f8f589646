"""Reliability of several coders (prompts, judges) over the same units: Krippendorff's α for any
number of coders with missing values.

The α follows Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability": values are
pooled into a coincidence matrix over all pairable values (units coded by at least two coders),
with the nominal, ordinal or interval difference function.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

Level = Literal["nominal", "ordinal", "interval"]


def _coincidences(data: np.ndarray, values: np.ndarray) -> np.ndarray:
    """o[c, k]: how often values c and k are paired within units, each unit weighted by 1/(m_u − 1)."""
    k = len(values)
    index = {v: i for i, v in enumerate(values.tolist())}
    o = np.zeros((k, k))
    for unit in data.T:
        coded = unit[~np.isnan(unit)]
        m = len(coded)
        if m < 2:
            continue
        counts = np.zeros(k)
        for v in coded.tolist():
            counts[index[v]] += 1
        o += (np.outer(counts, counts) - np.diag(counts)) / (m - 1)
    return o


def _differences(values: np.ndarray, totals: np.ndarray, level: Level) -> np.ndarray:
    k = len(values)
    if level == "nominal":
        return (np.arange(k)[:, None] != np.arange(k)[None, :]).astype(np.float64)
    if level == "interval":
        return (values[:, None] - values[None, :]) ** 2
    delta = np.zeros((k, k))
    for c in range(k):
        for d in range(k):
            low, high = min(c, d), max(c, d)
            delta[c, d] = (totals[low : high + 1].sum() - (totals[low] + totals[high]) / 2) ** 2
    return delta


def krippendorff_alpha(data: np.ndarray, level: Level = "nominal") -> float:
    """α of a coders × units matrix (NaN = not coded): 1 − D_observed / D_expected; 1 for perfect
    agreement, ~0 for chance; NaN when fewer than two pairable values or no variation."""
    data = np.asarray(data, dtype=np.float64)
    if data.ndim != 2:
        raise ValueError("reliability data must be a coders × units matrix")
    values = np.unique(data[~np.isnan(data)])
    if len(values) == 0:
        return float("nan")
    o = _coincidences(data, values)
    totals = o.sum(axis=1)
    n = totals.sum()
    if n < 2:
        return float("nan")
    if len(values) == 1:
        return 1.0
    delta = _differences(values, totals, level)
    observed = (o * delta).sum()
    expected = (np.outer(totals, totals) * delta).sum() / (n - 1)
    return float("nan") if expected == 0 else float(1.0 - observed / expected)
