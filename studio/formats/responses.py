"""Generated answers: `{"qid", "system", "text"}` JSONL, the TREC RAG 2024 and 2025 answer formats,
and one system's `qid<TAB>text` (`studio.formats.answer_texts`), told apart by the first character.

TREC RAG 2024 records carry `run_id`, `topic_id`, `references` (docids) and
`answer: [{"text", "citations"}]`, where citations index into `references`. TREC RAG 2025
records (as Ragnarök's `validate_trec_rag25_gen.py` checks them) put the ids in `metadata`
(`team_id`, `run_id`, `narrative_id`, optionally `type`, `narrative`, `prompt`) beside the same
`references` and `answer`; citations are indexes into `references` or segment ids. Qids and
cited docids are checked as ids, system names as names (`studio.domain.names`).
"""

from __future__ import annotations

import json
from typing import Any

from studio.domain.choices import AnswerLayout
from studio.domain.errors import InputError
from studio.domain.models import Response
from studio.formats.answer_texts import parse_answer_texts
from studio.formats.checks import checked_name
from studio.formats.jsonl import first_field, id_field, id_value, json_objects
from studio.formats.text_input import Text, first_text

QID_FIELDS = ("qid", "topic_id", "query_id")
SYSTEM_FIELDS = ("system", "run_id")
RAG25_QID_FIELDS = ("narrative_id", "topic_id", "qid")  # in `metadata`


def parse_responses(text: Text, source: str, system: str | None = None) -> list[Response]:
    """Parse answers; `system` overrides the system named in the file (and names the system of a
    `qid<TAB>text` file, which does not: a JSON record starts with `{`, such a line never does)."""
    if not first_text(text).startswith("{"):
        return parse_answer_texts(text, source, system)
    responses: list[Response] = []
    seen: dict[tuple[str, str], int] = {}
    for number, record in json_objects(text, source):
        ids = _rag25_metadata(record, source, number)
        qid = id_field(ids, RAG25_QID_FIELDS if ids is not record else QID_FIELDS, source, number)
        name = system or first_field(ids, SYSTEM_FIELDS, source, number)
        assert qid is not None and name is not None
        name = checked_name(name, "system", source, number)
        if isinstance(record.get("answer"), list):
            body, citations = _rag24_answer(record, source, number)
        else:
            body = first_field(record, ("text", "answer", "response"), source, number) or ""
            citations = _citation_ids(record.get("citations", []), [], source, number)
        key = (qid, name)
        if key in seen:
            raise InputError(source, number, f"system {name!r} answers topic {qid!r} twice (first on line {seen[key]})")
        seen[key] = number
        responses.append(Response(qid, name, body, citations))
    if not responses:
        raise InputError(source, None, "the file is empty")
    return responses


def _rag25_metadata(record: dict[str, Any], source: str, line: int) -> dict[str, Any]:
    """Where a record keeps its topic and run ids: a RAG 2025 record's `metadata`, else the record."""
    metadata = record.get("metadata")
    if metadata is None or not isinstance(record.get("answer"), list):
        return record
    if not isinstance(metadata, dict):
        raise InputError(source, line, "field 'metadata' must be an object")
    return metadata


def _rag24_answer(record: dict[str, Any], source: str, line: int) -> tuple[str, tuple[str, ...]]:
    references = record.get("references", [])
    if not isinstance(references, list):
        raise InputError(source, line, "field 'references' must be a list")
    sentences: list[str] = []
    cited: dict[str, None] = {}
    for sentence in record["answer"]:
        if not isinstance(sentence, dict) or not isinstance(sentence.get("text"), str):
            raise InputError(source, line, "each answer sentence needs a 'text'")
        sentences.append(sentence["text"].strip())
        for docid in _citation_ids(sentence.get("citations", []), references, source, line):
            cited.setdefault(docid)
    return " ".join(s for s in sentences if s), tuple(cited)


def _citation_ids(citations: Any, references: list[Any], source: str, line: int) -> tuple[str, ...]:
    """Citations as docids: integers index `references`, strings are docids already."""
    if not isinstance(citations, list):
        raise InputError(source, line, "field 'citations' must be a list")
    ids: list[str] = []
    for citation in citations:
        if isinstance(citation, int) and not isinstance(citation, bool):
            if not 0 <= citation < len(references):
                raise InputError(source, line, f"citation {citation} points outside the {len(references)} references")
            ids.append(id_value(references[citation], "cited docid", source, line))
        elif isinstance(citation, str):
            ids.append(id_value(citation, "cited docid", source, line))
        else:
            raise InputError(source, line, f"citation {citation!r} is neither an index nor a docid")
    return tuple(ids)


def write_responses(responses: list[Response], layout: AnswerLayout = AnswerLayout.jsonl) -> str:
    """Answers as `parse_responses` reads them back: `jsonl`, one `{"qid", "system", "text",
    "citations"}` a line; `rag24`, TREC RAG 2024 records (`run_id`, `topic_id`, `references`,
    `answer`). The studio keeps an answer's text and its cited docids, not its sentences, so a
    `rag24` answer is one sentence citing every reference."""
    lines = []
    for r in responses:
        if layout is AnswerLayout.jsonl:
            record: dict[str, Any] = {"qid": r.qid, "system": r.system, "text": r.text, "citations": list(r.citations)}
        else:
            record = {
                "run_id": r.system,
                "topic_id": r.qid,
                "references": list(r.citations),
                "answer": [{"text": r.text, "citations": list(range(len(r.citations)))}],
            }
        lines.append(json.dumps(record, ensure_ascii=False) + "\n")
    return "".join(lines)
