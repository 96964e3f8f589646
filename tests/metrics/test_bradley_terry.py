"""Bradley–Terry ratings: the fit is the maximum of the penalised likelihood (checked with scipy's
optimiser), it depends on the verdicts only (not on their order, nor on which answer was shown
first), Elo is 1500 + 400·log₁₀ p, and a tournament's pairs cost O(n log n) calls a topic while
connecting every system."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize

from studio.judges.pair_sampling import tournament_budget, tournament_pairs
from studio.metrics.bradley_terry import bootstrap_elo, elo, fit_strengths, topic_win_matrices, win_matrix


def penalised_nll(theta: np.ndarray, wins: np.ndarray) -> float:
    """−(Σ W_ij log σ(θ_i − θ_j) + Σ ½ log σ(θ_i) + ½ log σ(−θ_i)), written here from the definition."""
    total = 0.0
    n = len(theta)
    for i in range(n):
        for j in range(n):
            if i != j and wins[i, j]:
                total -= wins[i, j] * math.log(1 / (1 + math.exp(theta[j] - theta[i])))
        total -= 0.5 * math.log(1 / (1 + math.exp(-theta[i]))) + 0.5 * math.log(1 / (1 + math.exp(theta[i])))
    return total


WINS = st.integers(2, 6).flatmap(
    lambda n: st.lists(st.lists(st.integers(0, 4), min_size=n, max_size=n), min_size=n, max_size=n)
)


@settings(max_examples=40, deadline=None)
@given(WINS)
def test_the_fit_maximises_the_penalised_likelihood(rows: list[list[int]]) -> None:
    wins = np.array(rows, dtype=float)
    np.fill_diagonal(wins, 0)
    fitted = np.log(fit_strengths(wins))
    best = minimize(penalised_nll, np.zeros(len(wins)), args=(wins,), method="BFGS", options={"gtol": 1e-10})
    assert penalised_nll(fitted, wins) <= best.fun + 1e-9
    assert np.allclose(fitted, best.x, atol=1e-4)


def test_a_system_that_won_every_match_gets_a_finite_rating() -> None:
    wins = np.array([[0, 5, 5], [0, 0, 5], [0, 0, 0]], dtype=float)
    ratings = elo(fit_strengths(wins))
    assert np.all(np.isfinite(ratings)) and ratings[0] > ratings[1] > ratings[2]
    assert ratings[1] == pytest.approx(1500.0)  # symmetric record: the player of strength 1's rating


def test_elo_is_400_log10_of_the_strength() -> None:
    strengths = np.array([1.0, 10.0, 0.1])
    assert elo(strengths).tolist() == pytest.approx([1500.0, 1900.0, 1100.0])


@settings(max_examples=30, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 3), st.integers(0, 3), st.sampled_from([0.0, 0.5, 1.0])), min_size=1, max_size=25
    ),
    st.randoms(),
)
def test_the_fit_depends_on_the_verdicts_not_their_order_nor_the_side_shown(
    matches: list[tuple[int, int, float]], shuffle: object
) -> None:
    matches = [(i, j, s) for i, j, s in matches if i != j]
    if not matches:
        return
    as_given = fit_strengths(win_matrix(np.array(matches), 4))
    reordered = list(matches)
    shuffle.shuffle(reordered)  # type: ignore[attr-defined]
    flipped = [(j, i, 1.0 - s) for i, j, s in reordered]  # the same match, the other answer named first
    assert np.allclose(fit_strengths(win_matrix(np.array(flipped), 4)), as_given, atol=1e-9)


def test_the_bootstrap_resamples_topics_with_the_seed() -> None:
    rng = np.random.default_rng(3)
    topics = [np.array([[0, 1, rng.choice([0.0, 0.5, 1.0])], [1, 2, 1.0], [0, 2, 0.5]]) for _ in range(12)]
    stacked = topic_win_matrices(topics, 3)
    low, high = bootstrap_elo(stacked, resamples=200, seed=4)
    draws = np.random.default_rng(4).integers(0, 12, size=(200, 12))
    by_hand = np.stack([elo(fit_strengths(stacked[row].sum(axis=0))) for row in draws])
    assert np.allclose(low, np.percentile(by_hand, 2.5, axis=0)) and np.allclose(
        high, np.percentile(by_hand, 97.5, axis=0)
    )


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 300), st.integers(0, 5))
def test_tournament_pairs_cost_n_log_n_and_connect_every_system(n: int, seed: int) -> None:
    names = [f"s{i:03d}" for i in range(n)]
    pairs = tournament_pairs(names, seed=seed, qid="q")
    assert len(pairs) == len(set(pairs)) <= max(tournament_budget(n), 0)
    assert len(pairs) <= n * math.ceil(math.log2(n)) if n > 1 else pairs == []
    assert all(a < b for a, b in pairs)
    reached, frontier = {names[0]}, [names[0]]
    while frontier:
        here = frontier.pop()
        for a, b in pairs:
            for there in (b,) if a == here else (a,) if b == here else ():
                if there not in reached:
                    reached.add(there)
                    frontier.append(there)
    assert reached == set(names)
    if n * (n - 1) // 2 <= tournament_budget(n):
        assert len(pairs) == n * (n - 1) // 2  # few systems: every pair
