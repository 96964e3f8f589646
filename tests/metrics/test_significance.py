"""Paired significance tests over every run pair: scipy for the t-test, exact enumeration and
simple per-pair loops (many resamples, another random stream) for the resampling tests."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from hypothesis_profiles import examples
from scipy import stats

from studio.metrics import significance as sig


def leaderboard(runs: int = 6, topics: int = 12, seed: int = 3) -> np.ndarray:
    """Per-topic values of runs a little apart, topic effects shared (as real runs have them)."""
    rng = np.random.default_rng(seed)
    topic_effect = rng.random(topics) * 0.6
    run_effect = np.linspace(0.0, 0.15, runs)
    return np.clip(topic_effect[None, :] + run_effect[:, None] + rng.normal(0, 0.08, (runs, topics)), 0, 1)


def with_gaps(values: np.ndarray) -> np.ndarray:
    """Some runs skip some topics (NaN), as a run without a topic does."""
    gapped = values.copy()
    gapped[0, 1] = gapped[2, 4] = gapped[2, 5] = gapped[3, 0] = np.nan
    return gapped


def pair_index(runs: int, a: int, b: int) -> int:
    i, j = sig.run_pairs(runs)
    return int(np.flatnonzero((i == a) & (j == b))[0])


def shared(values: np.ndarray, a: int, b: int) -> tuple[np.ndarray, np.ndarray]:
    mask = np.isfinite(values[a]) & np.isfinite(values[b])
    return values[a][mask], values[b][mask]


def mc_bound(p: float, *resamples: int) -> float:
    """Five standard errors of the difference of Monte-Carlo estimates of p (plus the +1 terms)."""
    return 5 * math.sqrt(max(p * (1 - p), 1e-4) * sum(1 / n for n in resamples)) + 2 / min(resamples)


# -- the paired t-test --------------------------------------------------------------------------


@settings(max_examples=examples(60), deadline=None)
@given(
    hnp.arrays(np.float64, st.tuples(st.integers(2, 5), st.integers(3, 15)), elements=st.floats(0, 1, width=32)),
    st.lists(st.tuples(st.integers(0, 4), st.integers(0, 14)), max_size=6),
)
def test_t_test_equals_scipy_ttest_rel_on_each_pairs_shared_topics(
    values: np.ndarray, holes: list[tuple[int, int]]
) -> None:
    for r, t in holes:
        if r < values.shape[0] and t < values.shape[1]:
            values[r, t] = np.nan
    found = sig.t_test(values)
    for c, (a, b) in enumerate(zip(*sig.run_pairs(values.shape[0]), strict=True)):
        x, y = shared(values, a, b)
        assert found.topics[c] == len(x)
        if len(x) < 2:
            assert math.isnan(found.p_value[c])
            continue
        assert found.delta[c] == pytest.approx(x.mean() - y.mean(), abs=1e-12)
        expected = stats.ttest_rel(x, y).pvalue
        if np.all(x == y):
            assert found.p_value[c] == 1.0  # scipy: NaN (0/0); nothing tells the runs apart
        elif math.isnan(expected):
            assert math.isnan(found.p_value[c])
        else:
            assert found.p_value[c] == pytest.approx(expected, abs=1e-9)


def test_t_test_on_a_leaderboard_with_gaps_equals_scipy_to_1e_9() -> None:
    values = with_gaps(leaderboard(runs=8, topics=20))
    found = sig.t_test(values)
    expected = [stats.ttest_rel(*shared(values, a, b)).pvalue for a, b in zip(*sig.run_pairs(8), strict=True)]
    assert np.abs(found.p_value - np.array(expected)).max() < 1e-9


# -- the randomization test -----------------------------------------------------------------------


def exact_sign_flip_p(d: np.ndarray) -> float:
    """The exact two-sided p of the sign-flip test: every one of the 2^n sign vectors."""
    observed = abs(d.sum())
    sums = [abs(np.dot(signs, d)) for signs in itertools.product((-1.0, 1.0), repeat=len(d))]
    return float(np.mean([s >= observed - 1e-12 for s in sums]))


def loop_randomization_p(d: np.ndarray, resamples: int, rng: np.random.Generator) -> float:
    """A sign-flip loop of one pair, p counting the observed arrangement once."""
    observed = abs(d.mean())
    count = 0
    for _ in range(resamples):
        flipped = d * rng.choice((-1.0, 1.0), size=len(d))
        count += abs(flipped.mean()) >= observed - 1e-12
    return (count + 1) / (resamples + 1)


def test_randomization_p_values_are_within_monte_carlo_error_of_the_exact_test() -> None:
    values = with_gaps(leaderboard(runs=5, topics=11))
    found = sig.randomization_test(values, resamples=20_000, seed=7)
    for c, (a, b) in enumerate(zip(*sig.run_pairs(5), strict=True)):
        x, y = shared(values, a, b)
        exact = exact_sign_flip_p(x - y)
        assert abs(found.p_value[c] - exact) <= mc_bound(exact, 20_000), (a, b, found.p_value[c], exact)


def test_randomization_p_values_agree_with_a_per_pair_loop() -> None:
    values = with_gaps(leaderboard(runs=4, topics=25))
    found = sig.randomization_test(values, resamples=5_000, seed=1)
    rng = np.random.default_rng(12345)
    for c, (a, b) in enumerate(zip(*sig.run_pairs(4), strict=True)):
        x, y = shared(values, a, b)
        reference = loop_randomization_p(x - y, 20_000, rng)
        assert abs(found.p_value[c] - reference) <= mc_bound(reference, 5_000, 20_000)


def test_resampled_p_values_count_the_observed_arrangement_and_never_reach_zero() -> None:
    values = np.vstack([np.zeros(30), np.ones(30)])  # run 1 beats run 0 on every topic
    for test in ("randomization", "bootstrap", "tukey"):
        found = sig.run_test(test, values, resamples=999, seed=0)
        assert found.p_value[0] == pytest.approx(1 / 1000), test


def test_identical_runs_get_p_one_under_every_test() -> None:
    values = np.vstack([leaderboard(runs=1, topics=10)[0]] * 3)
    for test in sig.TESTS:
        assert np.all(sig.run_test(test, values, resamples=200).p_value == 1.0), test


def test_the_same_seed_gives_the_same_p_values_and_another_seed_others() -> None:
    values = leaderboard()
    first = sig.randomization_test(values, resamples=500, seed=4).p_value
    assert np.array_equal(first, sig.randomization_test(values, resamples=500, seed=4).p_value)
    assert not np.array_equal(first, sig.randomization_test(values, resamples=500, seed=5).p_value)


def test_a_pair_sharing_fewer_than_two_topics_is_not_tested() -> None:
    values = leaderboard(runs=3, topics=4)
    values[0, 1:] = np.nan  # run 0 has one topic
    for test in ("t", "randomization", "bootstrap"):
        found = sig.run_test(test, values, resamples=100)
        assert math.isnan(found.p_value[pair_index(3, 0, 1)]) and math.isnan(found.p_value[pair_index(3, 0, 2)])
        assert math.isfinite(found.p_value[pair_index(3, 1, 2)]), test


# -- the bootstrap test ---------------------------------------------------------------------------


def loop_bootstrap_p(d: np.ndarray, resamples: int, rng: np.random.Generator) -> float:
    """Sakai's shift-method bootstrap of one pair, written out."""
    n = len(d)

    def t(sample: np.ndarray) -> float:
        sd = sample.std(ddof=1)
        return abs(sample.mean() / (sd / math.sqrt(n))) if sd > 0 else (math.inf if sample.mean() else 0.0)

    observed = t(d)
    w = d - d.mean()
    count = sum(t(w[rng.integers(0, n, n)]) >= observed - 1e-9 for _ in range(resamples))
    return (count + 1) / (resamples + 1)


def test_bootstrap_p_values_agree_with_a_per_pair_loop() -> None:
    values = with_gaps(leaderboard(runs=4, topics=15, seed=9))
    found = sig.bootstrap_test(values, resamples=5_000, seed=2)
    rng = np.random.default_rng(777)
    for c, (a, b) in enumerate(zip(*sig.run_pairs(4), strict=True)):
        x, y = shared(values, a, b)
        reference = loop_bootstrap_p(x - y, 10_000, rng)
        assert abs(found.p_value[c] - reference) <= mc_bound(reference, 5_000, 10_000), (a, b)


# -- Tukey's HSD ----------------------------------------------------------------------------------


def carterette_tukey(values: np.ndarray, resamples: int, rng: np.random.Generator) -> dict[tuple[int, int], float]:
    """Carterette (2012), as he writes it: per resample, permute each topic's values across runs,
    take max − min of the run means; a pair's p is the share of ranges ≥ its |difference|."""
    runs, topics = values.shape
    ranges = []
    for _ in range(resamples):
        shuffled = np.column_stack([rng.permutation(values[:, t]) for t in range(topics)])
        means = shuffled.mean(axis=1)
        ranges.append(means.max() - means.min())
    spread = np.array(ranges)
    means = values.mean(axis=1)
    return {
        (a, b): (float((spread >= abs(means[a] - means[b]) - 1e-12).sum()) + 1) / (resamples + 1)
        for a, b in itertools.combinations(range(runs), 2)
    }


def test_tukey_hsd_agrees_with_carterettes_procedure() -> None:
    values = leaderboard(runs=5, topics=8, seed=11)
    found = sig.tukey_hsd(values, resamples=8_000, seed=3)
    reference = carterette_tukey(values, 4_000, np.random.default_rng(99))
    for c, (a, b) in enumerate(zip(*sig.run_pairs(5), strict=True)):
        assert found.delta[c] == pytest.approx(values[a].mean() - values[b].mean())
        assert abs(found.p_value[c] - reference[(a, b)]) <= mc_bound(reference[(a, b)], 8_000, 4_000), (a, b)


def test_tukey_hsd_uses_only_the_topics_every_run_has() -> None:
    values = leaderboard(runs=4, topics=9)
    gapped = values.copy()
    gapped[1, 3] = np.nan
    found = sig.tukey_hsd(gapped, resamples=2_000, seed=0)
    kept = np.delete(values, 3, axis=1)
    assert np.all(found.topics == 8)
    assert np.array_equal(found.p_value, sig.tukey_hsd(kept, resamples=2_000, seed=0).p_value)


def test_tukey_p_values_are_no_smaller_than_the_unadjusted_randomization_ones() -> None:
    """The range over all runs is at least the pair's own permuted difference: Tukey is the stricter."""
    values = leaderboard(runs=8, topics=30)
    tukey = sig.tukey_hsd(values, resamples=4_000, seed=0).p_value
    plain = sig.randomization_test(values, resamples=4_000, seed=0).p_value
    assert np.all(tukey >= plain - mc_bound(0.5, 4_000))
    assert tukey.mean() > plain.mean()
