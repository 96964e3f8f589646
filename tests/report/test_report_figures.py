"""The figures' axes: a measure within [0, 1] is drawn on an axis that stays within it."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from studio.services.report.figures import axis_limits

unit = st.floats(min_value=0.0, max_value=1.0)


@given(st.lists(unit, min_size=1, max_size=30))
def test_values_of_a_measure_get_an_axis_within_its_range_around_every_value(values: list[float]) -> None:
    span = (max(values) - min(values)) or 1.0
    low, high = axis_limits(values, span, 0.08, 0.12)
    assert -0.02 <= low <= min(values) and max(values) <= high <= 1.02


def test_an_ndcg_of_0_9_no_longer_pushes_the_axis_to_1_1() -> None:
    # The scatter gave the run names 35% of the span on the right: nDCG values of 0.3–0.9 ran to 1.11.
    low, high = axis_limits([0.3, 0.6, 0.9], 0.6, 0.08, 0.08)
    assert (round(low, 3), round(high, 3)) == (0.252, 0.948)


def test_values_beyond_the_unit_range_keep_their_margins() -> None:
    assert axis_limits([-1.0, 3.0], 4.0, 0.25, 0.25) == (-2.0, 4.0)
