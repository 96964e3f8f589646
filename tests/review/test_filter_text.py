"""Review's filter text (`ReviewFilters.parse`): every slice it reads, `pair A B` among them, the
text it refuses, and `as_text` read back as the same filters."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from studio.domain.errors import UsageError
from studio.domain.views import ReviewFilters

names = st.text(st.characters(blacklist_categories=("Z", "C")), min_size=1, max_size=12)
grades = st.floats(-3, 10, allow_nan=False, allow_infinity=False)
slices = st.one_of(
    st.builds(ReviewFilters),
    st.builds(lambda q: ReviewFilters(topic=q), names),
    st.builds(lambda r: ReviewFilters(run=r), names),
    st.builds(lambda a: ReviewFilters(conflicts=a), names),
    st.builds(lambda g, h: ReviewFilters(ref_grade=g, grade=h), grades, grades),
    st.builds(lambda a, b: ReviewFilters(decision_pair=(a, b)), names, names).filter(
        lambda f: f.decision_pair is not None and f.decision_pair[0] != f.decision_pair[1]
    ),
)


@given(slices, st.booleans())
def test_as_text_reads_back_as_the_same_filters(filters: ReviewFilters, spread: bool) -> None:
    if spread:
        filters = replace(filters, order="spread")
    assert ReviewFilters.parse(filters.as_text()) == filters


def test_pair_names_the_two_runs_of_a_decision() -> None:
    assert ReviewFilters.parse("pair lexical-bm25 dense-good") == ReviewFilters(
        decision_pair=("lexical-bm25", "dense-good")
    )
    assert ReviewFilters.parse("spread pair a b") == ReviewFilters(decision_pair=("a", "b"), order="spread")
    assert "the labels behind a vs b" in ReviewFilters.parse("pair a b").describe()


@pytest.mark.parametrize("text", ["pair", "pair a", "pair a b c", "pair a a"])
def test_a_pair_that_is_not_two_different_runs_is_refused(text: str) -> None:
    with pytest.raises(UsageError, match="two different runs"):
        ReviewFilters.parse(text)
