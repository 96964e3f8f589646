"""The anchoring effect: how often people give the LLM's grade when they see it, against how often
they give it when they do not.

Under post-editing the LLM's grade is on screen; under manual and filtering it never is. On the
pairs the LLM calls relevant (the only ones post-editing shows), the share of grades equal to the
LLM's is compared between the two: `visible` (post-editing) and `hidden` (manual and filtering).
Their difference comes with Newcombe's hybrid score interval. Read as a mixture, where a share
`a` of the people's grades simply keep the LLM's and the rest agree with it by chance as often as
unseen grades do, `visible = a + (1 − a)·hidden`, so `a = (visible − hidden) / (1 − hidden)`: the
anchoring rate, with a parametric bootstrap interval (both shares redrawn from their binomials).

The conditions stand on disjoint topics (as in the study this follows), so a difference also
carries the topics' own difference in how easy the LLM's grade is to agree with; with many topics
drawn at random for each condition that part averages out.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from studio.domain.campaigns import Anchoring, Condition, Proportion
from studio.metrics.proportions import newcombe_difference, wilson

LEVEL = 0.95
RESAMPLES = 4000
BASIS = "grades of the pairs the LLM calls relevant: post-editing (grade shown) against manual and filtering (hidden)"


@dataclass(frozen=True)
class SeenGrade:
    """One assessor's grade of a pair, the LLM's grade of it, and whether it was on screen."""

    grade: float
    llm: float
    visible: bool


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def proportion(same: int, pairs: int) -> Proportion:
    low, high = wilson(same, pairs, LEVEL)
    return Proportion(
        pairs=pairs,
        same_as_llm=same,
        share=same / pairs if pairs else None,
        low=_finite(low),
        high=_finite(high),
    )


def anchoring_rate(visible: tuple[int, int], hidden: tuple[int, int], *, seed: int = 0) -> tuple[float, float, float]:
    """(visible − hidden) / (1 − hidden) and its bootstrap interval; NaNs when it is undefined."""
    (same_v, n_v), (same_h, n_h) = visible, hidden
    if not n_v or not n_h or same_h == n_h:
        return math.nan, math.nan, math.nan
    p_v, p_h = same_v / n_v, same_h / n_h
    rng = np.random.default_rng(seed)
    draws_v = rng.binomial(n_v, p_v, RESAMPLES) / n_v
    draws_h = rng.binomial(n_h, p_h, RESAMPLES) / n_h
    usable = draws_h < 1
    rates = (draws_v[usable] - draws_h[usable]) / (1 - draws_h[usable])
    tail = (1 - LEVEL) / 2 * 100
    return (p_v - p_h) / (1 - p_h), float(np.percentile(rates, tail)), float(np.percentile(rates, 100 - tail))


def anchoring(grades: Iterable[SeenGrade], *, seed: int = 0) -> Anchoring:
    """The shares of grades equal to the LLM's, seen and unseen, their difference and the rate."""
    seen = [g for g in grades]
    same_v = sum(g.grade == g.llm for g in seen if g.visible)
    n_v = sum(g.visible for g in seen)
    same_h = sum(g.grade == g.llm for g in seen if not g.visible)
    n_h = len(seen) - n_v
    difference, low, high = newcombe_difference(same_v, n_v, same_h, n_h, LEVEL)
    rate, rate_low, rate_high = anchoring_rate((same_v, n_v), (same_h, n_h), seed=seed)
    return Anchoring(
        basis=BASIS,
        visible=proportion(same_v, n_v),
        hidden=proportion(same_h, n_h),
        difference=_finite(difference),
        low=_finite(low),
        high=_finite(high),
        anchoring_rate=_finite(rate),
        rate_low=_finite(rate_low),
        rate_high=_finite(rate_high),
    )


def counted(condition: Condition, llm: float | None, level: float) -> bool:
    """Whether a grade under `condition` of a pair the LLM graded `llm` enters the comparison: the
    pairs post-editing would show (the LLM calls them relevant), under any condition."""
    return llm is not None and llm >= level
