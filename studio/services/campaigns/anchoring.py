"""The anchoring effect: how often people give the LLM's grade when they see it, against how often
they give it when they do not.

Under post-editing the LLM's grade is on screen; under manual and filtering it never is. On the
pairs the LLM calls relevant (the only ones post-editing shows), the share of grades equal to the
LLM's is compared between the two: `visible` (post-editing) and `hidden` (manual and filtering).
Read as a mixture, where a share `a` of the people's grades simply keep the LLM's and the rest
agree with it as often as unseen grades do, `visible = a + (1 − a)·hidden`, so
`a = (visible − hidden) / (1 − hidden)`: the anchoring rate.

The conditions stand on disjoint topics (as in the study this follows), so the difference also
carries the topics' own difference in how easy the LLM's grade is to agree with, and the grades of
one topic move together. The intervals of the difference and of the rate therefore resample
topics (a percentile bootstrap, topics drawn with replacement within each side); Newcombe's
hybrid score interval, which takes every grade as independent, is given beside them
(`pair_low`, `pair_high`): on TREC DL's NIST grades, with no anchoring at all, the difference
between disjoint topic sets reaches ±0.06 and lies outside Newcombe's interval, not the topics'.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from studio.domain.campaign_report import Anchoring, Proportion
from studio.domain.campaigns import Condition
from studio.metrics.proportions import newcombe_difference, wilson

LEVEL = 0.95
RESAMPLES = 4000
BASIS = "grades of the pairs the LLM calls relevant: post-editing (grade shown) against manual and filtering (hidden)"


@dataclass(frozen=True)
class SeenGrade:
    """One assessor's grade of a pair, the LLM's grade of it, and whether it was on screen."""

    topic: str
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


@dataclass(frozen=True)
class _Group:
    """One side's grades counted per topic: grades equal to the LLM's, and grades."""

    same: np.ndarray
    graded: np.ndarray

    @classmethod
    def of(cls, grades: list[SeenGrade]) -> _Group:
        topics = sorted({g.topic for g in grades})
        index = {t: i for i, t in enumerate(topics)}
        same, graded = np.zeros(len(topics)), np.zeros(len(topics))
        for g in grades:
            graded[index[g.topic]] += 1
            same[index[g.topic]] += g.grade == g.llm
        return cls(same, graded)

    def share(self) -> float:
        return float(self.same.sum() / self.graded.sum()) if self.graded.sum() else math.nan

    def resampled(self, rng: np.random.Generator) -> np.ndarray:
        """The share in RESAMPLES draws of the topics with replacement."""
        drawn = rng.integers(0, len(self.graded), (RESAMPLES, len(self.graded)))
        graded = self.graded[drawn].sum(axis=1)
        shares: np.ndarray = np.divide(
            self.same[drawn].sum(axis=1), graded, out=np.full(RESAMPLES, np.nan), where=graded > 0
        )
        return shares


def topic_bootstrap(visible: _Group, hidden: _Group, *, seed: int) -> tuple[float, float, float, float]:
    """Percentile intervals of visible − hidden and of the anchoring rate, topics resampled within
    each side (grades of one topic are not independent: its difficulty moves them together)."""
    if not len(visible.graded) or not len(hidden.graded):
        return math.nan, math.nan, math.nan, math.nan
    rng = np.random.default_rng(seed)
    p_v, p_h = visible.resampled(rng), hidden.resampled(rng)
    difference = p_v - p_h
    usable = np.isfinite(difference) & (p_h < 1)
    rate = difference[usable] / (1 - p_h[usable])
    tail = (1 - LEVEL) / 2 * 100
    low, high = np.percentile(difference[np.isfinite(difference)], [tail, 100 - tail])
    rate_low, rate_high = np.percentile(rate, [tail, 100 - tail]) if rate.size else (math.nan, math.nan)
    return float(low), float(high), float(rate_low), float(rate_high)


def anchoring(grades: Iterable[SeenGrade], *, seed: int = 0) -> Anchoring:
    """The shares of grades equal to the LLM's, seen and unseen, their difference and the rate."""
    seen = list(grades)
    visible = _Group.of([g for g in seen if g.visible])
    hidden = _Group.of([g for g in seen if not g.visible])
    same_v, n_v = int(visible.same.sum()), int(visible.graded.sum())
    same_h, n_h = int(hidden.same.sum()), int(hidden.graded.sum())
    difference, pair_low, pair_high = newcombe_difference(same_v, n_v, same_h, n_h, LEVEL)
    p_h = hidden.share()
    rate = difference / (1 - p_h) if n_h and p_h < 1 else math.nan
    low, high, rate_low, rate_high = topic_bootstrap(visible, hidden, seed=seed)
    return Anchoring(
        basis=BASIS,
        visible=proportion(same_v, n_v),
        hidden=proportion(same_h, n_h),
        difference=_finite(difference),
        low=_finite(low),
        high=_finite(high),
        pair_low=_finite(pair_low),
        pair_high=_finite(pair_high),
        anchoring_rate=_finite(rate),
        rate_low=_finite(rate_low),
        rate_high=_finite(rate_high),
        topics_visible=len(visible.graded),
        topics_hidden=len(hidden.graded),
    )


def counted(condition: Condition, llm: float | None, level: float) -> bool:
    """Whether a grade under `condition` of a pair the LLM graded `llm` enters the comparison: the
    pairs post-editing would show (the LLM calls them relevant), under any condition."""
    return llm is not None and llm >= level
