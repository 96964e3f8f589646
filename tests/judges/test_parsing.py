"""Reading labels out of what models really write: the last final score wins, anything without
a readable label is a failure with a reason, never a silent 0."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from studio.judges.parsing import parse_binary, parse_preference, parse_umbrela

# -- UMBRELA -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "grade"),
    [
        ("##final score: 2", 2),
        ("##final score: 0", 0),
        ("## Final Score: 3", 3),
        ("##final score:1", 1),
        ("M: 2\nT: 3\nO: 2\n##final score: 2", 2),
        ("The passage mentions altitude but gives no figures.\n\n##final score: 1", 1),
        ("##final score: 3\nOn reflection the answer is hidden.\n##final score: 2", 2),
        ("##final score: 0 ##final score: 1 ##final score: 3", 3),
        ("**Final score: 3**", 3),
        ("#final score: 2.", 2),
    ],
)
def test_umbrela_reads_the_last_final_score(text: str, grade: int) -> None:
    assert parse_umbrela(text).label == grade
    assert parse_umbrela(text).error is None


def test_umbrela_is_not_fooled_by_the_scale_in_the_reasoning() -> None:
    # UMBRELA's own parser reads this as 3 (pattern `o\s*[:-=]?\s*(0|1|2|3)` on "to 3").
    text = "On a 0 to 3 scale, the passage is only loosely related to the query.\n##final score: 1"
    assert parse_umbrela(text).label == 1


def test_umbrela_reads_a_score_out_of_three() -> None:
    assert parse_umbrela("Score: 2/3").label == 2


@pytest.mark.parametrize("text", ["", "   ", "\n\t \n"])
def test_umbrela_empty_output_is_a_failure_with_a_reason(text: str) -> None:
    parsed = parse_umbrela(text)
    assert (parsed.ok, parsed.label) == (False, None)
    assert parsed.error is not None and "empty" in parsed.error


@pytest.mark.parametrize(
    "text",
    [
        "The passage is about cooking pasta, not about altitude.",
        "I cannot determine the relevance of this passage.",
        "##final score: score",
        "##final score: ",
    ],
)
def test_umbrela_text_without_a_score_is_a_failure(text: str) -> None:
    parsed = parse_umbrela(text)
    assert parsed.label is None
    assert parsed.error


@pytest.mark.parametrize("text", ["##final score: 10", "##final score: 4", "Score: 7/10", "##final score: -1"])
def test_umbrela_out_of_range_score_is_a_failure_not_a_zero(text: str) -> None:
    parsed = parse_umbrela(text)
    assert parsed.label is None, f"{text!r} read as {parsed.label}"
    assert parsed.error


@settings(max_examples=examples(300), deadline=None)
@given(text=st.text().filter(lambda t: "#" not in t), grade=st.integers(min_value=0, max_value=3))
def test_umbrela_appended_final_score_always_wins(text: str, grade: int) -> None:
    assert parse_umbrela(text + "\n##final score: " + str(grade)).label == grade


# -- binary -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("Yes", 1),
        ("yes", 1),
        ("YES", 1),
        ("No", 0),
        ("no", 0),
        ("NO", 0),
        ("No.", 0),
        ("Yes.", 1),
        ("  \n Yes", 1),
        ("\tno, it does not", 0),
        ("Yes, the passage states the boiling point.", 1),
        ("Answer: No", 0),
        ("1", 1),
        ("0", 0),
        (" 1\n", 1),
        ("0.", 0),
    ],
)
def test_binary_reads_yes_no_and_digits(text: str, label: int) -> None:
    parsed = parse_binary(text)
    assert (parsed.label, parsed.error) == (label, None)


@pytest.mark.parametrize("text", ["", "  ", "Maybe.", "The passage is about altitude.", "10", "2", "Nope"])
def test_binary_without_an_answer_is_a_failure(text: str) -> None:
    parsed = parse_binary(text)
    assert parsed.label is None
    assert parsed.error


def test_binary_does_not_read_yes_inside_other_words() -> None:
    assert parse_binary("Eyes are not mentioned; nobody knows.").label is None


# -- preference --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("1", 1),
        ("2", 2),
        ("Passage 2", 2),
        ("Passage 1 is better.", 1),
        ("2.", 2),
        (" 1\n", 1),
        ("**2**", 2),
    ],
)
def test_preference_reads_the_chosen_passage(text: str, label: int) -> None:
    parsed = parse_preference(text)
    assert (parsed.label, parsed.error) == (label, None)


@pytest.mark.parametrize("text", ["both", "", "   ", "Neither passage answers it.", "3", "12", "1.5"])
def test_preference_without_a_choice_is_a_failure(text: str) -> None:
    parsed = parse_preference(text)
    assert parsed.label is None
    assert parsed.error
