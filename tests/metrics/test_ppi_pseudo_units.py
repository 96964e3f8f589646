"""One pseudo-unit in each stratum's spread (`estimate_totals(pseudo=…)`). Pair designs: with a judge
that rarely disagrees, a pair sample often holds no disagreement in a run's top k, and its spread
collapses; one pseudo-disagreement restores the coverage. Topic designs: one topic whose prediction
is wholly wrong. Either widens only where the LLM term is used and never moves the estimate."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from studio.metrics import ppi

PAIRS, TOPICS, CUTOFF, RUNS = 4000, 40, 10, 3


def _pool(disagree: float, seed: int = 11) -> tuple[np.ndarray, np.ndarray]:
    """P@10 contributions (a, b) over PAIRS judged pairs: each run's top 10 of each topic among
    them, one pair in six relevant, and an LLM label that flips the gold one with probability
    `disagree` (a judge of κ near 1 when it is small)."""
    rng = np.random.default_rng(seed)
    topic = rng.integers(0, TOPICS, PAIRS)
    gold = (rng.random(PAIRS) < 1 / 6).astype(np.float64)
    llm = np.where(rng.random(PAIRS) < disagree, 1.0 - gold, gold)
    in_top = np.zeros((PAIRS, RUNS))
    for r in range(RUNS):
        # Stronger runs put more relevant pairs in their top 10.
        score = gold * (0.5 + r) + rng.normal(0.0, 1.0, PAIRS)
        for q in range(TOPICS):
            where = np.flatnonzero(topic == q)
            in_top[where[np.argsort(-score[where])[:CUTOFF]], r] = 1.0
    return ppi.pair_units(in_top, np.full(RUNS, TOPICS), CUTOFF, llm, gold)


def test_rare_disagreements_undercover_without_the_pseudo_disagreement_and_cover_with_it() -> None:
    a, b = _pool(disagree=0.03)
    # 300 of 4,000 pairs: about 30 of a run's 400 top-10 pairs, of which about one disagrees.
    plain = ppi.simulate(a, b, budget=300, trials=600, seed=3, estimator="cross-fit").summary()
    found = ppi.simulate(a, b, budget=300, trials=600, seed=3, estimator="cross-fit", pseudo=ppi.PSEUDO_PAIR).summary()
    assert plain["coverage"] < 0.9
    # 600 trials: a coverage's Monte-Carlo error is about 0.009.
    assert found["coverage"] >= 0.93
    assert found["width_ratio"] < 0.8  # the judge still pays for itself


def test_a_sample_without_a_disagreement_still_has_a_spread() -> None:
    a, b = _pool(disagree=0.03)
    agree = np.abs(a - b).sum(axis=1) == 0
    mask = np.zeros((1, PAIRS))
    mask[0, np.flatnonzero(agree)[:300]] = 1.0  # a sample that happens to hold no disagreement
    pi = np.full(PAIRS, 300 / PAIRS)
    plain = ppi.estimate_totals(mask, a, b, pi, estimator="ppi")
    found = ppi.estimate_totals(mask, a, b, pi, estimator="ppi", pseudo=ppi.PSEUDO_PAIR)
    np.testing.assert_allclose(plain.se, 0.0, atol=1e-8)  # the sums of squares round a little
    # One disagreement of a top-10 pair weighs 1/(topics · k) in the run's P@10 total; its
    # pseudo-unit gives the expanded total a standard error of that weight times M·√((1 − f)/(n(n − 1))).
    weight = 1 / (TOPICS * CUTOFF)
    expected = weight * PAIRS * np.sqrt((1 - 300 / PAIRS) / (300 * 299))
    np.testing.assert_allclose(found.se, expected, rtol=1e-6)


def test_where_the_llm_term_weighs_nothing_the_interval_is_the_gold_samples() -> None:
    a, b = _pool(disagree=0.03)
    masks = ppi.draw_samples(PAIRS, 300, 40, seed=7)
    pi = ppi.inclusion(masks)
    inverted = b.max() - b  # against the grades: every fold's λ clips to 0
    gold = ppi.estimate_totals(masks, a, None, pi)
    for b_used, estimator in ((b, "gold"), (inverted, "cross-fit")):
        found = ppi.estimate_totals(masks, a, b_used, pi, estimator=estimator, pseudo=ppi.PSEUDO_PAIR)
        assert (found.lam == 0).all()
        np.testing.assert_allclose(found.high - found.low, gold.high - gold.low)


def _topics(seed: int = 3, count: int = 50, runs: int = 4) -> tuple[np.ndarray, np.ndarray]:
    """Per-topic values (a, b) of a topic mean: an LLM close to the people on most topics."""
    rng = np.random.default_rng(seed)
    ease = rng.beta(2, 2, count)
    gold = np.clip(ease[:, None] * (0.6 + 0.1 * np.arange(runs))[None, :] + rng.normal(0, 0.05, (count, runs)), 0, 1)
    llm = np.clip(gold + rng.normal(0, 0.08, (count, runs)), 0, 1)
    return ppi.topic_units(llm, gold)


@pytest.mark.parametrize(
    ("pseudo", "units", "sample"),
    [(ppi.PSEUDO_PAIR, lambda: _pool(disagree=0.1), 400), (ppi.PSEUDO_TOPIC, _topics, 15)],
    ids=["pair", "topic"],
)
def test_the_pseudo_unit_only_widens_and_never_moves_the_estimate(
    pseudo: str, units: Callable[[], tuple[np.ndarray, np.ndarray]], sample: int
) -> None:
    a, b = units()
    masks = ppi.draw_samples(a.shape[0], sample, 50, seed=5)
    pi = ppi.inclusion(masks)
    for estimator in ("cross-fit", "ppi", "ppi++"):
        plain = ppi.estimate_totals(masks, a, b, pi, estimator=estimator)
        found = ppi.estimate_totals(masks, a, b, pi, estimator=estimator, pseudo=pseudo)
        np.testing.assert_array_equal(found.estimate, plain.estimate)
        np.testing.assert_array_equal(found.lam, plain.lam)
        np.testing.assert_array_equal(found.df, plain.df)
        assert (found.se > plain.se).all()


def test_the_pseudo_topic_is_one_topic_off_by_the_llm_values_spread() -> None:
    """Plain PPI (λ = 1) on the mean of N topics from n: the sample variance of the rectifier gets
    the LLM values' own variance over the N topics as one more squared residual."""
    a, b = _topics()
    count, sample = a.shape[0], 15
    mask = ppi.draw_samples(count, sample, 1, seed=2)
    found = ppi.estimate_totals(mask, a, b, ppi.inclusion(mask), estimator="ppi", pseudo=ppi.PSEUDO_TOPIC)
    chosen = mask[0] > 0
    rectifier = (a - b)[chosen] * count  # back to the topics' own values
    squares = rectifier.var(axis=0, ddof=0) * sample + (b * count).var(axis=0, ddof=1)
    expected = np.sqrt((1 - sample / count) * squares / (sample - 1) / sample)
    np.testing.assert_allclose(found.se[0], expected, rtol=1e-9)


def test_where_the_llm_term_weighs_nothing_the_pseudo_topic_adds_nothing() -> None:
    a, b = _topics()
    masks = ppi.draw_samples(a.shape[0], 15, 40, seed=7)
    pi = ppi.inclusion(masks)
    gold = ppi.estimate_totals(masks, a, None, pi)
    found = ppi.estimate_totals(masks, a, b.max() - b, pi, estimator="cross-fit", pseudo=ppi.PSEUDO_TOPIC)
    assert (found.lam == 0).all()
    np.testing.assert_allclose(found.high - found.low, gold.high - gold.low)
