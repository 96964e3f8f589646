"""Topics, documents, generated answers and test banks: the formats of docs/design.md#5-input-formats."""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from studio.domain.errors import InputError
from studio.domain.models import BankItem, Document, Response, Topic
from studio.formats.banks import parse_bank
from studio.formats.documents import parse_documents
from studio.formats.responses import parse_responses
from studio.formats.text_input import read_text
from studio.formats.topics import parse_topics


def jsonl(*records: object) -> str:
    return "".join(json.dumps(record) + "\n" for record in records)


def md5_id(qid: str, text: str) -> str:
    """The Rubric workbench's id, computed here independently of the studio."""
    return qid + "/" + hashlib.md5(text.encode("utf-8")).hexdigest()


def refusal(parse: Callable[..., object], text: str, *args: object) -> InputError:
    with pytest.raises(InputError) as caught:
        parse(text, "f.jsonl", *args)
    return caught.value


# -- topics -------------------------------------------------------------------------------------


def test_topics_tsv() -> None:
    text = "1030303\twho is aziz hashim\n\n1037496\t who is rep scalise? \r\n"
    assert parse_topics(text, "t.tsv") == [
        Topic("1030303", "who is aziz hashim"),
        Topic("1037496", "who is rep scalise?"),
    ]


@pytest.mark.parametrize("qid_key", ["qid", "query_id", "id"])
@pytest.mark.parametrize("text_key", ["text", "query", "title"])
def test_topics_jsonl_field_names(qid_key: str, text_key: str) -> None:
    text = jsonl({qid_key: "q1", text_key: "first", "other": 1}, {qid_key: 2, text_key: "second"})
    assert parse_topics(text, "t.jsonl") == [Topic("q1", "first"), Topic("2", "second")]


@pytest.mark.parametrize(
    "text",
    [
        "a\tone\nb\ttwo\n\na\tthree\n",
        jsonl({"qid": "a", "text": "1"}, {"qid": "b", "text": "2"}) + "\n" + jsonl({"query_id": "a", "query": "3"}),
    ],
)
def test_topics_repeated_qid_is_refused_on_its_second_line(text: str) -> None:
    error = refusal(parse_topics, text)
    assert error.line == 4 and "listed twice (first on line 1)" in error.reason


def test_topics_tsv_line_without_tab_is_refused_with_its_line() -> None:
    assert refusal(parse_topics, "a\tone\nb two\n").line == 2


def test_topics_jsonl_without_text_field_is_refused_with_its_line() -> None:
    error = refusal(parse_topics, jsonl({"qid": "a", "text": "x"}, {"qid": "b", "body": "y"}))
    assert error.line == 2 and "missing field" in error.reason


@pytest.mark.parametrize(("line", "reason"), [('{"qid": "b", "text": }', "invalid JSON"), ("[1, 2]", "JSON object")])
def test_topics_bad_json_is_refused_with_its_line(line: str, reason: str) -> None:
    error = refusal(parse_topics, jsonl({"qid": "a", "text": "x"}) + "\n" + line + "\n")
    assert error.line == 3 and reason in error.reason


# -- documents ----------------------------------------------------------------------------------


def test_documents_tsv() -> None:
    assert parse_documents("d1\tthe text\td\n7\t\n", "d.tsv") == [
        Document("d1", "the text\td"),
        Document("7", ""),
    ]


@pytest.mark.parametrize("id_key", ["docid", "id", "pid"])
@pytest.mark.parametrize("text_key", ["text", "contents", "segment"])
def test_documents_jsonl_field_names(id_key: str, text_key: str) -> None:
    text = jsonl({id_key: "d1", text_key: "body", "title": "T"}, {id_key: 2, text_key: "other"})
    assert parse_documents(text, "d.jsonl") == [Document("d1", "body", "T"), Document("2", "other")]


def test_documents_repeated_docid_with_another_text_is_refused_on_its_second_line() -> None:
    error = refusal(parse_documents, "d1\tx\nd2\ty\nd1\tz\n")
    assert error.line == 3 and "different text (first at f.jsonl:1)" in error.reason


def test_documents_tsv_line_without_tab_is_refused_with_its_line() -> None:
    assert refusal(parse_documents, "d1\tx\n\nd2 y\n").line == 3


# -- generated answers --------------------------------------------------------------------------


def test_simple_responses() -> None:
    text = jsonl(
        {"qid": "q1", "system": "s1", "text": "An answer.", "citations": ["d1", "d2"]},
        {"qid": "q2", "system": "s1", "text": "Another."},
    )
    assert parse_responses(text, "r.jsonl") == [
        Response("q1", "s1", "An answer.", ("d1", "d2")),
        Response("q2", "s1", "Another.", ()),
    ]


def test_system_name_can_be_overridden() -> None:
    text = jsonl({"qid": "q1", "system": "s1", "text": "x"})
    assert parse_responses(text, "r.jsonl", system="mine")[0].system == "mine"


def rag24(topic_id: str = "2024-145979", citations: tuple[int, ...] = (0, 2)) -> dict[str, Any]:
    return {
        "run_id": "ragrun",
        "topic_id": topic_id,
        "topic": "what is a test",
        "references": ["msmarco_v2.1_doc_00#1", "msmarco_v2.1_doc_01#2", "msmarco_v2.1_doc_02#3"],
        "response_length": 20,
        "answer": [
            {"text": "First sentence. ", "citations": list(citations)},
            {"text": "Second sentence.", "citations": [2, 1]},
            {"text": "No citation.", "citations": []},
        ],
    }


def test_trec_rag24_answers_are_joined_and_citations_become_docids() -> None:
    (response,) = parse_responses(jsonl(rag24()), "r.jsonl")
    assert response.qid == "2024-145979" and response.system == "ragrun"
    assert response.text == "First sentence. Second sentence. No citation."
    assert response.citations == (
        "msmarco_v2.1_doc_00#1",
        "msmarco_v2.1_doc_02#3",
        "msmarco_v2.1_doc_01#2",
    )


@pytest.mark.parametrize("bad", [3, -1])
def test_trec_rag24_citation_outside_references_is_refused_with_its_line(bad: int) -> None:
    error = refusal(parse_responses, jsonl(rag24("a"), rag24("b", citations=(0, bad))))
    assert error.line == 2 and "outside the 3 references" in error.reason


def test_same_system_answering_a_topic_twice_is_refused() -> None:
    text = jsonl({"qid": "q1", "system": "s", "text": "x"}, {"qid": "q1", "system": "s", "text": "y"})
    error = refusal(parse_responses, text)
    assert error.line == 2 and "first on line 1" in error.reason


# -- test banks ---------------------------------------------------------------------------------

RUBRIC = [
    {
        "query_id": "q1",
        "query_text": "what is x",
        "items": [
            {"question_id": "q1/custom", "question_text": "What is X?", "gold_answers": ["a thing"]},
            {"question_text": " Why X? "},
            {"nugget_id": "n-1", "nugget_text": "X is a thing", "info": {"importance": "VITAL"}},
            {"nugget_text": "X is old"},
        ],
    },
    {"query_id": 2, "items": [{"question_text": "Who made X?"}]},
]
RUBRIC_ITEMS = [
    BankItem("q1", "q1/custom", "question", "What is X?", None, ("a thing",)),
    BankItem("q1", md5_id("q1", "Why X?"), "question", "Why X?"),
    BankItem("q1", "n-1", "nugget", "X is a thing", "vital"),
    BankItem("q1", md5_id("q1", "X is old"), "nugget", "X is old"),
    BankItem("2", md5_id("2", "Who made X?"), "question", "Who made X?"),
]


def test_rubric_workbench_bank_gives_questions_and_nuggets() -> None:
    assert parse_bank(jsonl(*RUBRIC), "b.jsonl") == RUBRIC_ITEMS


def test_gzipped_rubric_workbench_bank_reads_the_same(tmp_path: Path) -> None:
    path = tmp_path / "bank.jsonl.gz"
    path.write_bytes(gzip.compress(jsonl(*RUBRIC).encode()))
    assert parse_bank(read_text(path), str(path)) == RUBRIC_ITEMS


def test_nuggetizer_bank_gives_nuggets_with_importance() -> None:
    text = jsonl(
        {
            "qid": "q1",
            "query": "what is x",
            "nuggets": [
                {"text": "X is a thing", "importance": "vital"},
                {"text": "X is old", "importance": "okay"},
                {"text": "X is blue"},
            ],
        },
        {"qid": "q2", "nuggets": ["plain text nugget"]},
    )
    assert parse_bank(text, "n.jsonl") == [
        BankItem("q1", md5_id("q1", "X is a thing"), "nugget", "X is a thing", "vital"),
        BankItem("q1", md5_id("q1", "X is old"), "nugget", "X is old", "okay"),
        BankItem("q1", md5_id("q1", "X is blue"), "nugget", "X is blue"),
        BankItem("q2", md5_id("q2", "plain text nugget"), "nugget", "plain text nugget"),
    ]


def test_tsv_bank_splits_qid_from_the_ordinal() -> None:
    text = "q1_1\tX is a thing\tvital\nq1_2\tX is old\tokay\n\nmsmarco_q_7_10\tY\n"
    assert parse_bank(text, "b.tsv") == [
        BankItem("q1", md5_id("q1", "X is a thing"), "nugget", "X is a thing", "vital"),
        BankItem("q1", md5_id("q1", "X is old"), "nugget", "X is old", "okay"),
        BankItem("msmarco_q_7", md5_id("msmarco_q_7", "Y"), "nugget", "Y"),
    ]


def test_tsv_bank_kind_can_be_questions() -> None:
    assert [item.kind for item in parse_bank("q1_1\tWhat?\n", "b.tsv", kind="question")] == ["question"]


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("q1_1\tA\tvital\nq1_2\tB\timportant\n", 2),
        (
            jsonl(
                {"qid": "q1", "nuggets": [{"text": "A"}]},
                {"qid": "q2", "nuggets": [{"text": "B", "importance": "high"}]},
            ),
            2,
        ),
        (jsonl({"query_id": "q1", "items": [{"nugget_text": "A", "info": {"importance": 2}}]}), 1),
    ],
)
def test_bad_importance_is_refused_with_its_line(text: str, line: int) -> None:
    error = refusal(parse_bank, text)
    assert error.line == line and "not vital or okay" in error.reason


def test_tsv_bank_first_column_must_be_qid_n() -> None:
    error = refusal(parse_bank, "q1_1\tA\nq1\tB\n")
    assert error.line == 2 and "qid_n" in error.reason


def test_bank_item_listed_twice_is_refused() -> None:
    error = refusal(parse_bank, "q1_1\tSame text\nq1_2\tSame text\n")
    assert error.line == 2 and "appears twice" in error.reason


def test_bank_bad_json_is_refused_with_its_line() -> None:
    error = refusal(parse_bank, jsonl({"qid": "q1", "nuggets": ["a"]}) + '{"qid": "q2", "nuggets": [\n')
    assert error.line == 2 and "invalid JSON" in error.reason
