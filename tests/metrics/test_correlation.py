"""Rank correlations between leaderboards, against scipy and brute-force definitions."""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples
from scipy import stats

from studio.metrics import correlation as corr

# Leaderboard values from a small set: ties are common, as with RR or P@k.
Pair = tuple[np.ndarray, np.ndarray]  # two leaderboards' values over the same runs
TIED = st.lists(st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.75, 1.0]), min_size=2, max_size=12)


@st.composite
def paired(draw: st.DrawFn, values: st.SearchStrategy[list[float]] = TIED) -> Pair:
    x = draw(values)
    y = draw(st.lists(st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.75, 1.0]), min_size=len(x), max_size=len(x)))
    return np.array(x), np.array(y)


@st.composite
def tie_free_pair(draw: st.DrawFn) -> Pair:
    n = draw(st.integers(2, 10))
    x = draw(st.permutations(range(n)))
    y = draw(st.permutations(range(n)))
    return np.array(x, dtype=float), np.array(y, dtype=float)


def same(a: float, b: float, tol: float = 1e-12) -> bool:
    return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= tol


@settings(max_examples=examples(200), deadline=None)
@given(paired())
def test_kendall_tau_b_equals_scipy(data: Pair) -> None:
    x, y = data
    assert same(corr.kendall_tau_b(x, y), float(stats.kendalltau(x, y).statistic))


@settings(max_examples=examples(200), deadline=None)
@given(paired())
def test_kendall_tau_a_equals_brute_force_pair_count(data: Pair) -> None:
    x, y = data
    n = len(x)
    score = sum(np.sign(x[i] - x[j]) * np.sign(y[i] - y[j]) for i, j in combinations(range(n), 2))
    assert same(corr.kendall_tau_a(x, y), score / (n * (n - 1) / 2))


@pytest.mark.filterwarnings("ignore::scipy.stats.ConstantInputWarning")  # constant input: both NaN
@settings(max_examples=examples(200), deadline=None)
@given(paired())
def test_spearman_rho_equals_scipy(data: Pair) -> None:
    x, y = data
    assert same(corr.spearman_rho(x, y), float(stats.spearmanr(x, y).statistic))


def tau_ap_brute_force(truth: np.ndarray, estimate: np.ndarray) -> float:
    """Yilmaz, Aslam & Robertson (2008): τ_AP = 2/(N−1) · Σ_{i=2..N} C(i)/(i−1) − 1, where items are
    taken in the order of the estimated ranking and C(i) counts the items ranked above the i-th
    one that the true ranking also puts above it."""
    n = len(truth)
    order = sorted(range(n), key=lambda i: -estimate[i])
    total = 0.0
    for rank in range(2, n + 1):
        item = order[rank - 1]
        correct = sum(1 for above in order[: rank - 1] if truth[above] > truth[item])
        total += correct / (rank - 1)
    return 2.0 * total / (n - 1) - 1.0


@settings(max_examples=examples(200), deadline=None)
@given(tie_free_pair())
def test_tau_ap_equals_yilmaz_formula_without_ties(data: Pair) -> None:
    reference, audited = data
    assert corr.tau_ap(reference, audited) == pytest.approx(tau_ap_brute_force(reference, audited), abs=1e-12)


def test_tau_ap_is_one_for_identical_and_minus_one_for_reversed_rankings() -> None:
    x = np.array([0.9, 0.5, 0.7, 0.1, 0.3])
    assert corr.tau_ap(x, x) == pytest.approx(1.0)
    assert corr.tau_ap(x, -x) == pytest.approx(-1.0)


def test_tau_ap_penalises_a_swap_at_the_top_more_than_at_the_bottom() -> None:
    truth = np.array([4.0, 3.0, 2.0, 1.0])  # A > B > C > D
    top_swapped = np.array([3.0, 4.0, 2.0, 1.0])  # B A C D: C(i) = 0, 2, 3 -> 2/3·(0 + 1 + 1) − 1
    bottom_swapped = np.array([4.0, 3.0, 1.0, 2.0])  # A B D C: C(i) = 1, 2, 2 -> 2/3·(1 + 1 + 2/3) − 1
    assert corr.tau_ap(truth, top_swapped) == pytest.approx(1 / 3)
    assert corr.tau_ap(truth, bottom_swapped) == pytest.approx(7 / 9)
    # Kendall's τ cannot tell the two apart.
    assert corr.kendall_tau_b(truth, top_swapped) == pytest.approx(corr.kendall_tau_b(truth, bottom_swapped))


LISTS = st.lists(st.sampled_from("abcdefghij"), max_size=8, unique=True)


@settings(max_examples=examples(200), deadline=None)
@given(LISTS.filter(bool), LISTS, st.sampled_from([0.5, 0.9, 0.98]))
def test_rbo_is_symmetric_and_between_zero_and_one(first: list[str], second: list[str], p: float) -> None:
    value = corr.rbo(first, second, p)
    assert 0.0 <= value <= 1.0 + 1e-12
    assert value == pytest.approx(corr.rbo(second, first, p), abs=1e-12)


@settings(max_examples=examples(50), deadline=None)
@given(LISTS.filter(bool), st.sampled_from([0.5, 0.9, 0.98]))
def test_rbo_of_identical_lists_is_one(ranking: list[str], p: float) -> None:
    assert corr.rbo(ranking, list(ranking), p) == pytest.approx(1.0, abs=1e-12)


def test_rbo_hand_worked_three_items() -> None:
    # Depth 1: {a}∩{b} = 0; depth 2: 2 of 2; depth 3: 3 of 3. Weights 1, 0.9, 0.81.
    expected = (1 * 0 + 0.9 * 1 + 0.81 * 1) / (1 + 0.9 + 0.81)
    assert corr.rbo(["a", "b", "c"], ["b", "a", "c"], p=0.9) == pytest.approx(expected, abs=1e-12)


def test_rbo_of_disjoint_lists_is_zero() -> None:
    assert corr.rbo(["a", "b"], ["c", "d"]) == 0.0


@settings(max_examples=examples(200), deadline=None)
@given(paired())
def test_swapped_pairs_equal_brute_force(data: Pair) -> None:
    reference, audited = data
    runs = [f"r{i}" for i in range(len(reference))]
    swaps = corr.swapped_pairs(runs, reference, audited)
    expected: set[tuple[str, str]] = set()
    for i, j in combinations(range(len(runs)), 2):
        if reference[i] > reference[j] and audited[i] < audited[j]:
            expected.add((runs[i], runs[j]))
        elif reference[j] > reference[i] and audited[j] < audited[i]:
            expected.add((runs[j], runs[i]))
    assert {(s["above_in_ref"], s["below_in_ref"]) for s in swaps} == expected
    assert len(swaps) == len(expected)
    gaps = [s["ref"][0] - s["ref"][1] for s in swaps]
    assert gaps == sorted(gaps, reverse=True)


def swapped_pairs_loop(runs: list[str], reference: np.ndarray, audited: np.ndarray) -> list[dict[str, object]]:
    """The plain definition, pair by pair in the order of itertools.combinations, then a stable
    sort by the reference gap: what `swapped_pairs` must return, item for item."""
    swaps: list[tuple[float, dict[str, object]]] = []  # (reference gap, pair)
    for i, j in combinations(range(len(runs)), 2):
        if (reference[i] - reference[j]) * (audited[i] - audited[j]) < 0:
            hi, lo = (i, j) if reference[i] > reference[j] else (j, i)
            pair: dict[str, object] = {
                "above_in_ref": runs[hi],
                "below_in_ref": runs[lo],
                "ref": [float(reference[hi]), float(reference[lo])],
                "qrels": [float(audited[hi]), float(audited[lo])],
            }
            swaps.append((float(reference[hi]) - float(reference[lo]), pair))
    return [pair for _, pair in sorted(swaps, key=lambda swap: -swap[0])]


# Any finite values, subnormal ones included (their products underflow to zero: no swap), and
# magnitudes kept where the products cannot overflow.
FINITE = st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=2, max_size=40)


@st.composite
def paired_finite(draw: st.DrawFn) -> Pair:
    x = draw(FINITE)
    y = draw(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=len(x), max_size=len(x)))
    return np.array(x), np.array(y)


@settings(max_examples=examples(300), deadline=None)
@given(st.one_of(paired(), paired_finite()))
def test_swapped_pairs_equal_the_plain_loop_item_for_item(data: Pair) -> None:
    reference, audited = data
    runs = [f"r{i}" for i in range(len(reference))]
    expected = swapped_pairs_loop(runs, reference, audited)
    assert corr.swapped_pairs(runs, reference, audited) == expected
    assert corr.swap_count(reference, audited) == len(expected)


def test_swapped_pairs_hand_worked() -> None:
    runs = ["a", "b", "c", "d"]
    reference = np.array([0.4, 0.3, 0.2, 0.1])  # a > b > c > d
    audited = np.array([0.1, 0.3, 0.3, 0.2])  # d above a, b and c tie: (a, b), (a, c), (a, d) swap
    assert corr.swapped_pairs(runs, reference, audited) == [
        {"above_in_ref": "a", "below_in_ref": "d", "ref": [0.4, 0.1], "qrels": [0.1, 0.2]},
        {"above_in_ref": "a", "below_in_ref": "c", "ref": [0.4, 0.2], "qrels": [0.1, 0.3]},
        {"above_in_ref": "a", "below_in_ref": "b", "ref": [0.4, 0.3], "qrels": [0.1, 0.3]},
    ]
    assert corr.swap_count(reference, audited) == 3
    swaps = corr.swapped_pairs(runs, reference, audited)
    assert all(type(value) is float for swap in swaps for value in [*swap["ref"], *swap["qrels"]])  # JSON-ready
    assert corr.swapped_pairs(runs, reference, reference) == []
    assert corr.swap_count(reference, reference) == 0


def test_swapped_pairs_of_a_single_run_or_none_are_empty() -> None:
    assert corr.swapped_pairs(["a"], np.array([0.5]), np.array([0.1])) == []
    assert corr.swapped_pairs([], np.array([]), np.array([])) == []
    assert corr.swap_count(np.array([]), np.array([])) == 0


def tau_ap_loop(reference: np.ndarray, audited: np.ndarray) -> float:
    """τ_AP with ties (half a pair), item by item in the audited order, the sum left to right."""
    n = len(reference)
    order = np.lexsort((np.arange(n), -audited))
    ref = reference[order]
    total = 0.0
    for i in range(1, n):
        above = ref[:i]
        correct = (above > ref[i]).sum() + 0.5 * (above == ref[i]).sum()
        total += correct / i
    return float(2.0 * total / (n - 1) - 1.0)


@settings(max_examples=examples(200), deadline=None)
@given(st.one_of(paired(), paired_finite()))
def test_tau_ap_with_ties_equals_the_plain_loop_to_the_last_bit(data: Pair) -> None:
    reference, audited = data
    assert corr.tau_ap(reference, audited) == tau_ap_loop(reference, audited)


def test_tau_ap_counts_a_tie_in_the_reference_as_half_a_correct_pair() -> None:
    # Audited order a, b, c; the reference ties a and b and puts c last: C = 0.5, 2 -> 2/2·(0.5 + 1) − 1
    assert corr.tau_ap(np.array([1.0, 1.0, 0.0]), np.array([3.0, 2.0, 1.0])) == pytest.approx(0.5)


@settings(max_examples=examples(200), deadline=None)
@given(st.one_of(TIED, FINITE))
def test_average_ranks_equal_scipy_rankdata(values: list[float]) -> None:
    array = np.array(values)
    assert np.array_equal(corr.average_ranks(array), stats.rankdata(array, method="average"))


def correlated_matrices(topics: int = 40, runs: int = 8, seed: int = 7) -> tuple[np.ndarray, np.ndarray]:
    """Per-topic scores of runs of clearly different quality, measured twice with a little noise."""
    rng = np.random.default_rng(seed)
    quality = np.linspace(0.3, 0.6, runs)
    reference = np.clip(quality + rng.normal(0, 0.2, (topics, runs)), 0, 1)
    audited = np.clip(reference + rng.normal(0, 0.15, (topics, runs)), 0, 1)
    return reference, audited


def test_bootstrap_tau_is_reproducible_with_the_same_seed() -> None:
    reference, audited = correlated_matrices()
    first = corr.bootstrap_tau(reference, audited, resamples=200, seed=3)
    again = corr.bootstrap_tau(reference, audited, resamples=200, seed=3)
    assert first == again


def test_bootstrap_interval_contains_the_full_topic_tau() -> None:
    reference, audited = correlated_matrices()
    full = corr.kendall_tau_b(reference.mean(axis=0), audited.mean(axis=0))
    interval = corr.bootstrap_tau(reference, audited, resamples=300, seed=1)
    assert interval.low < full < interval.high
    assert full > 0.5


@pytest.mark.parametrize(("fraction", "size"), [(1 / 3, 10), (2 / 3, 20), (0.5, 15)])
def test_subsample_tau_uses_the_requested_number_of_topics(fraction: float, size: int) -> None:
    reference, audited = correlated_matrices(topics=30)
    result = corr.subsample_tau(reference, audited, fraction, trials=20, seed=0)
    assert result["topics"] == size
    assert result["min"] <= result["mean"] <= result["max"]


@pytest.mark.parametrize("fraction", [1 / 3, 1.0])
def test_subsample_without_topics_is_undefined_like_the_bootstrap(fraction: float) -> None:
    reference, audited = np.empty((0, 5)), np.empty((0, 5))
    result = corr.subsample_tau(reference, audited, fraction, trials=20, seed=0)
    assert result["topics"] == 0
    assert all(np.isnan(result[key]) for key in ("mean", "std", "min", "max"))
    assert np.isnan(corr.bootstrap_tau(reference, audited, resamples=20).low)


def test_subsample_of_every_topic_reproduces_the_full_tau() -> None:
    reference, audited = correlated_matrices(topics=12)
    full = corr.kendall_tau_b(reference.mean(axis=0), audited.mean(axis=0))
    result = corr.subsample_tau(reference, audited, 1.0, trials=5, seed=0)
    assert result["topics"] == 12
    assert result["mean"] == pytest.approx(full, abs=1e-12)
    assert result["std"] == pytest.approx(0.0, abs=1e-12)


# -- the O(n log n) τ-b and the bootstrap's sample means ----------------------------------------


@settings(max_examples=examples(200), deadline=None)
@given(st.integers(2, 120), st.integers(1, 6), st.integers(0, 2**32 - 1))
def test_knights_counts_equal_every_pairs_signs(n: int, levels: int, seed: int) -> None:
    """The sorting path counts what the pair signs count, ties in x, y and both included."""
    rng = np.random.default_rng(seed)
    x = rng.integers(0, levels, n) / levels
    y = x.copy() if seed % 5 == 0 else rng.integers(0, levels + 1, n) / 3.0
    dx, dy = corr._pair_signs(x, y)
    assert corr._knight_counts(x, y) == (int((dx * dy).sum()), int(np.count_nonzero(dx)), int(np.count_nonzero(dy)))


@settings(max_examples=examples(100), deadline=None)
@given(st.integers(2, 40), st.integers(1, 8), st.integers(1, 5), st.integers(0, 2**32 - 1))
def test_tau_of_many_rows_equals_scipy_row_by_row(n: int, rows: int, levels: int, seed: int) -> None:
    """The review queue's batched τ: each edited leaderboard against the reference, ties included."""
    rng = np.random.default_rng(seed)
    x = rng.integers(0, levels, n) / levels
    ys = rng.integers(0, levels + 1, (rows, n)) / 3.0
    ys[0] = x  # identical rankings give 1 (or NaN when constant)
    taus = corr.kendall_tau_b_rows(x, ys)
    for tau, y in zip(taus, ys, strict=True):
        with np.errstate(invalid="ignore"):
            expected = float(stats.kendalltau(x, y).statistic)
        assert same(float(tau), expected)


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.integers(0, 6), max_size=60))
def test_inversions_count_the_pairs_out_of_order(values: list[int]) -> None:
    expected = sum(1 for i, j in combinations(range(len(values)), 2) if values[i] > values[j])
    assert corr._inversions(np.array(values, dtype=np.int64)) == expected


def test_a_long_leaderboard_takes_the_sorting_path_and_equals_scipy() -> None:
    rng = np.random.default_rng(4)
    x = np.round(rng.random(3 * corr.KNIGHT_FROM), 2)  # rounded: many ties
    y = np.round(x + rng.normal(0, 0.2, len(x)), 1)
    assert corr.kendall_tau_b(x, y) == pytest.approx(stats.kendalltau(x, y).statistic, abs=1e-12)


def test_sample_means_equal_the_means_of_the_drawn_topics() -> None:
    rng = np.random.default_rng(5)
    matrix = rng.random((12, 7))
    matrix[rng.random(matrix.shape) < 0.2] = np.nan  # runs that skipped a topic
    matrix[:, 3] = matrix[:, 1]  # two runs with the same scores everywhere
    rows = rng.integers(0, 12, size=(40, 12))
    means = corr._sample_means(matrix, rows)
    for sample, drawn in zip(means, rows, strict=True):
        values = matrix[drawn]
        counted = ~np.isnan(values)
        expected = np.where(counted, values, 0).sum(axis=0) / np.maximum(counted.sum(axis=0), 1)
        assert sample == pytest.approx(expected, abs=1e-12)
    assert np.array_equal(means[:, 3], means[:, 1])  # equal runs keep equal means: ties stay ties
