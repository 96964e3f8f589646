"""p-values that agree with t intervals, against scipy.stats' t distribution."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from studio.metrics.interval_tests import two_sided_p

finite = st.floats(-10.0, 10.0, allow_nan=False)
positive = st.floats(1e-3, 10.0, allow_nan=False)


@given(finite, positive, st.integers(1, 200), st.floats(0.001, 0.5))
def test_p_below_alpha_exactly_when_the_interval_excludes_zero(
    estimate: float, se: float, df: int, alpha: float
) -> None:
    half = stats.t.ppf(1 - alpha / 2, df) * se
    p = float(two_sided_p(np.array([estimate]), np.array([se]), np.array([float(df)]))[0])
    assert p == pytest.approx(2 * stats.t.sf(abs(estimate) / se, df), rel=1e-9, abs=1e-300)
    if abs(abs(estimate) - half) > 1e-9 * (1 + half):  # away from the boundary, where rounding decides
        assert (p < alpha) == (abs(estimate) > half)


def test_a_zero_se_decides_by_the_estimate_alone_and_no_df_tests_nothing() -> None:
    p = two_sided_p(np.array([0.2, 0.0, 0.2, np.nan]), np.array([0.0, 0.0, 0.1, 0.1]), np.array([5.0, 5.0, 0.0, 5.0]))
    assert p[0] == 0.0 and p[1] == 1.0
    assert np.isnan(p[2]) and np.isnan(p[3])
