"""TREC RAG files as the track publishes them: RAG 2025 answers (Ragnarök's layout), MS MARCO v2.1
segment ids with `#` wherever a docid goes, and the segmented corpus as a documents file."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from studio.domain.errors import InputError
from studio.domain.models import Document, QrelsRow, Response, RunRow
from studio.domain.names import id_problem
from studio.formats.documents import parse_documents
from studio.formats.responses import parse_responses
from studio.formats.topics import parse_topics
from studio.formats.trec import parse_qrels, parse_run, write_qrels, write_run

SEGMENTS = ["msmarco_v2.1_doc_00_1062374885#2_1925315239", "msmarco_v2.1_doc_36_614618375#3_1234312863"]

# A RAG 2025 answer as Ragnarök's docs/rag25.md shows the official output (shortened).
RAG25: dict[str, Any] = {
    "metadata": {
        "team_id": "organizer",
        "run_id": "fs_rank-qwen3-32b_ag-qwen3-32b",
        "type": "automatic",
        "narrative_id": "2",
        "narrative": "I'm seeking to understand the causes of climate change.",
    },
    "references": SEGMENTS,
    "answer": [
        {"text": "Human activities drive climate change.", "citations": [1, 0]},
        {"text": "   Governments respond.", "citations": []},
        {"text": "Isotopes fingerprint it.", "citations": [1]},
    ],
}

segment_ids = st.builds(
    "msmarco_v2.1_doc_{:02d}_{}#{}_{}".format,
    st.integers(0, 58),
    st.integers(0, 10**10),
    st.integers(0, 500),
    st.integers(0, 10**10),
)


def line(record: dict[str, Any]) -> str:
    return json.dumps(record) + "\n"


def test_a_rag25_answer_is_read_from_its_metadata_references_and_sentences() -> None:
    (response,) = parse_responses(line(RAG25), "rag25.jsonl")
    assert response == Response(
        "2",
        "fs_rank-qwen3-32b_ag-qwen3-32b",
        "Human activities drive climate change. Governments respond. Isotopes fingerprint it.",
        (SEGMENTS[1], SEGMENTS[0]),
    )


def test_rag25_citations_may_be_segment_ids_instead_of_indexes() -> None:
    record = {**RAG25, "answer": [{"text": "One.", "citations": [SEGMENTS[0]]}]}
    (response,) = parse_responses(line(record), "rag25.jsonl")
    assert response.citations == (SEGMENTS[0],)


def test_system_overrides_the_run_id_of_a_rag25_file() -> None:
    (response,) = parse_responses(line(RAG25), "rag25.jsonl", system="mine")
    assert response.system == "mine"


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"metadata": {"team_id": "t", "run_id": "r"}}, "missing field: one of narrative_id, topic_id, qid"),
        ({"metadata": {"team_id": "t", "narrative_id": "2"}}, "missing field: one of system, run_id"),
        ({"metadata": ["2"]}, "field 'metadata' must be an object"),
        ({"answer": [{"text": "x", "citations": [2]}]}, "citation 2 points outside the 2 references"),
        (
            {"references": [SEGMENTS[0], "a b"], "answer": [{"text": "x", "citations": [1]}]},
            "cited docid 'a b' holds a blank (U+0020)",
        ),
    ],
)
def test_a_bad_rag25_line_is_refused_naming_it(change: dict[str, Any], reason: str) -> None:
    bad = {**RAG25, "metadata": {**RAG25["metadata"], "narrative_id": "3"}, **change}
    with pytest.raises(InputError) as refused:
        parse_responses(line(RAG25) + line(bad), "f")
    assert str(refused.value) == f"f:2: {reason}"


def test_rag24_and_rag25_answers_mix_in_one_file() -> None:
    rag24 = {"run_id": "r24", "topic_id": "7", "references": SEGMENTS, "answer": [{"text": "A.", "citations": [0]}]}
    responses = parse_responses(line(rag24) + line(RAG25), "mixed.jsonl")
    assert [(r.qid, r.system) for r in responses] == [("7", "r24"), ("2", "fs_rank-qwen3-32b_ag-qwen3-32b")]


@given(segment_ids)
def test_a_segment_id_is_an_id(segment: str) -> None:
    assert id_problem(segment) is None


@given(st.lists(st.tuples(st.sampled_from(["1", "q#2"]), segment_ids), min_size=1, unique=True))
def test_segment_ids_round_trip_through_qrels_and_runs(pairs: list[tuple[str, str]]) -> None:
    qrels = [QrelsRow(qid, docid, float(n % 4)) for n, (qid, docid) in enumerate(pairs)]
    out = io.StringIO()
    write_qrels(qrels, out)
    assert parse_qrels(out.getvalue(), "q").rows == qrels
    run = [RunRow(qid, docid, n + 1, 10.0 - n) for n, (qid, docid) in enumerate(pairs)]
    out = io.StringIO()
    write_run(run, "tag", out)
    assert parse_run(out.getvalue(), "r").rows == run


def test_a_line_is_a_comment_only_when_its_first_column_starts_with_a_hash() -> None:
    text = f"# a comment\n1 0 {SEGMENTS[0]} 2\n"
    assert parse_qrels(text, "q").rows == [QrelsRow("1", SEGMENTS[0], 2.0)]


def test_the_segmented_corpus_is_a_documents_file_as_published() -> None:
    record = {
        "docid": SEGMENTS[0],
        "url": "https://en.wikipedia.org/wiki/Sizeism",
        "title": "Sizeism - Wikipedia",
        "headings": "Sizeism\nContents\n",
        "segment": "Sizeism or size discrimination is the idea that people are prejudged by their size.",
        "start_char": 0,
        "end_char": 84,
    }
    renamed = {"segment_id": SEGMENTS[1], **{k: v for k, v in record.items() if k != "docid"}}
    assert parse_documents(line(record) + line(renamed), "segments.jsonl") == [
        Document(SEGMENTS[0], str(record["segment"]), "Sizeism - Wikipedia"),
        Document(SEGMENTS[1], str(record["segment"]), "Sizeism - Wikipedia"),
    ]


def test_segment_ids_are_docids_of_tsv_documents_and_qids_may_hold_a_hash() -> None:
    assert parse_documents(f"{SEGMENTS[0]}\tsome text\n", "d.tsv") == [Document(SEGMENTS[0], "some text")]
    assert [t.qid for t in parse_topics("q#1\ta question\n", "t.tsv")] == ["q#1"]
