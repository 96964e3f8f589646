"""Sizing the designs an LLM-only signal sets (`studio audit plan --target-width`): the design effect
of `pairs-uncertainty` is the Horvitz–Thompson variance ratio a simulation of its draws gives, 1
when the predicted errors are all alike; a `topics-neyman` plan covers every topic of its strata."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from helpers import known

from studio import Project
from studio.domain.errors import UsageError
from studio.metrics import unequal_sampling as us
from studio.services.audit.adaptive_sizes import uncertainty_design_effect


def test_alike_predicted_errors_have_no_design_effect() -> None:
    assert uncertainty_design_effect(np.full(50, 0.7), 0.1) == pytest.approx(1.0)


def test_the_design_effect_is_the_variance_ratio_of_simulated_draws() -> None:
    rng = np.random.default_rng(4)
    count, draws, trials = 400, 40, 20000
    scores = np.where(rng.random(count) < 0.2, 1.5, 0.3)  # one pair in five is predicted to be off
    errors = scores * rng.choice([-1.0, 1.0], count)  # and is off by about what is predicted
    q = us.mixed_probabilities(scores, 1)

    def variance(p: np.ndarray) -> float:
        chosen = rng.choice(count, size=(trials, draws), p=p)  # with replacement: the approximation's own design
        return float((errors[chosen] / (count * p[chosen])).mean(axis=1).var())

    simulated = variance(q) / variance(np.full(count, 1.0 / count))
    assert uncertainty_design_effect(scores, float(errors.mean())) == pytest.approx(simulated, rel=0.05)
    assert simulated < 0.8  # drawing where the errors are pays


def test_a_width_plan_sizes_both_designs(sample: Path) -> None:
    with Project.open(sample) as project:
        plan = project.audit_budget("umbrela-smol", "human", 0.2, measure="nDCG@10")
    by_design = {row["design"]: row for row in plan["designs"]}
    neyman, uncertain = by_design["topics-neyman"], by_design["pairs-uncertainty"]
    assert 2 <= known(neyman["needed"]) <= neyman["population"]
    assert sum(row["topics"] for row in plan["topic_strata"]) == neyman["population"]
    # The label distributions predict errors of different sizes: the design effect is below 1 here.
    assert known(uncertain["needed"]) <= known(by_design["pairs"]["needed"])
    assert known(uncertain["sd"]) <= known(by_design["pairs"]["sd"])


@pytest.mark.parametrize("width", [1e-300, 1e308, float("inf")])
def test_an_extreme_width_gives_the_whole_pool_or_the_least_sample_never_an_overflow(
    sample: Path, width: float
) -> None:
    with Project.open(sample) as project:
        plan = project.audit_budget("umbrela-smol", "human", width, measure="nDCG@10")
    for row in plan["designs"]:
        assert row["needed"] is None or 1 <= row["needed"] <= row["population"]
        if width < 1:  # all but rounding: Neyman's formula at zero width is the census, near enough
            assert known(row["needed"]) >= 0.99 * row["population"]


@pytest.mark.parametrize("width", [0.0, -0.1, float("nan")])
def test_a_width_that_is_no_positive_number_is_refused(sample: Path, width: float) -> None:
    with Project.open(sample) as project, pytest.raises(UsageError, match="positive number"):
        project.audit_budget("umbrela-smol", "human", width)
