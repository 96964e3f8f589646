"""The anchoring estimate on simulated assessors: people whose grade agrees with the LLM's by chance
as often whether they see it or not, and who, when they see it, keep it at a known rate. Topics
differ in how often the LLM's grade is right, as real topics do; the estimate's topic-resampled
interval holds the known rate, and holds 0 for people who are not anchored at all."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from statsmodels.stats.proportion import (  # type: ignore[import-untyped]  # ships no types
    confint_proportions_2indep,
    proportion_confint,
)

from studio.domain.campaign_report import Anchoring
from studio.metrics.proportions import newcombe_difference, wilson
from studio.services.campaigns.anchoring import SeenGrade, anchoring


def simulated(rate: float, seed: int, topics: int = 40, pairs: int = 25) -> list[SeenGrade]:
    """Half the topics seen (post-editing), half not; per topic the chance that the person's own
    grade equals the LLM's varies between 0.15 and 0.65."""
    rng = np.random.default_rng(seed)
    grades = []
    for t in range(2 * topics):
        visible = t < topics
        agree = rng.uniform(0.15, 0.65)
        for _ in range(pairs):
            llm = float(rng.integers(1, 4))
            own = llm if rng.random() < agree else float(rng.choice([g for g in (0.0, 1.0, 2.0, 3.0) if g != llm]))
            kept = visible and rng.random() < rate
            grades.append(SeenGrade(f"t{t}", llm if kept else own, llm, visible))
    return grades


def covers(found: Anchoring, rate: float) -> bool:
    low, high = found["rate_low"], found["rate_high"]
    assert low is not None and high is not None
    return low <= rate <= high


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("rate", [0.0, 0.2, 0.5])
def test_the_interval_of_the_anchoring_rate_holds_the_simulated_rate(rate: float, seed: int) -> None:
    found = anchoring(simulated(rate, seed), seed=seed)
    assert covers(found, rate)
    assert found["topics_visible"] == found["topics_hidden"] == 40


def test_people_who_are_not_anchored_are_told_apart_from_people_who_are() -> None:
    assert covers(anchoring(simulated(0.0, 4)), 0.0)
    strong = anchoring(simulated(0.4, 4))
    assert not covers(strong, 0.0)
    low = strong["low"]
    assert low is not None and low > 0  # the difference itself is above 0


def test_the_topic_interval_is_wider_than_one_that_takes_every_grade_as_independent() -> None:
    found = anchoring(simulated(0.2, 5))
    low, high, pair_low, pair_high = found["low"], found["high"], found["pair_low"], found["pair_high"]
    assert low is not None and high is not None and pair_low is not None and pair_high is not None
    assert high - low > pair_high - pair_low


def test_without_grades_on_either_side_every_figure_is_null() -> None:
    found = anchoring([SeenGrade("t", 1.0, 1.0, True)])
    assert found["hidden"]["pairs"] == 0 and found["difference"] is None and found["rate_low"] is None


@given(st.integers(0, 60), st.integers(1, 60))
def test_wilson_equals_statsmodels(successes: int, trials: int) -> None:
    successes = min(successes, trials)
    expected = proportion_confint(successes, trials, alpha=0.05, method="wilson")
    assert wilson(successes, trials) == pytest.approx(expected, abs=1e-12)


@given(st.integers(0, 40), st.integers(1, 40), st.integers(0, 40), st.integers(1, 40))
def test_newcombe_equals_statsmodels(first: int, first_trials: int, second: int, second_trials: int) -> None:
    first, second = min(first, first_trials), min(second, second_trials)
    low, high = confint_proportions_2indep(first, first_trials, second, second_trials, method="newcomb", compare="diff")
    difference, found_low, found_high = newcombe_difference(first, first_trials, second, second_trials)
    assert difference == pytest.approx(first / first_trials - second / second_trials)
    assert (found_low, found_high) == pytest.approx((low, high), abs=1e-9)
