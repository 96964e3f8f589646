"""The Fréchet distance between two sets of vectors, against the textbook formula with
scipy's matrix square root, and its properties as a (squared) distance between Gaussians."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import scipy.linalg
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from hypothesis_profiles import examples

from studio.metrics.frechet import frechet_distance


def textbook(a: np.ndarray, b: np.ndarray) -> float:
    """‖μa − μb‖² + Tr(Σa + Σb − 2 sqrtm(Σa Σb)), as FID implementations write it."""
    cov_a, cov_b = np.atleast_2d(np.cov(a, rowvar=False)), np.atleast_2d(np.cov(b, rowvar=False))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # sqrtm warns on the singular products of the n < d cases
        root = scipy.linalg.sqrtm(cov_a @ cov_b)
    gap = a.mean(axis=0) - b.mean(axis=0)
    return float(gap @ gap + np.trace(cov_a + cov_b - 2 * np.real(root)))


@pytest.mark.parametrize(
    ("n_a", "n_b", "dims"),
    [
        (50, 60, 5),  # full-rank covariances
        (200, 150, 16),
        (8, 9, 20),  # more dimensions than vectors: both covariances rank-deficient
        (5, 30, 10),
        (100, 110, 384),  # the shape of an FD@10 leaderboard row with MiniLM vectors
    ],
)
def test_equals_the_textbook_formula(n_a: int, n_b: int, dims: int) -> None:
    rng = np.random.default_rng(n_a * 1000 + dims)
    a = rng.normal(size=(n_a, dims))
    b = rng.normal(loc=0.3, scale=1.5, size=(n_b, dims))
    assert frechet_distance(a, b) == pytest.approx(textbook(a, b), rel=1e-6)


def test_unit_length_embeddings_as_float32() -> None:
    rng = np.random.default_rng(7)
    a = rng.normal(size=(40, 64)).astype(np.float32)
    b = (rng.normal(size=(30, 64)) + 0.2).astype(np.float32)
    a /= np.linalg.norm(a, axis=1, keepdims=True)
    b /= np.linalg.norm(b, axis=1, keepdims=True)
    assert frechet_distance(a, b) == pytest.approx(textbook(a.astype(np.float64), b.astype(np.float64)), rel=1e-6)


def test_one_dimension_is_the_gaussian_formula() -> None:
    a, b = np.array([[0.0], [2.0], [4.0]]), np.array([[1.0], [2.0]])
    var_a, var_b = np.var(a, ddof=1), np.var(b, ddof=1)
    expected = (a.mean() - b.mean()) ** 2 + var_a + var_b - 2 * math.sqrt(var_a * var_b)
    assert frechet_distance(a, b) == pytest.approx(expected)


def test_fewer_than_two_vectors_is_undefined() -> None:
    two = np.ones((2, 3))
    assert math.isnan(frechet_distance(np.ones((1, 3)), two))
    assert math.isnan(frechet_distance(two, np.zeros((0, 3))))


def test_vectors_of_different_dimensions_are_refused() -> None:
    with pytest.raises(ValueError, match="dimensions"):
        frechet_distance(np.ones((3, 2)), np.ones((3, 4)))


# -- properties -------------------------------------------------------------------------------


@st.composite
def vector_sets(draw: st.DrawFn, count: int = 2) -> list[np.ndarray]:
    """`count` sets of 2–8 vectors of one dimension (1–6): fewer vectors than dimensions too."""
    dims = draw(st.integers(1, 6))
    values = st.floats(-10, 10, allow_nan=False, allow_subnormal=False)
    return [draw(hnp.arrays(np.float64, (draw(st.integers(2, 8)), dims), elements=values)) for _ in range(count)]


def scale(*sets: np.ndarray) -> float:
    """Tolerance of a property: rounding grows with the spread of the vectors."""
    return 1e-6 * (1.0 + sum(float(np.square(s).sum()) for s in sets))


@settings(max_examples=examples(150), deadline=None)
@given(vector_sets(count=1))
def test_a_set_is_at_distance_zero_from_itself(sets: list[np.ndarray]) -> None:
    (a,) = sets
    assert frechet_distance(a, a.copy()) == pytest.approx(0.0, abs=scale(a))


@settings(max_examples=examples(150), deadline=None)
@given(vector_sets())
def test_symmetric_and_non_negative(sets: list[np.ndarray]) -> None:
    a, b = sets
    forth, back = frechet_distance(a, b), frechet_distance(b, a)
    assert forth >= 0.0 and back >= 0.0
    assert forth == pytest.approx(back, abs=scale(a, b))


@settings(max_examples=examples(150), deadline=None)
@given(vector_sets(), st.floats(-5, 5, allow_nan=False))
def test_a_common_translation_changes_nothing(sets: list[np.ndarray], shift: float) -> None:
    a, b = sets
    offset = shift * np.arange(1, a.shape[1] + 1)
    assert frechet_distance(a + offset, b + offset) == pytest.approx(frechet_distance(a, b), abs=scale(a, b, offset))


@settings(max_examples=examples(150), deadline=None)
@given(vector_sets(), st.floats(0.5, 5))
def test_grows_as_one_set_moves_away(sets: list[np.ndarray], step: float) -> None:
    a, b = sets
    gap = b.mean(axis=0) - a.mean(axis=0)
    norm = float(np.linalg.norm(gap))
    direction = gap / norm if norm > 1e-3 else np.eye(a.shape[1])[0]
    distances = [frechet_distance(a, b + t * step * direction) for t in range(4)]
    # Moving b by s along the gap adds exactly ‖s‖² + 2 s·(μb − μa) > 0.
    for t in range(1, 4):
        shift = t * step * direction
        added = float(shift @ shift + 2 * shift @ gap)
        assert distances[t] - distances[0] == pytest.approx(added, abs=scale(a, b, shift))
        assert distances[t] > distances[t - 1]
