"""Test banks: exam questions and nuggets, from the four layouts people publish them in.

* Rubric workbench JSONL (optionally gzipped): one line per topic,
  `{"query_id", "query_text", "test_collection", "items": [{"question_id", "question_text",
  "gold_answers"?} | {"nugget_id", "nugget_text"}]}`;
* the Rubric workbench's older question banks (its `QueryQuestionBank`, as the EXAM banks of
  TREC DL were published): `{"query_id", "facet_id", "test_collection", "query_text", "info",
  "questions": [{"question_id", "question_text", "query_id", "facet_id", "info"}]}`, questions
  only and no gold answers; each question's `query_id` must be its line's;
* nuggetizer JSONL: `{"qid", "query"?, "nuggets": [{"text", "importance"?}]}`;
* TSV: `qid_n<TAB>text[<TAB>vital|okay]`, one item a line (nuggets unless told otherwise).

A JSONL file's layout is read from each line's content (`items`, `questions` with `query_id`,
`nuggets`); one file holds one layout. All become `BankItem`s; an item without an id gets the
Rubric id `qid/md5(text)`. The vital/okay importance of Rubric items rides in their `info`;
any other `facet_id` or `info` value has no place in the studio and is counted in a warning.
Qids are checked as ids (`studio.domain.names`); an item's text must hold more than blanks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from studio.domain.choices import BankFormat
from studio.domain.errors import InputError
from studio.domain.models import IMPORTANCE_LEVELS, ITEM_KINDS, BankItem, rubric_item_id
from studio.formats.checks import checked_id
from studio.formats.jsonl import first_field, id_field, json_objects, looks_like_jsonl
from studio.formats.text_input import Text, numbered_lines


@dataclass
class ParsedBank:
    """A bank file's items, the layout it was in, and what it says about its topics."""

    items: list[BankItem]
    layout: BankFormat
    query_texts: dict[str, str] = field(default_factory=dict)  # qid -> the file's query text
    test_collection: str | None = None  # the first line's, when the layout has one
    warnings: list[str] = field(default_factory=list)


@dataclass
class _Unkept:
    """`facet_id` and `info` values the studio has no field for, counted for one warning."""

    facets: int = 0
    infos: int = 0

    def note(self, record: dict[str, Any], importance_info: bool) -> None:
        self.facets += record.get("facet_id") is not None
        info = record.get("info")
        if info is not None and not (importance_info and isinstance(info, dict) and set(info) <= {"importance"}):
            self.infos += 1

    def warnings(self, source: str) -> list[str]:
        parts = [f"{self.facets} facet_id" if self.facets else "", f"{self.infos} info" if self.infos else ""]
        said = " and ".join(part for part in parts if part)
        if not said:
            return []
        return [f"{source}: {said} value(s) are not kept (the studio has no field for them; an export writes null)"]


def parse_bank(text: Text, source: str, kind: str | None = None) -> list[BankItem]:
    """Items of a bank file in file order; `kind` forces question/nugget where the file is silent."""
    return read_bank(text, source, kind).items


def read_bank(text: Text, source: str, kind: str | None = None) -> ParsedBank:
    """A bank file read whole: its items in file order, its layout, and its topics' texts."""
    if kind is not None and kind not in ITEM_KINDS:
        raise InputError(source, None, f"item kind must be one of {', '.join(ITEM_KINDS)}")
    if looks_like_jsonl(text):
        parsed, numbered = _jsonl_bank(text, source)
    else:
        parsed, numbered = ParsedBank([], BankFormat.tsv), _tsv_items(text, source, kind)
    if not numbered:
        raise InputError(source, None, "the file holds no items")
    seen: dict[str, int] = {}
    for number, item in numbered:
        if item.item_id in seen:
            raise InputError(
                source, number, f"item {item.item_id!r} appears twice (first on line {seen[item.item_id]})"
            )
        seen[item.item_id] = number
    parsed.items = [item for _, item in numbered]
    return parsed


def _importance(value: Any, source: str, line: int) -> str | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str) or value.lower() not in IMPORTANCE_LEVELS:
        raise InputError(source, line, f"importance {value!r} is not vital or okay")
    return value.lower()


def _tsv_items(text: Text, source: str, kind: str | None) -> list[tuple[int, BankItem]]:
    items = []
    for number, line in numbered_lines(text):
        fields = line.split("\t")
        if len(fields) not in (2, 3) or not fields[1].strip():
            raise InputError(source, number, "expected qid_n<TAB>text[<TAB>vital|okay]")
        qid, underscore, ordinal = fields[0].strip(" ").rpartition("_")
        if not underscore or not qid or not (ordinal.isascii() and ordinal.isdigit()):
            raise InputError(source, number, f"first column {fields[0]!r} is not of the form qid_n")
        checked_id(qid, "qid", source, number)
        body = fields[1].strip()
        importance = _importance(fields[2].strip(), source, number) if len(fields) == 3 else None
        item_kind = kind or "nugget"
        items.append((number, BankItem(qid, rubric_item_id(qid, body), item_kind, body, importance)))
    return items


LAYOUT_NAMES = {
    BankFormat.rubric: "a Rubric bank ('items')",
    BankFormat.rubric_questions: "an older Rubric question bank ('questions')",
    BankFormat.nuggetizer: "a nuggetizer record ('nuggets')",
}


def _layout(record: dict[str, Any], source: str, line: int) -> BankFormat:
    if "items" in record:
        return BankFormat.rubric
    if "questions" in record and "query_id" in record:
        return BankFormat.rubric_questions
    if "nuggets" in record:
        return BankFormat.nuggetizer
    raise InputError(
        source,
        line,
        "expected a Rubric bank ('items'), an older Rubric question bank ('query_id' and"
        " 'questions') or a nuggetizer record ('nuggets')",
    )


def _jsonl_bank(text: Text, source: str) -> tuple[ParsedBank, list[tuple[int, BankItem]]]:
    parsed: ParsedBank | None = None
    first_line = 0
    items: list[tuple[int, BankItem]] = []
    unkept = _Unkept()
    for number, record in json_objects(text, source):
        layout = _layout(record, source, number)
        if parsed is None:
            parsed, first_line = ParsedBank([], layout), number
            if layout is not BankFormat.nuggetizer:
                parsed.test_collection = first_field(record, ("test_collection",), source, number, required=False)
        elif layout is not parsed.layout:
            raise InputError(
                source,
                number,
                f"this line is {LAYOUT_NAMES[layout]}, but line {first_line} is"
                f" {LAYOUT_NAMES[parsed.layout]}: one file holds one layout",
            )
        if layout is BankFormat.rubric:
            qid, found = _rubric_items(record, source, number, unkept)
        elif layout is BankFormat.rubric_questions:
            qid, found = _older_questions(record, source, number, unkept)
        else:
            qid, found = _nuggetizer_items(record, source, number)
        query = first_field(
            record, ("query" if layout is BankFormat.nuggetizer else "query_text",), source, number, required=False
        )
        if query and query.strip():
            parsed.query_texts.setdefault(qid, query.strip())
        items.extend((number, item) for item in found)
    assert parsed is not None  # the file is not empty (read_text) and every line is an object
    parsed.warnings = unkept.warnings(source)
    return parsed, items


def _list_field(record: dict[str, Any], name: str, source: str, line: int) -> list[Any]:
    value = record[name]
    if not isinstance(value, list):
        raise InputError(source, line, f"field {name!r} must be a list")
    return value


def _rubric_items(record: dict[str, Any], source: str, line: int, unkept: _Unkept) -> tuple[str, list[BankItem]]:
    qid = id_field(record, ("query_id", "qid"), source, line)
    assert qid is not None
    unkept.note(record, importance_info=False)
    items = []
    for entry in _list_field(record, "items", source, line):
        if not isinstance(entry, dict):
            raise InputError(source, line, "each item must be a JSON object")
        unkept.note(entry, importance_info=True)
        if "question_text" in entry:
            kind, text_key, id_key = "question", "question_text", "question_id"
        elif "nugget_text" in entry:
            kind, text_key, id_key = "nugget", "nugget_text", "nugget_id"
        elif "subtopic_text" in entry:
            # The Rubric format knows questions and nuggets; subtopics ride in the same shape.
            kind, text_key, id_key = "subtopic", "subtopic_text", "subtopic_id"
        else:
            raise InputError(source, line, "an item needs question_text, nugget_text or subtopic_text")
        body = _item_text(first_field(entry, (text_key,), source, line), source, line)
        item_id = first_field(entry, (id_key,), source, line, required=False) or rubric_item_id(qid, body)
        items.append(
            BankItem(
                qid, item_id, kind, body, _info_importance(entry, source, line), _gold_answers(entry, source, line)
            )
        )
    return qid, items


def _item_text(text: str | None, source: str, line: int) -> str:
    """An item's text without surrounding blanks; an item without text is refused."""
    if text is None or not text.strip():
        raise InputError(source, line, "an item's text is empty")
    return text.strip()


def _gold_answers(entry: dict[str, Any], source: str, line: int) -> tuple[str, ...]:
    gold = entry.get("gold_answers") or []
    if not isinstance(gold, list) or not all(isinstance(g, str) for g in gold):
        raise InputError(source, line, "gold_answers must be a list of strings")
    return tuple(gold)


def _info_importance(entry: dict[str, Any], source: str, line: int) -> str | None:
    # The Rubric formats have no importance field; the studio keeps vital/okay in `info`.
    info = entry.get("info")
    return _importance(info.get("importance"), source, line) if isinstance(info, dict) else None


def _older_questions(record: dict[str, Any], source: str, line: int, unkept: _Unkept) -> tuple[str, list[BankItem]]:
    """A `QueryQuestionBank` line: questions that each repeat the line's `query_id`."""
    qid = id_field(record, ("query_id",), source, line)
    assert qid is not None
    unkept.note(record, importance_info=False)
    items = []
    for n, entry in enumerate(_list_field(record, "questions", source, line), start=1):
        if not isinstance(entry, dict):
            raise InputError(source, line, "each question must be a JSON object")
        unkept.note(entry, importance_info=True)
        body = _item_text(first_field(entry, ("question_text",), source, line), source, line)
        item_id = first_field(entry, ("question_id",), source, line, required=False) or rubric_item_id(qid, body)
        own = id_field(entry, ("query_id",), source, line, required=False)
        if own is not None and own != qid:
            raise InputError(
                source, line, f"question {n} ({item_id!r}) has query_id {own!r}, but its line's query_id is {qid!r}"
            )
        items.append(
            BankItem(
                qid,
                item_id,
                "question",
                body,
                _info_importance(entry, source, line),
                _gold_answers(entry, source, line),
            )
        )
    return qid, items


def _nuggetizer_items(record: dict[str, Any], source: str, line: int) -> tuple[str, list[BankItem]]:
    qid = id_field(record, ("qid", "query_id"), source, line)
    assert qid is not None
    items = []
    for entry in _list_field(record, "nuggets", source, line):
        if isinstance(entry, str):
            body, importance = _item_text(entry, source, line), None
        elif isinstance(entry, dict):
            text = first_field(entry, ("text",), source, line)
            body, importance = _item_text(text, source, line), _importance(entry.get("importance"), source, line)
        else:
            raise InputError(source, line, "each nugget must be text or an object with 'text'")
        items.append(BankItem(qid, rubric_item_id(qid, body), "nugget", body, importance))
    return qid, items
