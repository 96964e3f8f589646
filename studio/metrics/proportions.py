"""Intervals for proportions and their difference: Wilson's score interval (Wilson 1927) and
Newcombe's hybrid score interval for a difference of two independent proportions (Newcombe 1998,
method 10), both sound at small counts and near 0 or 1 where the normal approximation is not."""

from __future__ import annotations

import math
from statistics import NormalDist


def z_of(level: float) -> float:
    """The standard normal quantile of a two-sided interval at `level`."""
    # The standard library's normal quantile: scipy stays out of the studio's start-up.
    return NormalDist().inv_cdf(0.5 + level / 2)


def wilson(successes: int, trials: int, level: float = 0.95) -> tuple[float, float]:
    """Wilson's score interval of successes / trials (NaN, NaN without a trial)."""
    if trials <= 0:
        return math.nan, math.nan
    z = z_of(level)
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def newcombe_difference(
    first: int, first_trials: int, second: int, second_trials: int, level: float = 0.95
) -> tuple[float, float, float]:
    """p1 − p2 with Newcombe's hybrid score interval (from each proportion's Wilson interval)."""
    if first_trials <= 0 or second_trials <= 0:
        return math.nan, math.nan, math.nan
    p1, p2 = first / first_trials, second / second_trials
    l1, u1 = wilson(first, first_trials, level)
    l2, u2 = wilson(second, second_trials, level)
    difference = p1 - p2
    low = difference - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    high = difference + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    return difference, low, high
