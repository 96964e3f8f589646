"""Leaderboards of generative systems: a label set's grades of their answers, averaged over topics,
with a percentile bootstrap interval over topics."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np


def answer_leaderboard(
    grades: Mapping[str, Mapping[str, float]],
    *,
    resamples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> list[dict[str, float | int | str]]:
    """{system: {qid: grade}} -> rows (best first) with the mean over the system's topics and a
    bootstrap interval from resampling those topics with replacement (seeded)."""
    rng = np.random.default_rng(seed)
    rows: list[dict[str, float | int | str]] = []
    tail = (1 - level) / 2 * 100
    for system, by_topic in grades.items():
        values = np.array([by_topic[q] for q in sorted(by_topic, key=lambda q: q.encode("utf-8"))], dtype=float)
        if len(values) == 0:
            continue
        means = values[rng.integers(0, len(values), size=(resamples, len(values)))].mean(axis=1)
        low, high = np.percentile(means, [tail, 100 - tail])
        rows.append(
            {
                "system": system,
                "mean": float(values.mean()),
                "low": float(low),
                "high": float(high),
                "topics": len(values),
            }
        )
    rows.sort(key=lambda r: (-float(r["mean"]), str(r["system"])))
    return rows


def bootstrap_interval(
    values: np.ndarray, *, resamples: int = 1000, seed: int = 0, level: float = 0.95
) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of `values` (one per topic): `resamples` resamples
    of the topics with replacement drawn by `np.random.default_rng(seed).integers(0, n, (resamples, n))`,
    the interval the (1 − level)/2 and (1 + level)/2 percentiles of their means (numpy's linear
    interpolation). Every system gets a fresh generator of the same seed, so systems with the same
    topics are resampled alike."""
    values = np.asarray(values, dtype=np.float64)
    if len(values) == 0:
        return float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    means = values[rng.integers(0, len(values), size=(resamples, len(values)))].mean(axis=1)
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    return float(low), float(high)
