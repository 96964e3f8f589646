"""Banks and documents as they are published: the Rubric workbench's older question-bank layout
and passage files that repeat a passage for every topic that judged it.

The fixtures in tests/published/ say in their README which published layout each copies; the
smaller cases here are written inline in the same layouts.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from studio.domain.choices import BankFormat, OnDuplicate
from studio.domain.errors import InputError
from studio.domain.models import BankItem, Document
from studio.formats.bank_writers import rubric_questions_jsonl
from studio.formats.banks import read_bank
from studio.formats.documents import DocumentSet, parse_documents
from studio.formats.text_input import read_text

PUBLISHED = Path(__file__).resolve().parents[1] / "published"


def md5_id(qid: str, text: str) -> str:
    return qid + "/" + hashlib.md5(text.encode("utf-8")).hexdigest()


def older(qid: str, *questions: str, query_text: str = "q", **extra: Any) -> dict[str, Any]:
    """One line of the workbench's older question bank (QueryQuestionBank), nulls as published."""
    return {
        "query_id": qid,
        "facet_id": None,
        "test_collection": "dl20",
        "query_text": query_text,
        "info": None,
        "questions": [
            {"question_id": md5_id(qid, q), "question_text": q, "query_id": qid, "facet_id": None, "info": None}
            for q in questions
        ],
        **extra,
    }


def jsonl(*records: object) -> str:
    return "".join(json.dumps(record) + "\n" for record in records)


def refusal(text: str) -> InputError:
    with pytest.raises(InputError) as caught:
        read_bank(text, "b.jsonl")
    return caught.value


# -- the older question-bank layout -----------------------------------------------------------------


def test_the_published_older_question_bank_is_read_with_its_layout_and_query_texts() -> None:
    path = PUBLISHED / "dl20-exam-questions.jsonl.gz"
    parsed = read_bank(read_text(path), str(path))
    assert parsed.layout is BankFormat.rubric_questions
    assert parsed.test_collection == "dl20" and parsed.warnings == []
    assert parsed.query_texts == {
        "1037496": "who is rep scalise?",
        "1030303": "who is aziz hashim",
        "1043135": "who killed nicholas ii of russia",
    }
    assert [item.qid for item in parsed.items] == ["1037496"] * 3 + ["1030303"] * 4 + ["1043135"] * 3
    assert all(
        item.kind == "question" and item.item_id == md5_id(item.qid, item.text) and not item.gold_answers
        for item in parsed.items
    )
    assert parsed.items[4].text == "In which industry is Aziz Hashim\u2019s investment firm active?"


def test_older_questions_keep_their_ids_and_read_importance_from_info() -> None:
    line = older("q1", "Why?")
    line["questions"].append(
        {"question_id": "own-id", "question_text": " What? ", "query_id": "q1", "info": {"importance": "vital"}}
    )
    line["questions"].append({"question_text": "Who?"})  # no id and no query_id: the line's
    assert read_bank(jsonl(line), "b.jsonl").items == [
        BankItem("q1", md5_id("q1", "Why?"), "question", "Why?"),
        BankItem("q1", "own-id", "question", "What?", "vital"),
        BankItem("q1", md5_id("q1", "Who?"), "question", "Who?"),
    ]


def test_a_question_of_another_query_is_refused_naming_the_line() -> None:
    line = older("q2", "A?", "B?")
    line["questions"][1]["query_id"] = "q3"
    error = refusal(jsonl(older("q1", "C?"), line))
    assert error.line == 2
    assert "question 2" in error.reason and "query_id 'q3'" in error.reason and "'q2'" in error.reason


@pytest.mark.parametrize(
    ("second", "named"),
    [
        ({"query_id": "q2", "items": [{"question_text": "B?"}]}, "a Rubric bank ('items')"),
        ({"qid": "q2", "nuggets": ["B"]}, "a nuggetizer record ('nuggets')"),
    ],
)
def test_a_file_mixing_layouts_is_refused_naming_the_line(second: dict[str, Any], named: str) -> None:
    error = refusal(jsonl(older("q1", "A?"), older("q3", "C?"), second))
    assert error.line == 3
    assert error.reason.startswith(f"this line is {named}, but line 1 is an older Rubric question bank")


def test_questions_without_a_query_id_are_no_layout() -> None:
    error = refusal(jsonl({"qid": "q1", "questions": [{"question_text": "A?"}]}))
    assert error.line == 1 and "'query_id' and 'questions'" in error.reason


def test_facets_and_infos_the_studio_cannot_keep_are_counted_in_a_warning() -> None:
    line = older("q1", "A?", "B?", facet_id=None)
    line["facet_id"], line["info"] = "f1", {"generator": "gpt-3.5"}
    line["questions"][0]["facet_id"] = "f1"
    parsed = read_bank(jsonl(line), "b.jsonl")
    assert parsed.warnings == [
        "b.jsonl: 2 facet_id and 1 info value(s) are not kept (the studio has no field for them; an export writes null)"
    ]


def test_the_older_layout_is_written_back_byte_for_byte() -> None:
    published = gzip.decompress((PUBLISHED / "dl20-exam-questions.jsonl.gz").read_bytes()).decode("utf-8")
    parsed = read_bank(published, "b.jsonl")
    assert rubric_questions_jsonl(parsed.items, parsed.query_texts, "dl20") == published


# -- documents as published -------------------------------------------------------------------------

PASSAGES = {
    "1002518": "Laudable means deserving praise or commendation; a laudable effort is one worth admiring even"
    " when it fails.",
    "8812345": "Recognition-by-components theory proposes that people identify objects by breaking them into"
    " geons and the relations between them.",
}


@pytest.mark.parametrize("file", ["dl20-passages.tsv", "dl20-passages.jsonl"])
def test_a_passage_file_with_one_line_per_judging_topic_loads_each_passage_once(file: str) -> None:
    path = PUBLISHED / file
    found = DocumentSet()
    found.add_file(read_text(path), str(path))
    assert [doc.docid for doc in found.documents] == ["1002518", "1014972", "1031737", "7067032", "8812345"]
    assert found.repeated == 3 and found.conflicting == 0
    assert {doc.docid: doc.text for doc in found.documents if doc.docid in PASSAGES} == PASSAGES
    assert found.warnings() == [
        f"3 repeated document line(s) with the same text were loaded once (the first: '1002518' at {path}:1"
        f" and {path}:5)"
    ]


def test_a_repeat_with_another_text_is_refused_naming_both_lines() -> None:
    path = PUBLISHED / "dl20-passages-conflict.tsv"
    with pytest.raises(InputError) as caught:
        parse_documents(read_text(path), str(path))
    assert str(caught.value) == (
        f"{path}:6: document '1014972' is listed again with a different text (first at {path}:2);"
        " choose with --on-duplicate first|last"
    )


@pytest.mark.parametrize(("policy", "kept"), [(OnDuplicate.FIRST, "some theories"), (OnDuplicate.LAST, "one theory")])
def test_on_duplicate_keeps_the_first_or_the_last_text(policy: OnDuplicate, kept: str) -> None:
    path = PUBLISHED / "dl20-passages-conflict.tsv"
    found = DocumentSet(policy)
    found.add_file(read_text(path), str(path))
    assert found.repeated == 2 and found.conflicting == 1
    (geon,) = [doc for doc in found.documents if doc.docid == "1014972"]
    assert kept in geon.text
    assert [doc.docid for doc in found.documents][:2] == ["1002518", "1014972"]  # first-seen order
    assert found.warnings()[-1] == (f"1 document line(s) repeat a docid with a different text: kept the {policy.value}")


def test_same_means_equal_after_the_readers_decoding() -> None:
    """TSV texts are stored stripped, JSON strings unescaped: such repeats are the same document."""
    assert parse_documents("d1\tsame text\nd1\t  same text \r\n", "d.tsv") == [Document("d1", "same text")]
    text = jsonl({"id": "d1", "contents": "caf\u00e9"}) + '{"docid": "d1", "text": "caf\\u00e9"}\n'
    assert parse_documents(text, "d.jsonl") == [Document("d1", "caf\u00e9")]


def test_a_repeat_with_another_title_is_a_different_document() -> None:
    text = jsonl({"id": "d1", "contents": "x", "title": "A"}, {"id": "d1", "contents": "x", "title": "B"})
    with pytest.raises(InputError, match="different title"):
        parse_documents(text, "d.jsonl")


def test_repeats_across_files_are_checked_too() -> None:
    found = DocumentSet()
    found.add_file("d1\tone\nd2\ttwo\n", "a.tsv")
    found.add_file("d2\ttwo\n", "b.tsv")
    assert found.repeated == 1
    with pytest.raises(InputError) as caught:
        found.add_file("d3\tthree\nd1\tuno\n", "c.tsv")
    assert str(caught.value).startswith(
        "c.tsv:2: document 'd1' is listed again with a different text (first at a.tsv:1)"
    )
