"""Per-pair label probabilities as CSV: the column variants, the argmax label and its tie rule,
refusals with the file and line, and the writer read back."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from studio.domain.errors import InputError
from studio.formats.label_probs import PairProbs, parse_label_probs, write_label_probs


def test_lara_binary_columns_are_grades_one_and_zero() -> None:
    (pair,) = parse_label_probs("qid,docid,prob_yes,prob_no\n7,d1,0.8,0.2\n", "p.csv")
    assert pair == PairProbs("7", "d1", {0: 0.2, 1: 0.8})
    assert (pair.label, pair.expected) == (1, 0.8)


def test_graded_columns_in_any_order_and_a_tab_separated_file() -> None:
    (pair,) = parse_label_probs("query_id\tpid\tprob_2\tprob_0\tprob_1\n7\td1\t0.5\t0.25\t0.25\n", "p.tsv")
    assert pair.probs == {0: 0.25, 1: 0.25, 2: 0.5}
    assert pair.label == 2
    assert pair.expected == pytest.approx(1.25)


def test_equally_probable_grades_give_the_lowest() -> None:
    (pair,) = parse_label_probs("topic_id,doc_id,prob_0,prob_1,prob_2,prob_3\n7,d1,0.1,0.4,0.4,0.1\n", "p.csv")
    assert pair.label == 1


@pytest.mark.parametrize(
    ("text", "line", "reason"),
    [
        ("topic_id,doc_id,prob_0,prob_1\n7,d1,0.5,0.6\n", 2, "sum to"),
        ("topic_id,doc_id,prob_0,prob_1\n7,d1,1.5,-0.5\n", 2, "outside"),
        ("topic_id,doc_id,prob_0,prob_1\n7,d1,nan,0.5\n", 2, "not a number|finite"),
        ("topic_id,doc_id,prob_0,prob_1\n7,d1,0.5,0.5\n7,d1,0.5,0.5\n", 3, r"twice \(first on line 2\)"),
        ("topic_id,doc_id,prob_0,prob_1\n7,d1,0.5\n", 2, "fields"),
        ("topic_id,doc_id,prob_0,score\n7,d1,0.5,0.5\n", 1, "unknown column 'score'"),
        ("topic_id,prob_0,prob_1\n7,0.5,0.5\n", 1, "document column"),
        ("topic_id,doc_id,prob_yes,prob_0\n7,d1,0.5,0.5\n", 1, "prob_yes and prob_no"),
        ("topic_id,doc_id,prob_0\n7,d1,1\n", 1, "at least two"),
        ("topic_id,doc_id,prob_0,prob_1\n7,d 1,0.5,0.5\n", 2, "docid"),
    ],
)
def test_refusals_name_the_line(text: str, line: int, reason: str) -> None:
    with pytest.raises(InputError, match=reason) as refused:
        parse_label_probs(text, "p.csv")
    assert (refused.value.file, refused.value.line) == ("p.csv", line)


def test_a_sum_within_a_millionth_of_one_is_accepted() -> None:
    (pair,) = parse_label_probs("topic_id,doc_id,prob_0,prob_1\n7,d1,0.3333333,0.6666667\n", "p.csv")
    assert math.isclose(sum(pair.probs.values()), 1.0)


@st.composite
def distributions(draw: st.DrawFn) -> list[PairProbs]:
    grades = draw(st.integers(min_value=2, max_value=5))
    pairs = draw(st.lists(st.tuples(st.integers(0, 50), st.integers(0, 50)), min_size=1, max_size=6, unique=True))
    rows = []
    for qid, docid in pairs:
        weights = draw(st.lists(st.integers(0, 1000), min_size=grades, max_size=grades).filter(any))
        total = sum(weights)
        rows.append(PairProbs(str(qid), f"d{docid}", {g: w / total for g, w in enumerate(weights)}))
    return rows


@given(rows=distributions())
def test_written_distributions_read_back_equal(rows: list[PairProbs]) -> None:
    assert parse_label_probs(write_label_probs(rows), "p.csv") == rows
