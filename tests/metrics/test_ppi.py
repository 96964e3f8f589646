"""Prediction-powered estimates against brute force: every sample of a small population."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
from scipy import stats

from studio.metrics import ppi


def _population(units: int = 9, runs: int = 3, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    gold = rng.random((units, runs))
    llm = np.clip(gold + rng.normal(0.1, 0.15, size=(units, runs)), 0, 1)
    return llm, gold


def _all_samples(units: int, n: int) -> np.ndarray:
    masks = np.zeros((len(list(combinations(range(units), n))), units))
    for row, chosen in enumerate(combinations(range(units), n)):
        masks[row, list(chosen)] = 1
    return masks


def test_one_sample_matches_the_written_out_formula() -> None:
    llm, gold = _population()
    sampled = np.zeros(9)
    sampled[[0, 3, 4, 7]] = 1
    a, b = ppi.topic_units(llm, gold)
    found = ppi.estimate_totals(sampled, a, b, np.full(9, 4 / 9))
    s = sampled.astype(bool)
    rectifier = gold[s] - llm[s]
    estimate = llm.mean(axis=0) + rectifier.mean(axis=0)
    se = np.sqrt((1 - 4 / 9) * rectifier.var(axis=0, ddof=1) / 4)
    half = stats.t.ppf(0.975, 3) * se
    np.testing.assert_allclose(found.estimate[0], estimate)
    np.testing.assert_allclose(found.low[0], estimate - half)
    np.testing.assert_allclose(found.high[0], estimate + half)
    gold_only = ppi.estimate_totals(sampled, a, None, np.full(9, 4 / 9))
    np.testing.assert_allclose(gold_only.estimate[0], gold[s].mean(axis=0))
    np.testing.assert_allclose(gold_only.se[0], np.sqrt((1 - 4 / 9) * gold[s].var(axis=0, ddof=1) / 4))


@pytest.mark.parametrize("n", [2, 4, 7])
def test_unbiased_and_variance_estimate_unbiased_over_every_sample(n: int) -> None:
    """Under SRSWOR the estimator's mean over all C(M, n) samples is the full-gold value, and
    the mean of the estimated variance is the estimator's exact variance (no LLM-term variance)."""
    llm, gold = _population()
    a, b = ppi.topic_units(llm, gold)
    masks = _all_samples(9, n)
    found = ppi.estimate_totals(masks, a, b, np.full(9, n / 9))
    np.testing.assert_allclose(found.estimate.mean(axis=0), gold.mean(axis=0))
    np.testing.assert_allclose((found.se**2).mean(axis=0), found.estimate.var(axis=0), rtol=1e-9)
    gold_only = ppi.estimate_totals(masks, a, None, np.full(9, n / 9))
    np.testing.assert_allclose(gold_only.estimate.mean(axis=0), gold.mean(axis=0))
    np.testing.assert_allclose((gold_only.se**2).mean(axis=0), gold_only.estimate.var(axis=0), rtol=1e-9)


def test_unequal_probabilities_are_horvitz_thompson_unbiased() -> None:
    """Poisson sampling with π_i: the mean over every subset, weighted by its probability, is θ."""
    llm, gold = _population(units=6)
    a, b = ppi.topic_units(llm, gold)
    pi = np.array([0.2, 0.5, 0.9, 0.4, 0.6, 0.3])
    total = np.zeros(3)
    for bits in range(1, 2**6):
        mask = np.array([(bits >> i) & 1 for i in range(6)], dtype=float)
        chance = np.prod(np.where(mask == 1, pi, 1 - pi))
        total += chance * ppi.estimate_totals(mask, a, b, pi).estimate[0]
    # The empty sample's estimate is the LLM value B (no rectifier).
    total += np.prod(1 - pi) * b.sum(axis=0)
    np.testing.assert_allclose(total, gold.mean(axis=0))


def test_full_sample_gives_the_truth_with_zero_width() -> None:
    llm, gold = _population()
    a, b = ppi.topic_units(llm, gold)
    found = ppi.estimate_totals(np.ones(9), a, b, np.ones(9))
    np.testing.assert_allclose(found.estimate[0], gold.mean(axis=0))
    np.testing.assert_allclose(found.high - found.low, 0, atol=1e-12)


def test_topics_a_run_skipped_are_outside_its_population() -> None:
    llm, gold = _population()
    llm[2, 0] = gold[2, 0] = np.nan
    a, b = ppi.topic_units(llm, gold)
    masks = _all_samples(9, 4)
    found = ppi.estimate_totals(masks, a, b, np.full(9, 4 / 9))
    np.testing.assert_allclose(found.estimate.mean(axis=0), np.nanmean(gold, axis=0))
    np.testing.assert_allclose(b.sum(axis=0), np.nanmean(llm, axis=0))


def test_precision_over_pairs_is_unbiased_and_equals_llm_precision_when_nothing_sampled() -> None:
    rng = np.random.default_rng(3)
    pairs, runs, k = 12, 2, 5
    in_top = rng.random((pairs, runs)) < 0.5
    llm_rel = (rng.random(pairs) < 0.4).astype(float)
    gold_rel = (rng.random(pairs) < 0.5).astype(float)
    counts = np.array([2, 2])
    a, b = ppi.pair_units(in_top, counts, k, llm_rel, gold_rel)
    np.testing.assert_allclose(b.sum(axis=0), (in_top * llm_rel[:, None]).sum(axis=0) / (2 * k))
    masks = _all_samples(pairs, 4)
    found = ppi.estimate_totals(masks, a, b, np.full(pairs, 4 / pairs))
    np.testing.assert_allclose(found.estimate.mean(axis=0), a.sum(axis=0))
    np.testing.assert_allclose((found.se**2).mean(axis=0), found.estimate.var(axis=0), rtol=1e-9)


def test_differences_of_runs_are_differences_of_estimates() -> None:
    llm, gold = _population()
    a, b = ppi.topic_units(llm, gold)
    i, j = ppi.column_pairs(3)
    mask = np.zeros(9)
    mask[[1, 2, 5, 8]] = 1
    per_run = ppi.estimate_totals(mask, a, b, np.full(9, 4 / 9))
    paired = ppi.estimate_totals(mask, ppi.differences(a, i, j), ppi.differences(b, i, j), np.full(9, 4 / 9))
    np.testing.assert_allclose(paired.estimate[0], per_run.estimate[0, i] - per_run.estimate[0, j])


def test_fitted_lambda_is_the_pooled_slope_clipped_to_the_unit_interval() -> None:
    llm, gold = _population(units=30)
    a, b = ppi.topic_units(llm, gold)
    mask = np.zeros(30)
    mask[:12] = 1
    found = ppi.estimate_totals(mask, a, b, np.full(30, 12 / 30), tuned=True)
    slope = sum(np.cov(gold[:12, r], llm[:12, r])[0, 1] for r in range(3)) / sum(
        llm[:, r].var(ddof=1) for r in range(3)
    )
    expected = float(np.clip(slope, 0, 1))
    np.testing.assert_allclose(found.lam[0], expected)
    np.testing.assert_allclose(
        found.estimate[0], expected * llm.mean(axis=0) + (gold[:12] - expected * llm[:12]).mean(axis=0)
    )
    inverted = ppi.estimate_totals(mask, a, -b, np.full(30, 12 / 30), tuned=True)
    scaled = ppi.estimate_totals(mask, a, 0.2 * b, np.full(30, 12 / 30), tuned=True)
    assert (inverted.lam == 0).all() and (scaled.lam == 1).all()


def test_cross_fit_is_never_worse_than_gold_with_a_useless_judge() -> None:
    """An LLM whose values are unrelated to gold: plain PPI widens the interval, the cross-fitted
    weight falls to about 0 and keeps the gold sample's width and coverage."""
    rng = np.random.default_rng(8)
    gold = rng.beta(2, 3, size=(300, 4))
    useless = rng.random((300, 4))
    a, b = ppi.topic_units(useless, gold)
    cross = ppi.simulate(a, b, budget=30, trials=300, seed=4, estimator="cross-fit").summary()
    plain = ppi.simulate(a, b, budget=30, trials=300, seed=4, estimator="ppi").summary()
    assert plain["width_ratio"] > 1.3
    assert cross["width_ratio"] <= 1.03 and cross["mean_lambda"] < 0.15
    assert cross["coverage"] >= 0.92


def test_cross_fit_keeps_coverage_and_narrows_with_a_good_judge() -> None:
    rng = np.random.default_rng(9)
    gold = rng.beta(2, 3, size=(300, 4))
    good = np.clip(gold + rng.normal(0, 0.08, size=gold.shape), 0, 1)
    a, b = ppi.topic_units(good, gold)
    cross = ppi.simulate(a, b, budget=30, trials=300, seed=5, estimator="cross-fit").summary()
    assert cross["coverage"] >= 0.92 and cross["width_ratio"] < 0.6 and 0.7 < cross["mean_lambda"] <= 1


def test_a_stratum_without_predictions_is_estimated_by_its_gold_sample() -> None:
    """Units the LLM lacks (b = 0) in a stratum of their own: over every stratified sample the
    estimate is unbiased and its variance estimate is the estimator's variance."""
    llm, gold = _population(units=10)
    a, b = ppi.topic_units(llm, gold)
    strata = np.array([0] * 6 + [1] * 4)
    b[strata == 1] = 0.0
    masks = np.array([np.concatenate([first, second]) for first in _all_samples(6, 3) for second in _all_samples(4, 2)])
    pi = ppi.inclusion(masks, strata)
    found = ppi.estimate_totals(masks, a, b, pi, strata=strata)
    np.testing.assert_allclose(found.estimate.mean(axis=0), gold.mean(axis=0))
    np.testing.assert_allclose((found.se**2).mean(axis=0), found.estimate.var(axis=0), rtol=1e-9)


def test_a_small_stratum_gets_two_units_and_every_interval_is_a_number() -> None:
    """Four units the LLM lacks beside 996 it labels: the proportional share of a 100-unit budget
    would be 0.4 units, rounded up to one, and one drawn unit of four has no variance. Two are drawn."""
    rng = np.random.default_rng(3)
    gold = rng.random((1000, 2))
    a, b = ppi.topic_units(np.clip(gold + rng.normal(0, 0.1, gold.shape), 0, 1), gold)
    strata = np.array([0] * 996 + [1] * 4)
    b[strata == 1] = 0.0
    masks = ppi.draw_samples(1000, 100, 50, seed=1, strata=strata)
    assert (masks[:, strata == 1].sum(axis=1) == 2).all() and (masks.sum(axis=1) == 100).all()
    found = ppi.estimate_totals(masks, a, b, ppi.inclusion(masks, strata), estimator="cross-fit", strata=strata)
    assert np.isfinite(found.low).all() and np.isfinite(found.high).all()


def test_a_budget_below_two_units_a_stratum_keeps_one_in_each() -> None:
    assert ppi.draw_samples(10, 3, 5, seed=1, strata=np.array([0] * 8 + [1, 1])).sum(axis=1).tolist() == [3.0] * 5
