"""The precise TREC run and qrels reader: columns, whitespace, duplicates, numbers, line numbers."""

from __future__ import annotations

import io
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from studio.domain.choices import OnDuplicateGrade
from studio.domain.errors import InputError
from studio.domain.models import QrelsRow, RunRow
from studio.domain.numbers import GRADE_LIMIT
from studio.formats.trec import parse_qrels, parse_run, write_qrels, write_run


def refused(parse: Callable[..., object], text: str, *args: object) -> InputError:
    with pytest.raises(InputError) as caught:
        parse(text, "f.txt", *args)
    return caught.value


# -- runs ---------------------------------------------------------------------------------------


def test_run_columns_become_rows_and_the_tag() -> None:
    parsed = parse_run("q1 Q0 d1 1 2.5 bm25\nq1 Q0 d2 2 -1 bm25\nq2 Q0 d1 1 3 bm25\n", "f.txt")
    assert parsed.rows == [
        RunRow("q1", "d1", 1, 2.5),
        RunRow("q1", "d2", 2, -1.0),
        RunRow("q2", "d1", 1, 3.0),
    ]
    assert parsed.tag == "bm25"
    assert parsed.other_tags == frozenset()


def test_run_columns_may_be_separated_by_tabs_and_runs_of_spaces() -> None:
    parsed = parse_run("q1\tQ0\td1\t1\t2.5\tt\nq1   Q0  d2 \t 2  1.5   t  \n", "f.txt")
    assert parsed.rows == [RunRow("q1", "d1", 1, 2.5), RunRow("q1", "d2", 2, 1.5)]


def test_run_accepts_crlf_and_blank_lines() -> None:
    parsed = parse_run("\r\nq1 Q0 d1 1 2 t\r\n\r\n   \r\nq1 Q0 d2 2 1 t\r\n\r\n", "f.txt")
    assert parsed.rows == [RunRow("q1", "d1", 1, 2.0), RunRow("q1", "d2", 2, 1.0)]
    assert parsed.tag == "t"


def test_run_columns_after_the_sixth_are_ignored_as_trec_eval_ignores_them() -> None:
    parsed = parse_run("q1 Q0 d1 1 2.5 bm25 junk\nq1\tQ0\td2\t2\t1.5\tbm25\tx\ty z\n", "f.txt")
    assert parsed.rows == [RunRow("q1", "d1", 1, 2.5), RunRow("q1", "d2", 2, 1.5)]
    assert parsed.tag == "bm25" and not parsed.other_tags


def test_run_comment_lines_are_skipped_as_trec_eval_10_skips_them() -> None:
    text = "# run bm25\n  \t# indented comment\nq1 Q0 #d1 1 2 t\n#q1 Q0 d2 2 1 t\n#\nq2 Q0 d1 1 1 t # not a comment\n"
    parsed = parse_run(text, "f.txt")
    assert parsed.rows == [RunRow("q1", "#d1", 1, 2.0), RunRow("q2", "d1", 1, 1.0)]
    assert parsed.tag == "t"


def test_run_line_numbers_count_comment_lines() -> None:
    error = refused(parse_run, "# header\n# more\nq1 Q0 d1 1 2 t\nq1 Q0 d2 x 1 t\n")
    assert error.line == 4


@pytest.mark.parametrize("parse", [parse_run, parse_qrels])
def test_a_file_of_nothing_but_comments_is_refused_as_empty(parse: Callable[..., object]) -> None:
    error = refused(parse, "# a comment\n\n  # another\r\n")
    assert error.line is None and "empty" in error.reason and "comments" in error.reason


def test_run_mixing_tags_is_refused_on_the_line_that_changes_the_tag() -> None:
    error = refused(parse_run, "q1 Q0 d1 1 2 a\n# c\nq1 Q0 d2 2 1 a\nq2 Q0 d1 1 1 b\nq2 Q0 d2 2 1 c\n")
    assert error.line == 4
    assert "tag 'b' differs from the tag 'a' of line 1" in error.reason and "--name" in error.reason


def test_run_mixing_tags_is_one_run_when_the_caller_names_it() -> None:
    parsed = parse_run("q1 Q0 d1 1 2 a\nq1 Q0 d2 2 1 b\nq2 Q0 d1 1 1 c\n", "f.txt", mixed_tags=True)
    assert parsed.tag == "a"
    assert parsed.other_tags == {"b", "c"}
    assert len(parsed.rows) == 3


def test_run_scores_are_read_in_every_spelling_of_ascii_decimal() -> None:
    spellings = ["+1.5", ".5", "5.", "1E-3", "-0", "00.25", "-2.5e+2"]
    text = "".join(f"q1 Q0 d{i} {i} {score} t\n" for i, score in enumerate(spellings))
    scores = [row.score for row in parse_run(text, "f.txt").rows]
    assert scores == [1.5, 0.5, 5.0, 0.001, 0.0, 0.25, -250.0]


def test_columns_split_on_spaces_and_tabs_only() -> None:
    # A no-break space (or any other blank) stays inside its column: here it makes the score
    # no number, where str.split() would have read a docid 'd1' and a score '2'.
    error = refused(parse_run, "q1 Q0 d1 1 2\u00a0x t\n")
    assert error.line == 1 and "score '2\\xa0x'" in error.reason


def test_run_same_docid_in_two_topics_is_fine() -> None:
    assert len(parse_run("q1 Q0 d1 1 2 t\nq2 Q0 d1 1 2 t\n", "f.txt").rows) == 2


def test_run_docid_ranked_twice_names_the_second_line() -> None:
    error = refused(parse_run, "q1 Q0 d1 1 3 t\n\nq1 Q0 d2 2 2 t\nq1 Q0 d1 3 1 t\n")
    assert (error.file, error.line) == ("f.txt", 4)
    assert "ranked twice" in error.reason and "first on line 1" in error.reason
    assert str(error).startswith("f.txt:4: ")


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("q1 Q0 d2 2 1", "expected at least 6 columns"),
        ("q1 Q0 d2 2", "expected at least 6 columns"),
        ("q1 Q0 d2 2 1\rq1 Q0 d4 4 0 t", "carriage return (CR) inside the line"),
        ("q1 Q0 d2 two 1 t", "rank 'two' is not an integer"),
        ("q1 Q0 d2 2.0 1 t", "rank '2.0' is not an integer"),
        ("q1 Q0 d2 2 high t", "score 'high' is not a number"),
        ("q1 Q0 d2 2 1,5 t", "score '1,5' is not a number"),
        ("q1 Q0 d2 2 nan t", "score 'nan' is not a finite number"),
        ("q1 Q0 d2 2 NaN t", "score 'NaN' is not a finite number"),
        ("q1 Q0 d2 2 -Infinity t", "score '-Infinity' is not a finite number"),
        ("q1 Q0 d2 2 1e400 t", "score '1e400' is too large to be a finite number"),
        ("q1 Q0 d2 2 1_0 t", "score '1_0' is not a number"),
        ("q1 Q0 d2 2 \u0661 t", "score '\u0661' is not a number"),
        ("q1 Q0 d2 \uff11 1 t", "rank '\uff11' is not an integer"),
        ("q1 Q0 d2 1_0 1 t", "rank '1_0' is not an integer"),
        ("q1 Q0 d2 99999999999999999999 1 t", "out of range"),
        ("q1 Q0 d\x1b[31m 2 1 t", "docid 'd\\x1b[31m' holds a control character (U+001B)"),
        ("q\u00a01 Q0 d2 2 1 t", "qid 'q\\xa01' holds a blank (U+00A0)"),
    ],
)
def test_run_bad_line_is_refused_with_its_number(line: str, reason: str) -> None:
    error = refused(parse_run, f"q1 Q0 d1 1 2 t\n\n{line}\nq1 Q0 d3 3 0 t\n")
    assert error.line == 3
    assert reason in error.reason


@pytest.mark.parametrize("text", ["", "\n\n", "  \r\n\t\n"])
def test_run_without_rows_is_refused(text: str) -> None:
    error = refused(parse_run, text)
    assert error.line is None and "empty" in error.reason


# -- qrels --------------------------------------------------------------------------------------


def test_qrels_columns_become_rows_with_float_grades() -> None:
    parsed = parse_qrels("q1 0 d1 1\nq1 Q0 d2 0.25\nq2\t0\td1\t-1\r\n\nq2  0 d3   3\n", "f.txt")
    assert parsed.rows == [
        QrelsRow("q1", "d1", 1.0),
        QrelsRow("q1", "d2", 0.25),
        QrelsRow("q2", "d1", -1.0),
        QrelsRow("q2", "d3", 3.0),
    ]
    assert parsed.repeated_pairs == 0


def test_qrels_comment_lines_are_skipped() -> None:
    parsed = parse_qrels("# qrels\nq1 0 d1 1\n\t#q1 0 d2 0\nq1 0 #d3 2\n", "f.txt")
    assert parsed.rows == [QrelsRow("q1", "d1", 1.0), QrelsRow("q1", "#d3", 2.0)]


def test_qrels_pair_graded_twice_differently_is_an_error_on_the_second_line() -> None:
    error = refused(parse_qrels, "q1 0 d1 1\nq1 0 d2 0\n\nq1 0 d1 2\n")
    assert error.line == 4
    assert "line 1" in error.reason and "--on-duplicate" in error.reason


@pytest.mark.parametrize(
    ("policy", "grade"), [(OnDuplicateGrade.FIRST, 1.0), (OnDuplicateGrade.LAST, 0.0), (OnDuplicateGrade.HIGHEST, 3.0)]
)
def test_qrels_duplicate_policy_keeps_the_first_last_or_highest_grade(policy: OnDuplicateGrade, grade: float) -> None:
    parsed = parse_qrels("q1 0 d1 1\nq1 0 d2 0\nq1 0 d1 3\nq1 0 d1 0\n", "f.txt", policy)
    assert parsed.rows == [QrelsRow("q1", "d1", grade), QrelsRow("q1", "d2", 0.0)]
    assert parsed.repeated_pairs == 2


def test_qrels_identical_duplicate_is_collapsed_and_counted() -> None:
    parsed = parse_qrels("q1 0 d1 2\nq1 0 d2 0\nq1 1 d1 2.0\n", "f.txt")
    assert parsed.rows == [QrelsRow("q1", "d1", 2.0), QrelsRow("q1", "d2", 0.0)]
    assert parsed.repeated_pairs == 1


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("q1 0 d2", "expected 4 columns"),
        ("q1 0 d2 1 x", "expected 4 columns (qid iter docid grade), found 5"),
        ("q1 0 d2 1\rq1 0 d3 1", "carriage return (CR) inside the line"),
        ("q1 0 d2 relevant", "grade 'relevant' is not a number"),
        ("q1 0 d2 nan", "grade 'nan' is not a finite number"),
        ("q1 0 d2 inf", "grade 'inf' is not a finite number"),
        ("q1 0 d2 1_0", "grade '1_0' is not a number"),
        ("q1 0 d2 \u0663", "grade '\u0663' is not a number"),
        ("q1 0 d2 \uff12", "grade '\uff12' is not a number"),
        ("q1 0 d2 1\u00a0", "grade '1\\xa0' is not a number"),
        ("q1 0 d\x7f 1", "docid 'd\\x7f' holds a control character (U+007F)"),
    ],
)
def test_qrels_bad_line_is_refused_with_its_number(line: str, reason: str) -> None:
    error = refused(parse_qrels, f"\nq1 0 d1 1\n{line}\n")
    assert error.line == 3
    assert reason in error.reason


@pytest.mark.parametrize("text", ["", "\r\n", " \n \n"])
def test_qrels_without_rows_is_refused(text: str) -> None:
    error = refused(parse_qrels, text)
    assert error.line is None and "empty" in error.reason


# -- writers round-trip through the reader -------------------------------------------------------

# Ids are what TREC files hold: non-empty text without whitespace or control characters.
ids = st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zs", "Zl", "Zp")), min_size=1, max_size=12)
# A line whose first field starts with `#` is a comment (trec_eval 10 reads it so too).
qids = ids.filter(lambda qid: not qid.startswith("#"))
# Grades lie within trec_eval's range (±2**63, `studio.domain.numbers.GRADE_LIMIT`), its ends included.
grades = st.one_of(
    st.integers(-1, 4).map(float),
    st.floats(min_value=-GRADE_LIMIT, max_value=GRADE_LIMIT),
    st.sampled_from([-GRADE_LIMIT, GRADE_LIMIT]),
)
scores = st.floats(allow_nan=False, allow_infinity=False)
ranks = st.integers(-(2**63), 2**63 - 1)


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.tuples(qids, ids, grades), min_size=1, unique_by=lambda r: (r[0], r[1])))
def test_written_qrels_read_back_as_the_same_rows(rows: list[tuple[str, str, float]]) -> None:
    qrels = [QrelsRow(qid, docid, grade) for qid, docid, grade in rows]
    out = io.StringIO()
    write_qrels(qrels, out)
    parsed = parse_qrels(out.getvalue(), "f.txt")
    assert parsed.rows == qrels
    assert parsed.repeated_pairs == 0


@settings(max_examples=examples(200), deadline=None)
@given(
    st.lists(st.tuples(qids, ids, ranks, scores), min_size=1, unique_by=lambda r: (r[0], r[1])),
    ids,
)
def test_written_run_reads_back_as_the_same_rows(rows: list[tuple[str, str, int, float]], tag: str) -> None:
    run = [RunRow(qid, docid, rank, score) for qid, docid, rank, score in rows]
    out = io.StringIO()
    write_run(run, tag, out)
    parsed = parse_run(out.getvalue(), "f.txt")
    assert parsed.rows == run
    assert parsed.tag == tag and not parsed.other_tags
