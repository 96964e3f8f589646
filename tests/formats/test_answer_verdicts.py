"""Answers as `qid<TAB>text` and the four verdict layouts of the Gen-IR comparison's release
(tests/published/genir imitates it): read as the release writes them, written back alike, and every
kind of broken line refused with its file and line."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from studio.domain.answer_verdicts import (
    AnswerVerdict,
    BinaryVerdict,
    GradedVerdict,
    PreferenceOutcome,
    PreferenceVerdict,
    ShownOrder,
    SubtopicVerdict,
)
from studio.domain.choices import AnswerMethod
from studio.domain.errors import InputError
from studio.domain.models import Response
from studio.formats.answer_texts import parse_answer_texts, write_answer_texts
from studio.formats.answer_verdicts import parse_answer_verdicts, write_answer_verdicts
from studio.formats.responses import parse_responses
from studio.formats.text_input import read_lines

GENIR = Path(__file__).resolve().parents[1] / "published" / "genir"
EXPERIMENTS = GENIR / "genir experiments"


def refusal(text: str, layout: AnswerMethod, *, scale: int = 3) -> InputError:
    with pytest.raises(InputError) as caught:
        parse_answer_verdicts(text, "v.txt", layout, scale=scale)
    return caught.value


# -- the release's files ------------------------------------------------------------------------


def test_the_release_answer_file_is_one_system_without_a_header() -> None:
    path = GENIR / "generated responses" / "responses_gpt-4"
    answers = parse_responses(read_lines(path), str(path), "gpt-4")
    assert [a.qid for a in answers] == ["156493", "1110199", "130510", "489204"]
    assert {a.system for a in answers} == {"gpt-4"}
    assert answers[0].text.startswith("Yes, goldfish do grow.")


def test_binary_without_a_final_newline_in_any_case() -> None:
    path = EXPERIMENTS / "binary" / "8_binary_responses_lj_gpt-4_2019_gpt-4"
    assert not path.read_bytes().endswith(b"\n")
    found = parse_answer_verdicts(read_lines(path), str(path), AnswerMethod.binary)
    assert [(v.qid, v.value) for v in found] == [("156493", 1.0), ("1110199", 1.0), ("130510", 0.0), ("489204", 1.0)]


def test_subtopic_vectors_of_varying_length() -> None:
    path = EXPERIMENTS / "subtopics" / "8_quantified_gen_answers_responses_gpt-4_2019_gpt-4"
    found = parse_answer_verdicts(read_lines(path), str(path), AnswerMethod.subtopics)
    assert [len(v.entries) for v in found if isinstance(v, SubtopicVerdict)] == [6, 4, 7, 5]
    assert [v.value for v in found] == [3 / 6, 3 / 4, 0 / 7, 2 / 5]


def test_preferences_with_the_header_and_the_line_of_tabs() -> None:
    path = EXPERIMENTS / "preferences" / "gen_preferences_8_responses_gpt-4_2019_gpt-4"
    found = parse_answer_verdicts(read_lines(path), str(path), AnswerMethod.preferences)
    outcomes = [(v.qid, v.exemplar, v.outcome) for v in found if isinstance(v, PreferenceVerdict)]
    assert outcomes == [
        ("156493", "6139386", PreferenceOutcome.win),  # reg b (the answer, second), rev a (the answer, first)
        ("1110199", "3838638", PreferenceOutcome.loss),
        ("130510", "8612910", PreferenceOutcome.tie),  # b both times: the position, not the answer
        ("489204", "852257", PreferenceOutcome.win),
    ]
    assert {v.system_id for v in found if isinstance(v, PreferenceVerdict)} == {"responses_gpt-4"}


# -- written back alike (property tests) ------------------------------------------------------

QIDS = st.text(alphabet="0123456789", min_size=1, max_size=7)
DOCIDS = st.text(alphabet="0123456789abcdef-", min_size=1, max_size=9).filter(lambda d: d.strip("-") != "")


@st.composite
def verdicts(draw: st.DrawFn, layout: AnswerMethod) -> list[AnswerVerdict]:
    qids = draw(st.lists(QIDS, min_size=1, max_size=6, unique=True))
    found: list[AnswerVerdict] = []
    for line, qid in enumerate(qids, start=1):
        if layout is AnswerMethod.binary:
            relevant = draw(st.booleans())
            found.append(BinaryVerdict(qid, line, relevant, "Yes" if relevant else "No"))
        elif layout is AnswerMethod.graded:
            found.append(GradedVerdict(qid, line, draw(st.integers(0, 3))))
        elif layout is AnswerMethod.subtopics:
            found.append(SubtopicVerdict(qid, line, tuple(draw(st.lists(st.booleans(), min_size=1, max_size=9)))))
        else:
            exemplar, first = draw(DOCIDS), draw(st.booleans())
            orders = (
                ShownOrder("reg", first, draw(st.booleans()), 2 * line),
                ShownOrder("rev", not first, draw(st.booleans()), 2 * line + 1),
            )
            found.append(PreferenceVerdict(qid, 2 * line, exemplar, "sys.tsv", orders))
    return found


def _same(a: AnswerVerdict, b: AnswerVerdict) -> bool:
    """Equal but for line numbers (and a binary verdict's word, which the writer spells its own way)."""
    if isinstance(a, PreferenceVerdict) and isinstance(b, PreferenceVerdict):
        strip = [(o.version, o.answer_first, o.first_picked) for o in a.orders]
        return (a.qid, a.exemplar, a.system_id, strip) == (
            b.qid,
            b.exemplar,
            b.system_id,
            [(o.version, o.answer_first, o.first_picked) for o in b.orders],
        )
    return type(a) is type(b) and a.qid == b.qid and a.value == b.value


@pytest.mark.parametrize(
    "layout", [AnswerMethod.binary, AnswerMethod.graded, AnswerMethod.subtopics, AnswerMethod.preferences]
)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_verdicts_read_back_as_written(layout: AnswerMethod, data: st.DataObject) -> None:
    written = data.draw(verdicts(layout))
    read = parse_answer_verdicts(write_answer_verdicts(layout, written), "v.txt", layout)
    assert len(read) == len(written)
    assert all(_same(a, b) for a, b in zip(read, written, strict=True))
    assert [v.value for v in read] == [v.value for v in written]


TEXTS = (
    st.text(
        alphabet=st.characters(
            blacklist_characters="\t\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029", blacklist_categories=["Cs"]
        ),
        min_size=1,
        max_size=60,
    )
    .map(str.strip)
    .filter(bool)
)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(QIDS, TEXTS), min_size=1, max_size=6, unique_by=lambda p: p[0]))
def test_answer_texts_read_back_as_written(pairs: list[tuple[str, str]]) -> None:
    answers = [Response(qid, "sys", text) for qid, text in pairs]
    assert parse_answer_texts(write_answer_texts(answers), "a.tsv", "sys") == answers


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="0123 \tYesNoab\nqidregvgnqrl", max_size=80))
def test_any_text_is_read_or_refused_with_its_line(text: str) -> None:
    for layout in (AnswerMethod.binary, AnswerMethod.graded, AnswerMethod.subtopics, AnswerMethod.preferences):
        try:
            parse_answer_verdicts(text, "v.txt", layout)
        except InputError as error:
            assert error.file == "v.txt"


# -- refusals, each with its line -------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "layout", "line", "says"),
    [
        # two lines glued together: the newline lost, or the next qid run into a label
        ("156493\t0\tYes\n1110199\t0\tNo130510\t0\tYes\n", AnswerMethod.binary, 2, "glued"),
        ("156493\t0\tYes\t1110199\t0\tNo\n", AnswerMethod.binary, 1, "glued"),
        ("156493\t0\t3\n1110199\t0\t2 130510\t0\t1\n", AnswerMethod.graded, 2, "glued"),
        ("156493\t0\tYes\t1\tNo1110199\t0\tYes\n", AnswerMethod.subtopics, 1, "glued"),
        # a header anywhere but the first line
        ("156493\t0\tYes\nqid\t0\tlabel\n", AnswerMethod.binary, 2, "header in the middle"),
        (
            "qid\tversion\tgreater_lev\tdoc1\tlesser_lev\tdoc2\tprefered\n1\treg\tqrel\td\tgen\ts\ta\n"
            "qid\tversion\tgreater_lev\tdoc1\tlesser_lev\tdoc2\tprefered\n1\trev\tgen\ts\tqrel\td\tb\n",
            AnswerMethod.preferences,
            3,
            "header in the middle",
        ),
        # a label out of scale
        ("156493\t0\t4\n", AnswerMethod.graded, 1, "outside the scale 0–3"),
        ("156493\t0\t-1\n", AnswerMethod.graded, 1, "outside the scale"),
        ("156493\t0\t2.5\n", AnswerMethod.graded, 1, "not a whole number"),
        ("156493\t0\tmaybe\n", AnswerMethod.binary, 1, "neither yes nor no"),
        ("156493\t0\tYes\t1\tperhaps\n", AnswerMethod.subtopics, 1, "neither yes nor no"),
        ("1\treg\tqrel\td\tgen\ts\tc\n1\trev\tgen\ts\tqrel\td\ta\n", AnswerMethod.preferences, 1, "neither a nor b"),
        # other broken lines
        ("156493\t1\tYes\n", AnswerMethod.binary, 1, "where the layout has 0"),
        ("156493\t0\tYes\t2\tNo\n", AnswerMethod.subtopics, 1, "entry '2' where entry 1 was due"),
        ("156493\t0\tYes\t1\n", AnswerMethod.subtopics, 1, "pairs of entry"),
        ("156493\t0\tYes\n156493\t0\tNo\n", AnswerMethod.binary, 2, "has a verdict already (line 1)"),
        ("1\treg\tqrel\td\tgen\ts\ta\n", AnswerMethod.preferences, 1, "one order only"),
        (
            "1\treg\tqrel\td\tgen\ts\ta\n1\trev\tgen\ts\tqrel\te\tb\n",
            AnswerMethod.preferences,
            2,
            "exemplar 'e' differs",
        ),
        ("1\treg\tqrel\td\tgen\ts\ta\n1\trev\tqrel\td\tgen\ts\tb\n", AnswerMethod.preferences, 2, "same position"),
        ("1\treg\tqrel\td\tgen\ts\ta\n1\treg\tgen\ts\tqrel\td\tb\n", AnswerMethod.preferences, 2, "a second 'reg'"),
        ("1\treg\tqrel\td\tqrel\ts\ta\n", AnswerMethod.preferences, 1, "one must be qrel"),
        (
            "1\treg\tqrel\td\tgen\ts\ta\n1\trev\tgen\ts\tqrel\td\tb\n2\treg\tqrel\td\tgen\tt\ta\n",
            AnswerMethod.preferences,
            3,
            "in one file",
        ),
    ],
)
def test_a_broken_line_is_refused_with_its_line(text: str, layout: AnswerMethod, line: int, says: str) -> None:
    error = refusal(text, layout)
    assert (error.file, error.line) == ("v.txt", line)
    assert says in error.reason


def test_a_scale_of_its_own() -> None:
    assert [v.value for v in parse_answer_verdicts("1\t0\t4\n", "v", AnswerMethod.graded, scale=4)] == [4.0]
    assert "outside the scale 0–2" in refusal("1\t0\t3\n", AnswerMethod.graded, scale=2).reason


@pytest.mark.parametrize(
    ("text", "line", "says"),
    [
        # two lines glued together: the newline lost, so the second qid runs into the first text
        ("156493\tYes, they do.\n1110199\tWiFi is faster.130510\tA judgment.\n", 2, "second tab"),
        ("156493\tYes, they do.1110199\tWiFi is faster.\n", 1, "second tab"),
        ("156493\tYes\n1110199\t \n", 2, "empty answer"),
        ("156493\tYes\n156493\tNo\n", 2, "answered twice (first on line 1)"),
        ("156493 Yes\n", 1, "no tab"),
    ],
)
def test_a_broken_answer_line_is_refused_with_its_line(text: str, line: int, says: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_answer_texts(text, "a.tsv", "sys")
    assert (caught.value.line, says in caught.value.reason) == (line, True)


def test_an_answer_file_needs_its_system_named() -> None:
    with pytest.raises(InputError, match="give --system"):
        parse_responses("156493\tYes.\n", "a.tsv")
