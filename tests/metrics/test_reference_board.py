"""The reference half of the run-level statistics (`ReferenceBoard`, the live view's) gives what
`studio.metrics.correlation` gives for the same two leaderboards, to the last bit: ties, a
constant side, one or two runs, and leaderboards long enough for τ-b to sort."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from studio.metrics import correlation as corr
from studio.metrics.reference_board import ReferenceBoard

# Few distinct values, so that ties are common on both sides.
VALUES = st.sampled_from([0.0, 0.1, 0.25, 0.3, 0.5, 1.0]) | st.floats(0, 1, allow_nan=False)


def same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


@st.composite
def boards(draw: st.DrawFn, most: int = 40) -> tuple[list[str], np.ndarray, np.ndarray]:
    n = draw(st.integers(0, most))
    x = np.array(draw(st.lists(VALUES, min_size=n, max_size=n)), dtype=np.float64)
    y = np.array(draw(st.lists(VALUES, min_size=n, max_size=n)), dtype=np.float64)
    runs = draw(st.permutations([f"run-{i:02d}" for i in range(n)]))
    return list(runs), x, y


@settings(max_examples=examples(300), deadline=None)
@given(boards())
def test_every_statistic_is_the_one_of_the_two_leaderboards(drawn: tuple[list[str], np.ndarray, np.ndarray]) -> None:
    runs, x, y = drawn
    board = ReferenceBoard.of(runs, x)
    assert same(board.kendall_tau_b(y), corr.kendall_tau_b(x, y))
    assert same(board.kendall_tau_a(y), corr.kendall_tau_a(x, y))
    assert same(board.spearman_rho(y), corr.spearman_rho(x, y))
    assert same(board.tau_ap(y), corr.tau_ap(x, y))
    assert same(board.rbo(y), corr.rbo(corr.ranking(runs, x), corr.ranking(runs, y), p=0.9))
    assert same(board.rbo(y, p=0.5), corr.rbo(corr.ranking(runs, x), corr.ranking(runs, y), p=0.5))
    assert board.swap_count(y) == corr.swap_count(x, y)


def test_a_leaderboard_long_enough_for_tau_b_to_sort() -> None:
    rng = np.random.default_rng(3)
    n = corr.KNIGHT_FROM + 5
    x, y = rng.integers(0, 50, n).astype(np.float64), rng.integers(0, 50, n).astype(np.float64)
    board = ReferenceBoard.of([f"r{i}" for i in range(n)], x)
    assert board.kendall_tau_b(y) == corr.kendall_tau_b(x, y)
    assert board.swap_count(y) == corr.swap_count(x, y)
