"""Test banks: exam questions and nuggets, from the three formats people exchange them in.

* Rubric workbench JSONL (optionally gzipped): one line per topic,
  `{"query_id", "query_text", "items": [{"question_id", "question_text", "gold_answers"?} |
  {"nugget_id", "nugget_text"}]}`;
* nuggetizer JSONL: `{"qid", "query"?, "nuggets": [{"text", "importance"?}]}`;
* TSV: `qid_n<TAB>text[<TAB>vital|okay]`, one item a line (nuggets unless told otherwise).

All three become `BankItem`s; an item without an id gets the Rubric id `qid/md5(text)`.
"""

from __future__ import annotations

from typing import Any

from studio.domain.errors import InputError
from studio.domain.models import IMPORTANCE_LEVELS, ITEM_KINDS, BankItem, rubric_item_id
from studio.formats.jsonl import first_field, json_objects, looks_like_jsonl
from studio.formats.text_input import numbered_lines


def parse_bank(text: str, source: str, kind: str | None = None) -> list[BankItem]:
    """Items of a bank file in file order; `kind` forces question/nugget where the file is silent."""
    if kind is not None and kind not in ITEM_KINDS:
        raise InputError(source, None, f"item kind must be one of {', '.join(ITEM_KINDS)}")
    jsonl = looks_like_jsonl(text)
    numbered = _jsonl_items(text, source) if jsonl else _tsv_items(text, source, kind)
    if not numbered:
        raise InputError(source, None, "the file holds no items")
    seen: dict[str, int] = {}
    for number, item in numbered:
        if item.item_id in seen:
            raise InputError(
                source, number, f"item {item.item_id!r} appears twice (first on line {seen[item.item_id]})"
            )
        seen[item.item_id] = number
    return [item for _, item in numbered]


def _importance(value: Any, source: str, line: int) -> str | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str) or value.lower() not in IMPORTANCE_LEVELS:
        raise InputError(source, line, f"importance {value!r} is not vital or okay")
    return value.lower()


def _tsv_items(text: str, source: str, kind: str | None) -> list[tuple[int, BankItem]]:
    items = []
    for number, line in numbered_lines(text):
        fields = line.split("\t")
        if len(fields) not in (2, 3) or not fields[1].strip():
            raise InputError(source, number, "expected qid_n<TAB>text[<TAB>vital|okay]")
        qid, underscore, ordinal = fields[0].strip().rpartition("_")
        if not underscore or not qid or not ordinal.isdigit():
            raise InputError(source, number, f"first column {fields[0]!r} is not of the form qid_n")
        body = fields[1].strip()
        importance = _importance(fields[2].strip(), source, number) if len(fields) == 3 else None
        item_kind = kind or "nugget"
        items.append((number, BankItem(qid, rubric_item_id(qid, body), item_kind, body, importance)))
    return items


def _jsonl_items(text: str, source: str) -> list[tuple[int, BankItem]]:
    items: list[tuple[int, BankItem]] = []
    for number, record in json_objects(text, source):
        if "items" in record:
            items.extend((number, item) for item in _rubric_items(record, source, number))
        elif "nuggets" in record:
            items.extend((number, item) for item in _nuggetizer_items(record, source, number))
        else:
            raise InputError(
                source, number, "expected a Rubric bank ('items') or a nuggetizer record ('nuggets')"
            )
    return items


def _list_field(record: dict[str, Any], name: str, source: str, line: int) -> list[Any]:
    value = record[name]
    if not isinstance(value, list):
        raise InputError(source, line, f"field {name!r} must be a list")
    return value


def _rubric_items(record: dict[str, Any], source: str, line: int) -> list[BankItem]:
    qid = first_field(record, ("query_id", "qid"), source, line)
    assert qid is not None
    items = []
    for entry in _list_field(record, "items", source, line):
        if not isinstance(entry, dict):
            raise InputError(source, line, "each item must be a JSON object")
        if "question_text" in entry:
            kind, text_key, id_key = "question", "question_text", "question_id"
        elif "nugget_text" in entry:
            kind, text_key, id_key = "nugget", "nugget_text", "nugget_id"
        elif "subtopic_text" in entry:
            # The Rubric format knows questions and nuggets; subtopics ride in the same shape.
            kind, text_key, id_key = "subtopic", "subtopic_text", "subtopic_id"
        else:
            raise InputError(source, line, "an item needs question_text, nugget_text or subtopic_text")
        body = first_field(entry, (text_key,), source, line)
        assert body is not None
        body = body.strip()
        item_id = first_field(entry, (id_key,), source, line, required=False) or rubric_item_id(qid, body)
        gold = entry.get("gold_answers") or []
        if not isinstance(gold, list) or not all(isinstance(g, str) for g in gold):
            raise InputError(source, line, "gold_answers must be a list of strings")
        # The Rubric format has no importance field; the studio keeps vital/okay in `info`.
        info = entry.get("info")
        importance = _importance(info.get("importance"), source, line) if isinstance(info, dict) else None
        items.append(BankItem(qid, item_id, kind, body, importance, tuple(gold)))
    return items


def _nuggetizer_items(record: dict[str, Any], source: str, line: int) -> list[BankItem]:
    qid = first_field(record, ("qid", "query_id"), source, line)
    assert qid is not None
    items = []
    for entry in _list_field(record, "nuggets", source, line):
        if isinstance(entry, str):
            body, importance = entry.strip(), None
        elif isinstance(entry, dict):
            text = first_field(entry, ("text",), source, line)
            assert text is not None
            body, importance = text.strip(), _importance(entry.get("importance"), source, line)
        else:
            raise InputError(source, line, "each nugget must be text or an object with 'text'")
        items.append(BankItem(qid, rubric_item_id(qid, body), "nugget", body, importance))
    return items
