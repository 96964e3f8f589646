"""The rules of names (label sets, runs, banks, audits, systems) and ids (qids, docids)."""

from __future__ import annotations

import io
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from studio.domain.errors import InputError, UsageError, quoted
from studio.domain.models import QrelsRow
from studio.domain.names import MAX_NAME_LENGTH, check_id, check_name, id_problem, name_problem
from studio.formats.trec import parse_qrels, write_qrels


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("", "is empty"),
        (" \t ", "is blank"),
        (" human", "has blanks around it"),
        ("human ", "has blanks around it"),
        ("a\nb", "holds a line break (U+000A)"),
        ("a\r\nb", "holds a line break (U+000D)"),
        ("a\u2028b", "holds a line break (U+2028)"),
        ("\x1b[31mred", "holds a control character (U+001B)"),
        ("a\x00", "holds a control character (U+0000)"),
        ("a\x9bb", "holds a control character (U+009B)"),
        ("a\u00a0b", "holds a blank (U+00A0)"),
        ("a\u200eb", "holds an invisible formatting character (U+200E)"),
        ("a\ue000", "holds an unprintable character (U+E000)"),
        ("x" * (MAX_NAME_LENGTH + 1), f"is {MAX_NAME_LENGTH + 1} characters long (at most {MAX_NAME_LENGTH})"),
    ],
)
def test_a_bad_name_is_told_what_is_wrong(name: str, problem: str) -> None:
    assert name_problem(name) == problem
    with pytest.raises(UsageError) as caught:
        check_name(name, "label set")
    assert str(caught.value) == f"label set name {quoted(name)} {problem}"


@pytest.mark.parametrize("name", ["human", "umbrela-smol", "my run 2", "Prüfung", "模型", "🙂", "a/b", "x" * 100])
def test_a_printable_name_of_up_to_the_length_is_fine(name: str) -> None:
    assert name_problem(name) is None
    assert check_name(name, "run") == name


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("", "is empty"),
        ("a b", "holds a blank (U+0020)"),
        ("a\tb", "holds a control character (U+0009)"),
        ("a\u00a0b", "holds a blank (U+00A0)"),
        ("a\u3000", "holds a blank (U+3000)"),
        ("a\x0bb", "holds a control character (U+000B)"),
        ("d\x7f", "holds a control character (U+007F)"),
        ("d\n", "holds a line break (U+000A)"),
    ],
)
def test_a_bad_id_is_told_what_is_wrong(value: str, problem: str) -> None:
    assert id_problem(value) == problem
    with pytest.raises(UsageError, match="docid"):
        check_id(value, "docid")


@pytest.mark.parametrize("value", ["1001", "msmarco_passage_00_1", "#c", "[b]", "d\u200b", "é", "🙂", "a" * 500])
def test_an_id_without_whitespace_or_control_characters_is_fine(value: str) -> None:
    assert id_problem(value) is None


@settings(max_examples=examples(500))
@given(st.text(max_size=8))
def test_an_id_is_fine_exactly_when_a_qrels_file_can_hold_it(value: str) -> None:
    # An id the rules accept, written as a docid of a qrels line, reads back as itself; one they
    # refuse is refused by the reader or read back as something else (split, or cut short).
    holdable = value != "" and not any(c.isspace() or unicodedata.category(c) == "Cc" for c in value)
    assert (id_problem(value) is None) == holdable
    out = io.StringIO()
    write_qrels([QrelsRow("q1", value, 1.0)], out)
    try:
        rows = parse_qrels(out.getvalue(), "f.txt").rows
    except InputError:
        assert not holdable
    else:
        assert (rows == [QrelsRow("q1", value, 1.0)]) == holdable


@settings(max_examples=examples(500))
@given(st.text(max_size=110))
def test_a_name_is_fine_exactly_when_it_shows_as_written(name: str) -> None:
    shows = name.isprintable() and name == name.strip() and 0 < len(name) <= MAX_NAME_LENGTH
    assert (name_problem(name) is None) == shows
