"""Derived document scores: hand-worked examples for every score, then properties with hypothesis.

The worked example has 2 topics, 3 documents and a bank of 4 + 3 nuggets of mixed importance:

    q1: n1 vital, n2 vital, n3 okay, n4 okay          q2: m1 vital, m2 okay, m3 okay

The same nuggets carry Exam/Rubric self-ratings 0–5 (GRADES) and AutoNuggetizer assignments
(ASSIGNMENTS); every expected number below is worked out by hand in the comments.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from typing import Any, get_args

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from studio.banks import derived as dv
from studio.domain.models import BankItem, QrelsRow


def nugget(qid: str, item_id: str, importance: str | None) -> BankItem:
    return BankItem(qid=qid, item_id=item_id, kind="nugget", text=f"text of {item_id}", importance=importance)


BANK = [
    nugget("q1", "n1", "vital"),
    nugget("q1", "n2", "vital"),
    nugget("q1", "n3", "okay"),
    nugget("q1", "n4", "okay"),
    nugget("q2", "m1", "vital"),
    nugget("q2", "m2", "okay"),
    nugget("q2", "m3", "okay"),
]

GRADES: dict[str, dict[str, dict[str, float]]] = {
    "q1": {
        "d1": {"n1": 5, "n2": 3, "n3": 4},  # n4 ungraded
        "d2": {"n1": 2, "n2": 1, "n3": 0, "n4": 1},
        "d3": {"n4": 4},
    },
    "q2": {
        "d1": {"m1": 0, "m2": 2},
        "d2": {"m1": 5, "m2": 4, "m3": 4},
        "d3": {},  # judged, graded on nothing
    },
}

ASSIGNMENTS: dict[str, dict[str, dict[str, str]]] = {
    "q1": {
        "d1": {"n1": "support", "n2": "partial_support", "n3": "not_support", "n4": "support"},
        "d2": {"n1": "not_support", "n2": "not_support", "n3": "partial_support"},  # n4 unassigned
        "d3": {"n3": "support", "n4": "partial_support"},
    },
    "q2": {
        "d1": {"m1": "support", "m2": "partial_support", "m3": "not_support"},
        "d2": {"m2": "support", "m3": "support"},
    },
}


def approx(expected: dict[str, dict[str, float]]) -> Any:
    return {qid: pytest.approx(per_doc) for qid, per_doc in expected.items()}


# --- worked examples: Exam and Rubric -----------------------------------------------------------


def test_exam_binary_counts_items_at_or_above_the_threshold_over_the_whole_bank() -> None:
    # grade ≥ 4 answers an item; the denominator is the topic's bank size (4 in q1, 3 in q2).
    # q1 d1: n1=5 ✓, n2=3 ✗, n3=4 ✓, n4 ungraded ✗ -> 2/4 = 0.5
    # q1 d2: 2, 1, 0, 1 -> 0/4 = 0;  q1 d3: n4=4 ✓ -> 1/4 = 0.25
    # q2 d1: 0, 2 -> 0/3 = 0;  q2 d2: 5, 4, 4 -> 3/3 = 1;  q2 d3: nothing -> 0
    assert dv.exam_binary(GRADES, BANK) == approx(
        {"q1": {"d1": 0.5, "d2": 0.0, "d3": 0.25}, "q2": {"d1": 0.0, "d2": 1.0, "d3": 0.0}}
    )
    # At min_grade 3, q1 d1 also answers n2 (3): 3/4 = 0.75; nothing else changes.
    assert dv.exam_binary(GRADES, BANK, min_grade=3)["q1"]["d1"] == pytest.approx(0.75)
    assert dv.exam_binary(GRADES, BANK, min_grade=3)["q1"]["d2"] == 0.0


def test_exam_graded_max_is_the_best_grade_over_five() -> None:
    # q1: d1 max(5, 3, 4) = 5 -> 1.0; d2 max(2, 1, 0, 1) = 2 -> 0.4; d3 4 -> 0.8
    # q2: d1 max(0, 2) = 2 -> 0.4; d2 5 -> 1.0; d3 no grades -> 0
    assert dv.exam_graded_max(GRADES, BANK) == approx(
        {"q1": {"d1": 1.0, "d2": 0.4, "d3": 0.8}, "q2": {"d1": 0.4, "d2": 1.0, "d3": 0.0}}
    )


def test_exam_graded_mean_averages_over_the_bank_with_missing_as_zero() -> None:
    # q1 (4 items): d1 (5+3+4+0)/4 = 3 -> 3/5 = 0.6; d2 (2+1+0+1)/4 = 1 -> 0.2; d3 (0+0+0+4)/4 = 1 -> 0.2
    # q2 (3 items): d1 (0+2+0)/3 = 2/3 -> 2/15; d2 (5+4+4)/3 = 13/3 -> 13/15; d3 0
    assert dv.exam_graded_mean(GRADES, BANK) == approx(
        {"q1": {"d1": 0.6, "d2": 0.2, "d3": 0.2}, "q2": {"d1": 2 / 15, "d2": 13 / 15, "d3": 0.0}}
    )


def test_rubric_qrels_marks_a_document_relevant_when_some_grade_reaches_the_threshold() -> None:
    # best grades: q1 d1 5, d2 2, d3 4; q2 d1 2, d2 5, d3 none (0)
    assert dv.rubric_graded_qrels(GRADES) == {"q1": {"d1": 5, "d2": 2, "d3": 4}, "q2": {"d1": 2, "d2": 5, "d3": 0}}
    # ≥ 4: q1 d1, q1 d3, q2 d2 relevant
    assert dv.rubric_qrels(GRADES) == {"q1": {"d1": 1, "d2": 0, "d3": 1}, "q2": {"d1": 0, "d2": 1, "d3": 0}}
    # ≥ 2 adds q1 d2 and q2 d1; q2 d3 has no grade at all and stays 0 even at threshold 0
    assert dv.rubric_qrels(GRADES, min_grade=2) == {
        "q1": {"d1": 1, "d2": 1, "d3": 1},
        "q2": {"d1": 1, "d2": 1, "d3": 0},
    }
    assert dv.rubric_qrels(GRADES, min_grade=0)["q2"]["d3"] == 0


def test_rubric_qrels_with_a_bank_ignores_grades_of_deleted_items() -> None:
    # Without n1 in the bank, q1 d1's best remaining grade is n3 = 4 (still relevant) and q1 d2's is 1.
    bank = [it for it in BANK if it.item_id not in ("n1", "n4")]
    # q1 d3 was relevant only through n4 = 4 -> now no bank grade at all -> 0
    assert dv.rubric_graded_qrels(GRADES, items=bank)["q1"] == {"d1": 4, "d2": 1, "d3": 0}
    assert dv.rubric_qrels(GRADES, items=bank)["q1"] == {"d1": 1, "d2": 0, "d3": 0}


RANKING = {"q1": ["d2", "d1", "dX", "d3"], "q2": ["d1", "d3", "d2"]}  # dX was never graded


def test_rubric_cover_at_k_by_hand() -> None:
    # Items covered (grade ≥ 4): q1 d1 {n1, n3}, d2 {}, d3 {n4}; q2 d2 {m1, m2, m3}, d1 {}, d3 {}.
    # q1: top1 {d2} -> 0/4; top2 adds d1 -> 2/4; top3 adds ungraded dX -> 2/4; top4 adds d3 -> 3/4
    # q2: top1 {d1} -> 0; top2 {d1, d3} -> 0; top3 adds d2 -> 3/3; k beyond the run's length changes nothing
    expected = {1: (0.0, 0.0), 2: (0.5, 0.0), 3: (0.5, 1.0), 4: (0.75, 1.0), 10: (0.75, 1.0)}
    for k, (q1, q2) in expected.items():
        assert dv.rubric_cover_at_k(GRADES, BANK, RANKING, k) == pytest.approx({"q1": q1, "q2": q2}), k
    # Normalised by what any graded document covers: q1 3/4 -> k=2: (2/4)/(3/4) = 2/3, k=4: 1;
    # q2 covers 3/3 anywhere, so its normalised values equal the plain ones.
    assert dv.rubric_cover_at_k(GRADES, BANK, RANKING, 2, normalise=True) == pytest.approx({"q1": 2 / 3, "q2": 0.0})
    assert dv.rubric_cover_at_k(GRADES, BANK, RANKING, 4, normalise=True) == pytest.approx({"q1": 1.0, "q2": 1.0})


def test_rubric_cover_values_topics_of_the_bank_only() -> None:
    # q2 not retrieved -> 0; q9 retrieved but has no bank items -> left out.
    values = dv.rubric_cover_at_k(GRADES, BANK, {"q1": ["d1"], "q9": ["d1"]}, 10)
    assert values == pytest.approx({"q1": 0.5, "q2": 0.0})
    # At min_grade 5 only q1 n1 (d1 = 5) and q2 m1 (d2 = 5) are covered: 1/4 and 1/3 at k = 4.
    assert dv.rubric_cover_at_k(GRADES, BANK, RANKING, 4, min_grade=5) == pytest.approx({"q1": 0.25, "q2": 1 / 3})


def test_mean_over_topics_counts_missing_topics_as_zero() -> None:
    cover = dv.rubric_cover_at_k(GRADES, BANK, RANKING, 2)  # q1 0.5, q2 0
    assert dv.mean_over_topics(cover, ["q1", "q2"]) == pytest.approx(0.25)  # (0.5 + 0) / 2
    assert dv.mean_over_topics(cover, ["q1", "q2", "q3"]) == pytest.approx(0.5 / 3)
    assert dv.mean_over_topics(cover, ["q1", "q1"]) == pytest.approx(0.5)  # a topic counts once
    with pytest.raises(ValueError, match="no topics"):
        dv.mean_over_topics(cover, [])


# --- worked examples: nuggets -------------------------------------------------------------------

# Per-nugget scores, plain (partial = 0.5) and [strict] (partial = 0):
# q1 d1: n1 1, n2 .5 [0], n3 0, n4 1     q1 d2: n3 .5 [0], rest 0     q1 d3: n3 1, n4 .5 [0]
# q2 d1: m1 1, m2 .5 [0], m3 0           q2 d2: m1 0 (unassigned), m2 1, m3 1


@pytest.mark.parametrize(
    ("variant", "strict", "expected"),
    [
        # All = Σ/n.  q1 d1 2.5/4; d2 .5/4; d3 1.5/4.  q2 d1 1.5/3; d2 2/3.
        ("all", False, {"q1": {"d1": 0.625, "d2": 0.125, "d3": 0.375}, "q2": {"d1": 0.5, "d2": 2 / 3}}),
        # strict: q1 d1 2/4; d2 0; d3 1/4.  q2 d1 1/3; d2 2/3.
        ("all", True, {"q1": {"d1": 0.5, "d2": 0.0, "d3": 0.25}, "q2": {"d1": 1 / 3, "d2": 2 / 3}}),
        # Vital = mean over vital nuggets (q1: n1, n2; q2: m1).  q1 d1 (1+.5)/2; d2, d3 0.  q2 d1 1; d2 0.
        ("vital", False, {"q1": {"d1": 0.75, "d2": 0.0, "d3": 0.0}, "q2": {"d1": 1.0, "d2": 0.0}}),
        ("vital", True, {"q1": {"d1": 0.5, "d2": 0.0, "d3": 0.0}, "q2": {"d1": 1.0, "d2": 0.0}}),
        # Weighted = (Σvital + 0.5·Σokay)/(n_vital + 0.5·n_okay):
        # q1 (2 vital, 2 okay, denominator 2 + 0.5·2 = 3): d1 (1.5 + 0.5·1)/3 = 2/3; d2 (0 + 0.5·0.5)/3 = 1/12;
        #    d3 (0 + 0.5·1.5)/3 = 0.25
        # q2 (1 vital, 2 okay, denominator 1 + 0.5·2 = 2): d1 (1 + 0.5·0.5)/2 = 0.625; d2 (0 + 0.5·2)/2 = 0.5
        ("weighted", False, {"q1": {"d1": 2 / 3, "d2": 1 / 12, "d3": 0.25}, "q2": {"d1": 0.625, "d2": 0.5}}),
        # strict: q1 d1 (1 + 0.5·1)/3 = 0.5; d2 0; d3 (0.5·1)/3 = 1/6.  q2 d1 (1 + 0)/2 = 0.5; d2 0.5.
        ("weighted", True, {"q1": {"d1": 0.5, "d2": 0.0, "d3": 1 / 6}, "q2": {"d1": 0.5, "d2": 0.5}}),
    ],
)
def test_nugget_scores_by_hand(variant: dv.NuggetVariant, strict: bool, expected: dict[str, dict[str, float]]) -> None:
    assert dv.nugget_scores(ASSIGNMENTS, BANK, variant, strict=strict) == approx(expected)


def test_strict_and_plain_differ_only_where_a_nugget_is_partially_supported() -> None:
    # q2 d2 has no partial_support, so its scores are the same; every other document has one.
    assert get_args(dv.NuggetVariant) == dv.NUGGET_VARIANTS
    for variant in get_args(dv.NuggetVariant):
        plain = dv.nugget_scores(ASSIGNMENTS, BANK, variant)
        strict = dv.nugget_scores(ASSIGNMENTS, BANK, variant, strict=True)
        assert plain["q2"]["d2"] == strict["q2"]["d2"]
    plain, strict = dv.nugget_scores(ASSIGNMENTS, BANK), dv.nugget_scores(ASSIGNMENTS, BANK, strict=True)
    assert all(plain[q][d] > strict[q][d] for q, d in [("q1", "d1"), ("q1", "d2"), ("q1", "d3"), ("q2", "d1")])


def test_vital_is_zero_for_a_topic_without_vital_nuggets_and_questions_are_not_nuggets() -> None:
    bank = [
        nugget("q3", "o1", "okay"),
        nugget("q3", "o2", "okay"),
        BankItem(qid="q3", item_id="x", kind="question", text="a question?"),
    ]
    assignments = {"q3": {"d1": {"o1": "support", "o2": "partial_support"}}}
    assert dv.nugget_scores(assignments, bank, "vital") == {"q3": {"d1": 0.0}}
    # All over the two nuggets only (the question is not one): (1 + 0.5)/2
    assert dv.nugget_scores(assignments, bank, "all") == {"q3": {"d1": 0.75}}


def test_derived_scores_become_qrels_rows() -> None:
    rows = dv.to_qrels_rows(dv.rubric_qrels(GRADES))
    assert rows[:3] == [QrelsRow("q1", "d1", 1.0), QrelsRow("q1", "d2", 0.0), QrelsRow("q1", "d3", 1.0)]
    assert len(rows) == 6


# --- invalid inputs -----------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [6, -1, 5.5, math.nan, math.inf, "4", None, True])
def test_a_grade_outside_zero_to_five_is_refused(bad: object) -> None:
    grades: Any = {"q1": {"d1": {"n1": bad}}}  # not ItemGrades: the check at run time is under test
    for call in (
        lambda: dv.exam_binary(grades, BANK),
        lambda: dv.exam_graded_max(grades, BANK),
        lambda: dv.exam_graded_mean(grades, BANK),
        lambda: dv.rubric_qrels(grades),
        lambda: dv.rubric_cover_at_k(grades, BANK, RANKING, 3),
    ):
        with pytest.raises(ValueError, match=r"grade of item 'n1' of document 'd1', topic 'q1'"):
            call()


def test_a_grade_of_an_item_outside_the_bank_is_still_checked() -> None:
    with pytest.raises(ValueError, match="0–5"):
        dv.exam_binary({"q1": {"d1": {"gone": 9}}}, BANK)


@pytest.mark.parametrize("bad", [-0.5, 5.01, math.nan])
def test_a_threshold_outside_zero_to_five_is_refused(bad: float) -> None:
    with pytest.raises(ValueError, match="min_grade"):
        dv.exam_binary(GRADES, BANK, min_grade=bad)
    with pytest.raises(ValueError, match="min_grade"):
        dv.rubric_qrels(GRADES, min_grade=bad)
    with pytest.raises(ValueError, match="min_grade"):
        dv.rubric_cover_at_k(GRADES, BANK, RANKING, 2, min_grade=bad)


@pytest.mark.parametrize("bad", ["supported", "partial", "", "SUPPORT"])
def test_an_unknown_assignment_is_refused(bad: str) -> None:
    assignments = {"q1": {"d1": {"n1": "support", "n2": bad}}}
    with pytest.raises(ValueError, match=r"nugget 'n2' to document 'd1', topic 'q1' must be one of"):
        dv.nugget_scores(assignments, BANK)


def test_other_invalid_inputs_are_refused() -> None:
    with pytest.raises(ValueError, match="variant"):
        dv.nugget_scores(ASSIGNMENTS, BANK, "mean")  # type: ignore[arg-type]  # an unknown variant on purpose
    with pytest.raises(ValueError, match="appears twice"):
        dv.exam_binary(GRADES, [*BANK, nugget("q1", "n1", "okay")])
    no_importance = [nugget("q1", "n1", None), nugget("q1", "n2", "vital")]
    assert dv.nugget_scores(ASSIGNMENTS, no_importance, "all")["q1"]["d1"] == 0.75  # (1 + 0.5)/2
    for variant in ("vital", "weighted"):
        with pytest.raises(ValueError, match="importance"):
            dv.nugget_scores(ASSIGNMENTS, no_importance, variant)
    bad_k: tuple[Any, ...] = (0, -1, 1.5, True)  # not all int: the check at run time is under test
    for k in bad_k:
        with pytest.raises(ValueError, match="k must be a positive integer"):
            dv.rubric_cover_at_k(GRADES, BANK, RANKING, k)


# --- properties ---------------------------------------------------------------------------------

QIDS = ["q1", "q2", "q3"]
DOCS = [f"d{i}" for i in range(6)]
grade_values = st.one_of(st.integers(0, 5), st.floats(0, 5, allow_nan=False))


@st.composite
def banks(draw: st.DrawFn, importance: st.SearchStrategy[str] | None = None) -> list[BankItem]:
    if importance is None:
        importance = st.sampled_from(["vital", "okay"])
    return [nugget(qid, f"{qid}-i{i}", draw(importance)) for qid in QIDS for i in range(draw(st.integers(0, 5)))]


@st.composite
def graded(draw: st.DrawFn) -> tuple[list[BankItem], dict[str, dict[str, dict[str, float]]]]:
    bank = draw(banks())
    ids = {qid: [it.item_id for it in bank if it.qid == qid] + [f"{qid}-gone"] for qid in QIDS}
    grades = {
        qid: {
            d: draw(st.dictionaries(st.sampled_from(ids[qid]), grade_values))
            for d in draw(st.lists(st.sampled_from(DOCS), unique=True, max_size=5))
        }
        for qid in draw(st.lists(st.sampled_from(QIDS), unique=True))
    }
    return bank, grades


@st.composite
def assigned(
    draw: st.DrawFn, importance: st.SearchStrategy[str] | None = None
) -> tuple[list[BankItem], dict[str, dict[str, dict[str, str]]]]:
    bank = draw(banks(importance))
    assignments = {
        qid: {
            d: {
                it.item_id: draw(st.sampled_from(dv.ASSIGNMENTS))
                for it in bank
                if it.qid == qid and draw(st.booleans())
            }
            for d in draw(st.lists(st.sampled_from(DOCS), unique=True))
        }
        for qid in draw(st.lists(st.sampled_from(QIDS), unique=True))
    }
    return bank, assignments


def values_of(scores: Mapping[str, Mapping[str, float]]) -> list[float]:
    return [v for per_doc in scores.values() for v in per_doc.values()]


@settings(max_examples=examples(150))
@given(graded(), st.integers(0, 5), st.integers(1, 8), st.booleans())
def test_every_exam_and_rubric_score_lies_in_zero_one(case: Any, min_grade: int, k: int, normalise: bool) -> None:
    bank, grades = case
    for scores in (
        dv.exam_binary(grades, bank, min_grade),
        dv.exam_graded_max(grades, bank),
        dv.exam_graded_mean(grades, bank),
        dv.rubric_qrels(grades, min_grade),
    ):
        assert all(0.0 <= v <= 1.0 for v in values_of(scores))
    cover = dv.rubric_cover_at_k(grades, bank, {q: DOCS for q in QIDS}, k, min_grade, normalise)
    assert all(0.0 <= v <= 1.0 for v in cover.values())


@settings(max_examples=examples(150))
@given(assigned(), st.sampled_from(dv.NUGGET_VARIANTS), st.booleans())
def test_every_nugget_score_lies_in_zero_one(case: Any, variant: dv.NuggetVariant, strict: bool) -> None:
    bank, assignments = case
    assert all(0.0 <= v <= 1.0 for v in values_of(dv.nugget_scores(assignments, bank, variant, strict)))


@settings(max_examples=examples(150))
@given(graded(), grade_values, grade_values)
def test_raising_the_threshold_never_raises_exam_binary_or_rubric_qrels(case: Any, a: float, b: float) -> None:
    bank, grades = case
    low, high = min(a, b), max(a, b)
    for score in (lambda t: dv.exam_binary(grades, bank, t), lambda t: dv.rubric_qrels(grades, t)):
        at_low, at_high = score(low), score(high)
        assert all(at_high[q][d] <= at_low[q][d] for q in at_low for d in at_low[q])


@settings(max_examples=examples(150))
@given(graded(), grade_values)
def test_rubric_qrels_is_the_graded_qrels_at_the_threshold_and_agrees_with_exam_binary(case: Any, t: float) -> None:
    bank, grades = case
    binary, graded_max, exam = (
        dv.rubric_qrels(grades, t, bank),
        dv.rubric_graded_qrels(grades, bank),
        dv.exam_binary(grades, bank, t),
    )
    for q in binary:
        for d in binary[q]:
            has_grade = bool([i for i in grades[q][d] if not i.endswith("-gone")])
            assert binary[q][d] == int(has_grade and graded_max[q][d] >= t)
            assert binary[q][d] == int(exam[q][d] > 0)  # relevant iff it answers some bank item


@settings(max_examples=examples(150))
@given(
    st.one_of(assigned(), st.sampled_from(["vital", "okay"]).flatmap(lambda imp: assigned(st.just(imp)))), st.booleans()
)
def test_weighted_equals_all_when_every_nugget_of_a_topic_has_one_importance(case: Any, strict: bool) -> None:
    # All okay: (0 + 0.5·Σ)/(0 + 0.5·n) = Σ/n = All; all vital: (Σ + 0)/(n + 0) = All.
    bank, assignments = case
    uniform = {q for q in QIDS if len({it.importance for it in bank if it.qid == q}) <= 1}
    assume(uniform)
    weighted = dv.nugget_scores(assignments, bank, "weighted", strict)
    every = dv.nugget_scores(assignments, bank, "all", strict)
    for q in uniform & set(every):
        assert weighted[q] == every[q]


@settings(max_examples=examples(150))
@given(assigned())
def test_plain_minus_strict_all_is_half_the_partial_fraction(case: Any) -> None:
    bank, assignments = case
    plain, strict = dv.nugget_scores(assignments, bank), dv.nugget_scores(assignments, bank, strict=True)
    for q in plain:
        n = sum(1 for it in bank if it.qid == q)
        for d in plain[q]:
            partial = sum(1 for label in assignments[q][d].values() if label == "partial_support")
            assert plain[q][d] - strict[q][d] == pytest.approx(0.5 * partial / n if n else 0.0)
            assert (plain[q][d] == strict[q][d]) == (partial == 0)


@settings(max_examples=examples(150))
@given(graded(), st.integers(0, 5), st.booleans(), st.randoms(use_true_random=False))
def test_rubric_cover_grows_with_k_and_normalised_reaches_one(case: Any, t: int, normalise: bool, rnd: Any) -> None:
    bank, grades = case
    ranking = {q: rnd.sample(sorted(per_doc), len(per_doc)) for q, per_doc in grades.items()}
    curves = [dv.rubric_cover_at_k(grades, bank, ranking, k, t, normalise) for k in range(1, len(DOCS) + 2)]
    for before, after in itertools.pairwise(curves):
        assert all(after[q] >= before[q] for q in before)
    for q, docs in ranking.items():
        ids = {it.item_id for it in bank if it.qid == q}
        covered = any(i in ids and g >= t for per in grades[q].values() for i, g in per.items())
        if docs and covered:
            full = dv.rubric_cover_at_k(grades, bank, ranking, len(docs), t, normalise=True)
            assert full[q] == 1.0
