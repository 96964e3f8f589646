"""Krippendorff's α for several coders, against the `krippendorff` package and hand-worked data."""

from __future__ import annotations

import math

import krippendorff
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from studio.metrics.agreement import krippendorff_alpha_ordinal
from studio.metrics.reliability import Level, krippendorff_alpha

# Krippendorff (2011), section C: 4 coders, 12 units, values 1–5, missing as NaN; α nominal 0.743,
# ordinal 0.815, interval 0.849 (the paper's worked example).
PAPER = np.array(
    [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, np.nan, np.nan, np.nan],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, np.nan, 3],
        [np.nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, np.nan],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, np.nan],
    ]
)


@pytest.mark.parametrize("level, expected", [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849)])
def test_the_worked_example_of_krippendorff_2011(level: Level, expected: float) -> None:
    assert krippendorff_alpha(PAPER, level) == pytest.approx(expected, abs=5e-4)


coders = st.integers(2, 5).flatmap(
    lambda m: st.integers(2, 15).flatmap(
        lambda n: st.lists(
            st.lists(st.one_of(st.none(), st.integers(0, 3)), min_size=n, max_size=n), min_size=m, max_size=m
        )
    )
)


@settings(max_examples=examples(150), deadline=None)
@given(coders, st.sampled_from(["nominal", "ordinal", "interval"]))
def test_equals_the_krippendorff_package(rows: list[list[int | None]], level: Level) -> None:
    data = np.array([[np.nan if v is None else v for v in row] for row in rows], dtype=float)
    ours = krippendorff_alpha(data, level)
    values = np.unique(data[~np.isnan(data)])
    pairable = sum(int((~np.isnan(col)).sum() >= 2) for col in data.T)
    if len(values) < 2 or pairable == 0:
        return  # the package raises or divides by zero where α is undefined or trivially 1
    try:
        theirs = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
    except (ValueError, ZeroDivisionError):
        return
    assert (math.isnan(ours) and math.isnan(theirs)) or ours == pytest.approx(theirs, abs=1e-9)


def test_two_complete_coders_agree_with_the_pairwise_ordinal_alpha() -> None:
    rng = np.random.default_rng(3)
    a, b = rng.integers(0, 4, 60).astype(float), rng.integers(0, 4, 60).astype(float)
    assert krippendorff_alpha(np.vstack([a, b]), "ordinal") == pytest.approx(krippendorff_alpha_ordinal(a, b))


def test_identical_coders_are_perfectly_reliable() -> None:
    row = np.array([0, 1, 2, 3, 1, 0], dtype=float)
    assert krippendorff_alpha(np.vstack([row, row, row])) == 1.0
