"""JSON inputs: ids are strings or integers, nesting is bounded (no RecursionError, whatever the
depth), numbers that must be finite are, and every refusal names the line."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from studio.domain.errors import InputError
from studio.formats.banks import parse_bank
from studio.formats.documents import parse_documents
from studio.formats.graded import parse_nugget_assignments, parse_rubric_graded
from studio.formats.jsonl import MAX_DEPTH, json_objects
from studio.formats.judgments import parse_judgments
from studio.formats.responses import parse_responses
from studio.formats.topics import parse_topics

Parse = Callable[[str, str], object]


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def refused(parse: Parse, text: str) -> InputError:
    with pytest.raises(InputError) as caught:
        parse(text, "f.jsonl")
    return caught.value


def test_nesting_up_to_the_limit_is_read_and_one_level_more_is_refused() -> None:
    inside = nested(MAX_DEPTH - 1)  # the line's object is the first level
    assert [n for n, _ in json_objects('{"a": 1}\n{"x": ' + inside + "}\n", "f.jsonl")] == [1, 2]
    with pytest.raises(InputError) as caught:
        list(json_objects('{"a": 1}\n{"x": ' + nested(MAX_DEPTH) + "}\n", "f.jsonl"))
    assert caught.value.line == 2 and f"nested deeper than {MAX_DEPTH} levels" in caught.value.reason


def test_brackets_inside_strings_do_not_count_as_nesting() -> None:
    text = '{"qid": "1", "text": "' + "[" * 500 + '"}\n'
    assert parse_topics(text, "f.jsonl")[0].text == "[" * 500


DEEP = nested(200_000)
EVERY_JSON_FORMAT: dict[str, tuple[Parse, str]] = {
    "topics": (parse_topics, '{"qid": "1", "text": "x", "meta": ' + DEEP + "}"),
    "documents": (parse_documents, '{"docid": "1", "text": "x", "meta": ' + DEEP + "}"),
    "responses": (parse_responses, '{"qid": "1", "system": "s", "text": "x", "meta": ' + DEEP + "}"),
    "judgments": (parse_judgments, '{"qid": "1", "docid": "d", "judgment": 1, "prompt": ' + DEEP + "}"),
    "banks": (parse_bank, '{"qid": "1", "nuggets": ["a"], "meta": ' + DEEP + "}"),
    "rubric graded": (parse_rubric_graded, '["1", ' + DEEP + "]"),
    "nugget assignments": (parse_nugget_assignments, '{"qid": "1", "docid": "d", "nuggets": ' + DEEP + "}"),
}


@pytest.mark.parametrize(("parse", "line"), EVERY_JSON_FORMAT.values(), ids=EVERY_JSON_FORMAT)
def test_deeply_nested_json_is_refused_with_its_line_in_every_format(parse: Parse, line: str) -> None:
    error = refused(parse, "\n" + line + "\n")
    assert error.line == 2 and "nested deeper than" in error.reason


def test_an_integer_too_long_for_python_is_refused_with_its_line() -> None:
    error = refused(parse_topics, '{"qid": ' + "7" * 5000 + ', "text": "x"}\n')
    assert error.line == 1 and "invalid JSON" in error.reason


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("7.0", "not 7.0"),
        ("NaN", "not nan"),
        ("-Infinity", "not -inf"),
        ("true", "not a boolean"),
        ("[1]", "not an array"),
        ("{}", "not an object"),
        ('""', "qid '' is empty"),
        ('"a b"', "qid 'a b' holds a blank"),
        ('"a\\u001bb"', "qid 'a\\x1bb' holds a control character (U+001B)"),
    ],
)
def test_a_json_qid_must_be_a_string_or_an_integer_id(value: str, said: str) -> None:
    error = refused(parse_topics, '{"qid": "1", "text": "x"}\n{"qid": ' + value + ', "text": "y"}\n')
    assert error.line == 2 and said in error.reason


def test_an_integer_qid_is_its_digits() -> None:
    assert [t.qid for t in parse_topics('{"qid": 1001, "text": "x"}\n', "f.jsonl")] == ["1001"]


@pytest.mark.parametrize("field", ['"docid": 3.5', '"docid_b": 2.0', '"docid_b": ["d"]'])
def test_judgment_ids_must_be_strings_or_integers(field: str) -> None:
    record = '{"qid": "1", "docid": "d", "judgment": 1, ' + field + "}"
    if field.startswith('"docid"'):
        record = '{"qid": "1", "judgment": 1, ' + field + "}"
    error = refused(parse_judgments, record + "\n")
    assert error.line == 1 and "must be a string or an integer" in error.reason


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        ('"judgment": NaN', "judgment nan is not a finite number"),
        ('"judgment": "2"', "judgment '2' is not a finite number"),
        ('"judgment": 1, "confidence": Infinity', "confidence inf is not a finite number"),
        ('"judgment": 1, "expected": NaN', "expected nan is not a finite number"),
        ('"judgment": 1, "label_probs": "0.5"', "label_probs must be an object"),
        ('"judgment": 1, "label_probs": {"1": null}', "label_probs['1'] None is not a finite number"),
        ('"judgment": 1, "label_probs": {"1": true}', "label_probs['1'] True is not a finite number"),
    ],
)
def test_judgment_numbers_must_be_finite(extra: str, said: str) -> None:
    error = refused(parse_judgments, '{"qid": "1", "docid": "d", ' + extra + "}\n")
    assert error.line == 1 and said in error.reason


def test_label_probs_of_finite_numbers_are_kept() -> None:
    parsed = parse_judgments('{"qid": "1", "docid": "d", "judgment": 1, "label_probs": {"0": 0.25, "1": 1}}\n', "f")
    assert parsed.records[0].label_probs == {"0": 0.25, "1": 1.0}


@pytest.mark.parametrize(
    ("good", "bad"),
    [
        (
            '{"query_id": "1", "items": [{"nugget_id": "n0", "nugget_text": "fine"}]}',
            '{"query_id": "2", "items": [{"nugget_id": "n1", "nugget_text": " "}]}',
        ),
        (
            '{"query_id": "1", "questions": [{"question_id": "q0", "question_text": "fine?"}]}',
            '{"query_id": "2", "questions": [{"question_id": "x", "question_text": ""}]}',
        ),
        ('{"qid": "1", "nuggets": ["fine"]}', '{"qid": "1", "nuggets": [{"text": "\\t"}]}'),
        ('{"qid": "1", "nuggets": ["fine"]}', '{"qid": "1", "nuggets": [""]}'),
    ],
)
def test_a_bank_item_without_text_is_refused(good: str, bad: str) -> None:
    error = refused(parse_bank, good + "\n" + bad + "\n")
    assert error.line == 2 and "text is empty" in error.reason


def test_a_nugget_assignment_without_text_is_refused() -> None:
    line = '{"qid": "1", "docid": "d", "nuggets": [{"text": " ", "assignment": "support"}]}'
    error = refused(parse_nugget_assignments, line + "\n")
    assert error.line == 1 and "text is empty" in error.reason


def test_a_cited_docid_is_checked_as_an_id() -> None:
    line = '{"run_id": "r", "topic_id": "1", "references": ["d 1"], "answer": [{"text": "x", "citations": [0]}]}'
    error = refused(parse_responses, line + "\n")
    assert error.line == 1 and "cited docid 'd 1' holds a blank" in error.reason
