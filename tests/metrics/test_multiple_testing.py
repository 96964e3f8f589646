"""Corrections for many run pairs, against statsmodels' multipletests."""

from __future__ import annotations

import gc
import math
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples
from statsmodels.stats.multitest import multipletests  # type: ignore[import-untyped]  # ships no types

from studio.metrics.multiple_testing import adjust, rejected

STATSMODELS = {"holm": "holm", "bh": "fdr_bh", "bonferroni": "bonferroni"}
# p-values with ties (resampled p-values tie often) and values at the edges.
P_VALUES = st.lists(
    st.sampled_from([0.0, 1e-6, 0.001, 0.01, 0.02, 0.04, 0.05, 0.2, 0.5, 1.0]) | st.floats(0, 1),
    min_size=1,
    max_size=40,
)


@settings(max_examples=examples(300), deadline=None)
@given(P_VALUES, st.sampled_from(sorted(STATSMODELS)), st.sampled_from([0.01, 0.05, 0.1]))
def test_adjusted_p_values_and_decisions_equal_statsmodels(p: list[float], method: str, alpha: float) -> None:
    # statsmodels' Holm ends in gc.collect(): a walk over the whole test process's heap, a tenth
    # of a second each call in a full run, for nothing its figures depend on.
    with mock.patch.object(gc, "collect", lambda generation=2: 0):
        reject, corrected, _, _ = multipletests(np.array(p), alpha=alpha, method=STATSMODELS[method])
    mine = adjust(np.array(p), method)
    assert np.allclose(mine, corrected, rtol=0, atol=1e-12)
    assert np.array_equal(rejected(np.array(p), method, alpha), reject)


def test_no_correction_keeps_the_p_values() -> None:
    p = np.array([0.04, 0.2, 0.001])
    assert np.array_equal(adjust(p, "none"), p)
    assert rejected(p, "none", 0.05).tolist() == [True, False, True]


def test_an_untested_pair_stays_untested_and_does_not_count_among_the_hypotheses() -> None:
    p = np.array([0.01, math.nan, 0.02])
    adjusted = adjust(p, "bonferroni")
    assert adjusted[0] == pytest.approx(0.02) and adjusted[2] == pytest.approx(0.04)  # m = 2, not 3
    assert math.isnan(adjusted[1]) and not rejected(p, "bonferroni", 0.05)[1]


def test_a_p_value_at_its_threshold_is_rejected_as_statsmodels_rejects_it() -> None:
    # BH's adjusted 0.05·6/3 rounds to 0.10000000000000002: compared with α 0.1 it would fail,
    # while 0.05 ≤ 0.1·3/6 holds exactly (a property test found it).
    p = np.array([0.0, 0.0, 0.05, 0.2, 0.2, 0.2])
    assert rejected(p, "bh", 0.1).tolist() == [True, True, True, False, False, False]


def test_an_unknown_correction_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown correction"):
        adjust(np.array([0.5, 0.1]), "sidak")
