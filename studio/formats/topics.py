"""Topics: `qid<TAB>text` lines, or JSONL with `qid|query_id|id` and `text|query|title`.

A qid is checked as an id (`studio.domain.names`); a topic's text must hold more than blanks.
"""

from __future__ import annotations

from studio.domain.errors import InputError
from studio.domain.models import Topic
from studio.formats.checks import checked_id
from studio.formats.jsonl import first_field, id_field, json_objects, looks_like_jsonl
from studio.formats.text_input import Text, numbered_lines

QID_FIELDS = ("qid", "query_id", "id", "topic_id")
TEXT_FIELDS = ("text", "query", "title")


def parse_topics(text: Text, source: str) -> list[Topic]:
    topics = _jsonl_topics(text, source) if looks_like_jsonl(text) else _tsv_topics(text, source)
    _refuse_repeated_qids([(t.qid, n) for n, t in topics], source)
    return [topic for _, topic in topics]


def _tsv_topics(text: Text, source: str) -> list[tuple[int, Topic]]:
    topics = []
    for number, line in numbered_lines(text):
        qid, tab, query = line.partition("\t")
        if not tab or not qid.strip():
            raise InputError(source, number, "expected qid<TAB>text")
        qid = checked_id(qid.strip(" "), "qid", source, number)
        topics.append((number, Topic(qid, _checked_text(query, source, number).strip())))
    return topics


def _jsonl_topics(text: Text, source: str) -> list[tuple[int, Topic]]:
    topics = []
    for number, record in json_objects(text, source):
        qid = id_field(record, QID_FIELDS, source, number)
        query = first_field(record, TEXT_FIELDS, source, number)
        assert qid is not None and query is not None
        topics.append((number, Topic(qid, _checked_text(query, source, number))))
    return topics


def _checked_text(query: str, source: str, line: int) -> str:
    if not query.strip():
        raise InputError(source, line, "the topic's text is empty")
    return query


def _refuse_repeated_qids(qids: list[tuple[str, int]], source: str) -> None:
    seen: dict[str, int] = {}
    for qid, number in qids:
        if qid in seen:
            raise InputError(source, number, f"topic {qid!r} is listed twice (first on line {seen[qid]})")
        seen[qid] = number
