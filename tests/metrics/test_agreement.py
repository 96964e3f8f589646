"""Label agreement: κ against scikit-learn, α against the krippendorff package, counts by hand."""

from __future__ import annotations

import math
from random import Random

import krippendorff
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples
from sklearn.metrics import cohen_kappa_score

from studio.metrics import agreement as agree

Labels = tuple[np.ndarray, np.ndarray]  # the reference's and the audited label of each pair
GRADES = [0.0, 1.0, 2.0, 3.0]
NUGGET_SCORES = [0.0, 0.25, 0.5, 1.0]


@st.composite
def label_pairs(draw: st.DrawFn, min_size: int = 2) -> Labels:
    values = draw(st.sampled_from([GRADES, NUGGET_SCORES, [0.0, 1.0]]))
    n = draw(st.integers(min_size, 40))
    reference = draw(st.lists(st.sampled_from(values), min_size=n, max_size=n))
    audited = draw(st.lists(st.sampled_from(values), min_size=n, max_size=n))
    return np.array(reference), np.array(audited)


def codes(*arrays: np.ndarray) -> list[np.ndarray]:
    """Order-preserving integer codes (sklearn refuses non-integer floats as class labels)."""
    levels = np.unique(np.concatenate(arrays))
    return [np.searchsorted(levels, a) for a in arrays]


def same(a: float, b: float, tol: float = 1e-12) -> bool:
    return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= tol


@settings(max_examples=examples(200), deadline=None)
@given(label_pairs(), st.sampled_from([None, "linear", "quadratic"]))
def test_cohen_kappa_equals_sklearn(data: Labels, weights: agree.Weights) -> None:
    reference, audited = data
    assume(len(set(reference) | set(audited)) >= 2)  # sklearn gives NaN for a single category
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = float(cohen_kappa_score(*codes(reference, audited), weights=weights))
    assert same(agree.cohen_kappa(reference, audited, weights), expected)


@settings(max_examples=examples(200), deadline=None)
@given(label_pairs())
def test_krippendorff_alpha_ordinal_equals_krippendorff_package(data: Labels) -> None:
    reference, audited = data
    assume(len(set(reference) | set(audited)) >= 2)  # the package refuses a one-value domain
    expected = krippendorff.alpha(reliability_data=np.vstack([reference, audited]), level_of_measurement="ordinal")
    assert same(agree.krippendorff_alpha_ordinal(reference, audited), float(expected), tol=1e-9)


@settings(max_examples=examples(200), deadline=None)
@given(label_pairs(), st.sampled_from([0.5, 1.0, 2.0, 3.0]), st.sampled_from([0.25, 1.0, 2.0]))
def test_binary_kappa_binarises_each_side_at_its_own_threshold(
    data: Labels, ref_threshold: float, threshold: float
) -> None:
    reference, audited = data
    ref_binary = (reference >= ref_threshold).astype(int)
    aud_binary = (audited >= threshold).astype(int)
    assume(len(set(ref_binary) | set(aud_binary)) == 2)
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = float(cohen_kappa_score(ref_binary, aud_binary))
    assert same(agree.binary_kappa(reference, audited, ref_threshold, threshold), expected)


@settings(max_examples=examples(100), deadline=None)
@given(label_pairs(min_size=0))
def test_confusion_matrix_equals_brute_force_count(data: Labels) -> None:
    reference, audited = data
    categories = sorted(set(reference.tolist()) | set(audited.tolist()))
    matrix = agree.confusion_matrix(reference, audited, categories)
    for i, c in enumerate(categories):
        for j, d in enumerate(categories):
            count = sum(1 for r, a in zip(reference, audited, strict=True) if r == c and a == d)
            assert matrix[i, j] == count
    assert matrix.sum() == len(reference)


@settings(max_examples=examples(50), deadline=None)
@given(label_pairs(min_size=1), st.randoms())
def test_confusion_matrix_follows_the_order_of_the_categories_given(data: Labels, shuffle: Random) -> None:
    reference, audited = data
    categories = sorted(set(reference.tolist()) | set(audited.tolist()) | {7.5})  # one never used
    given = categories[:]
    shuffle.shuffle(given)
    matrix = agree.confusion_matrix(reference, audited, given)
    at = [categories.index(c) for c in given]
    assert (matrix == agree.confusion_matrix(reference, audited, categories)[np.ix_(at, at)]).all()


def test_confusion_matrix_refuses_a_value_outside_the_categories() -> None:
    with pytest.raises(KeyError):
        agree.confusion_matrix(np.array([0.0, 1.0]), np.array([0.0, 2.0]), [0.0, 1.0])


def test_kappa_of_perfect_agreement_is_one() -> None:
    grades = np.array([0.0, 1.0, 2.0, 3.0, 3.0])
    assert agree.cohen_kappa(grades, grades) == 1.0
    assert agree.cohen_kappa(grades, grades, "quadratic") == 1.0
    assert agree.krippendorff_alpha_ordinal(grades, grades) == pytest.approx(1.0)


# One topic, reference grades 3 3 2 1 0 0 (d1…d6): Best = {d1, d2} (the top grade), Acceptable =
# {d3, d4} (other grades ≥ 1), Unacceptable = {d5, d6}. Audited: d1 3, d2 1, d3 2, d4 0, d5 1, d6 0.
#   best vs unacceptable:        d1>d5 agree, d1>d6 agree, d2=d5 tie, d2>d6 agree  -> 3 / 1 / 0
#   acceptable vs unacceptable:  d3>d5 agree, d3>d6 agree, d4<d5 disagree, d4=d6 tie -> 2 / 1 / 1
#   best vs acceptable:          d1>d3 agree, d1>d4 agree, d2<d3 disagree, d2>d4 agree -> 3 / 0 / 1
# d7 is judged by the reference only and topic "t2" by nobody in the audited set: both are ignored.
ALIGNMENT_REFERENCE = {"t1": {"d1": 3, "d2": 3, "d3": 2, "d4": 1, "d5": 0, "d6": 0, "d7": 2}, "t2": {"d1": 3, "d2": 0}}
ALIGNMENT_AUDITED = {"t1": {"d1": 3, "d2": 1, "d3": 2, "d4": 0, "d5": 1, "d6": 0}}
ALIGNMENT_EXPECTED = {
    "best_vs_unacceptable": (3, 1, 0),
    "acceptable_vs_unacceptable": (2, 1, 1),
    "best_vs_acceptable": (3, 0, 1),
}


@pytest.mark.parametrize("pair", sorted(ALIGNMENT_EXPECTED))
def test_alignment_hand_worked_topic(pair: str) -> None:
    result = agree.alignment(ALIGNMENT_REFERENCE, ALIGNMENT_AUDITED, relevant=1.0)
    agree_n, tie_n, disagree_n = ALIGNMENT_EXPECTED[pair]
    assert result[pair]["pairs"] == 4
    assert result[pair]["agree"] == pytest.approx(agree_n / 4)
    assert result[pair]["tie"] == pytest.approx(tie_n / 4)
    assert result[pair]["disagree"] == pytest.approx(disagree_n / 4)


def test_alignment_without_shared_pairs_has_undefined_rates() -> None:
    result = agree.alignment({"t": {"d": 3}}, {"u": {"d": 3}})
    for bucket in result.values():
        assert bucket["pairs"] == 0
        assert math.isnan(bucket["agree"])


GRADE_VALUES = st.sampled_from([0.0, -0.0, 0.5, 1.0, 2.0, 3.0, 1e-300, float("nan")])


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.lists(GRADE_VALUES, max_size=8), max_size=3))
def test_categories_are_what_numpy_unique_gives(arrays: list[list[float]]) -> None:
    as_arrays = [np.array(a, dtype=np.float64) for a in arrays]
    found = agree.categories_of(*as_arrays)
    expected = np.unique(np.concatenate(as_arrays)).tolist() if as_arrays else []
    assert [repr(v) for v in found] == [repr(v) for v in expected]  # NaN once, and the sign of a zero
