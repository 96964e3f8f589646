"""The default cross-fitted estimator on synthetic populations, seeded and small: it keeps its
coverage, gains width with a judge that predicts the gold values, costs nothing with one that
does not, and is the gold sample alone when the sample is too small to fit the LLM's weight."""

from __future__ import annotations

import numpy as np
import pytest

from studio.metrics import ppi

UNITS, RUNS, TRIALS = 200, 4, 2000


def _population(noise: float, seed: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """Gold contributions a and LLM ones b of a topic-mean measure (LLM value = gold value plus
    normal noise), each column a run of its own quality."""
    rng = np.random.default_rng(seed)
    gold = np.clip(rng.beta(2, 2, (UNITS, 1)) + np.linspace(-0.2, 0.2, RUNS)[None, :], 0, 1)
    llm = np.clip(gold + rng.normal(0.0, noise, gold.shape), 0, 1)
    return gold / UNITS, llm / UNITS


def test_a_good_judge_narrows_the_interval_and_keeps_coverage() -> None:
    a, b = _population(noise=0.08)
    found = ppi.simulate(a, b, budget=30, trials=TRIALS, seed=1, estimator="cross-fit").summary()
    # 2000 trials: a coverage's Monte-Carlo error is about 0.005.
    assert found["coverage"] >= 0.93 and found["min_run_coverage"] >= 0.92
    assert found["width_ratio"] < 0.6
    assert 0.5 < found["mean_lambda"] <= 1.0


def test_a_judge_against_the_grades_is_the_gold_sample_alone() -> None:
    a, _ = _population(noise=0.08)
    inverted = a.max() - a  # high where the gold value is low: the fitted weight clips to 0
    found = ppi.simulate(a, inverted, budget=30, trials=TRIALS, seed=2, estimator="cross-fit").summary()
    assert found["mean_lambda"] == 0.0
    assert found["width_ratio"] == pytest.approx(1.0)
    assert found["coverage"] == pytest.approx(found["gold_coverage"])
    plain = ppi.simulate(a, inverted, budget=30, trials=TRIALS, seed=2, estimator="ppi").summary()
    assert plain["width_ratio"] > 1.5


def test_an_unrelated_judge_costs_little() -> None:
    a, _ = _population(noise=0.08)
    unrelated = np.random.default_rng(9).random(a.shape) / UNITS
    found = ppi.simulate(a, unrelated, budget=30, trials=TRIALS, seed=3, estimator="cross-fit").summary()
    assert found["width_ratio"] <= 1.03
    assert found["coverage"] >= 0.93


@pytest.mark.parametrize("budget", [2, ppi.MIN_CROSS_FIT_UNITS - 1])
def test_too_few_gold_units_to_fit_the_weight_give_the_gold_only_interval(budget: int) -> None:
    a, b = _population(noise=0.08)
    found = ppi.simulate(a, b, budget=budget, trials=200, seed=4, estimator="cross-fit")
    assert found.lam == 0.0
    np.testing.assert_allclose(found.width, found.gold_width)
    enough = ppi.simulate(a, b, budget=ppi.MIN_CROSS_FIT_UNITS, trials=200, seed=4, estimator="cross-fit")
    assert enough.lam > 0.5 and (enough.width < enough.gold_width).all()


def test_the_fitted_weight_costs_a_degree_of_freedom_only_when_it_is_used() -> None:
    a, b = _population(noise=0.08)
    mask = ppi.draw_samples(UNITS, 12, 1, seed=5)
    pi = ppi.inclusion(mask)
    crossed = ppi.estimate_totals(mask, a, b, pi, estimator="cross-fit")
    fixed = ppi.estimate_totals(mask, a, b, pi, estimator="ppi")
    gold = ppi.estimate_totals(mask, a, None, pi)
    # Half-width over se is the t quantile: n − 2 degrees of freedom with λ fitted, n − 1 without.
    np.testing.assert_allclose((crossed.high - crossed.estimate) / crossed.se, ppi.t_quantile(0.975, np.array(10)))
    np.testing.assert_allclose((fixed.high - fixed.estimate) / fixed.se, ppi.t_quantile(0.975, np.array(11)))
    np.testing.assert_allclose((gold.high - gold.estimate) / gold.se, ppi.t_quantile(0.975, np.array(11)))
