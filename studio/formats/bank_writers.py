"""Writing test banks in the four layouts `studio.formats.banks.read_bank` reads.

Every writer is the inverse of the reader for what its layout can hold, so a bank exported
and imported again comes back item for item. Rubric JSONL holds everything (the vital/okay
importance rides in each item's `info`, as the reader expects); the Rubric workbench's older
question-bank layout (`questions`) holds ids and importance but neither gold answers nor
other kinds than questions; nuggetizer JSONL and TSV hold neither item ids (the reader
derives `qid/md5(text)`) nor gold answers, nuggetizer knows only nuggets and TSV does not
say the kind: `losses` names what an export drops.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from studio.domain.choices import BankFormat
from studio.domain.errors import UsageError
from studio.domain.json_text import json_text
from studio.domain.models import BankItem, rubric_item_id

JSON_FORMATS = (BankFormat.rubric, BankFormat.rubric_questions, BankFormat.nuggetizer)


def format_for_name(name: str, layout: str | None = None) -> BankFormat:
    """The format to write: a `.tsv` name (optionally `.gz`) is TSV; any other name gets the
    JSON layout the bank came in (`layout`), and Rubric when it came in none."""
    stem = name.lower().removesuffix(".gz")
    if stem.endswith(".tsv"):
        return BankFormat.tsv
    return BankFormat(layout) if layout in JSON_FORMATS else BankFormat.rubric


def by_topic(items: Iterable[BankItem]) -> dict[str, list[BankItem]]:
    """Items grouped by topic, topics in order of first appearance, items in their order."""
    groups: dict[str, list[BankItem]] = {}
    for item in items:
        groups.setdefault(item.qid, []).append(item)
    return groups


def _json_line(record: Mapping[str, Any]) -> str:
    # json.dumps escapes line breaks inside strings, so one record is always one line.
    return json_text(record) + "\n"


def _rubric_item(item: BankItem) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "query_id": item.qid,
        "facet_id": None,
        "info": {"importance": item.importance} if item.importance else None,
    }
    if item.kind == "question":
        entry.update(question_id=item.item_id, question_text=item.text)
        entry["gold_answers"] = list(item.gold_answers) or None
    else:
        entry.update({f"{item.kind}_id": item.item_id, f"{item.kind}_text": item.text})
        if item.gold_answers:
            entry["gold_answers"] = list(item.gold_answers)
    return entry


def rubric_jsonl(
    items: Sequence[BankItem], query_texts: Mapping[str, str] | None = None, test_collection: str = ""
) -> str:
    """One Rubric-workbench test bank per topic (the pydantic QueryTestBank shape)."""
    texts = query_texts or {}
    return "".join(
        _json_line(
            {
                "query_id": qid,
                "facet_id": None,
                "test_collection": test_collection,
                "query_text": texts.get(qid, ""),
                "info": None,
                "items": [_rubric_item(item) for item in group],
            }
        )
        for qid, group in by_topic(items).items()
    )


def rubric_questions_jsonl(
    items: Sequence[BankItem], query_texts: Mapping[str, str] | None = None, test_collection: str = ""
) -> str:
    """The Rubric workbench's older question bank: one `QueryQuestionBank` per topic with its
    `questions`, keys in the workbench's order and written as its pydantic `.json()` wrote them
    (`json.dumps` defaults: ASCII escapes, `", "` and `": "`), so a file it wrote comes back byte
    for byte. `facet_id` is null; `info` carries the vital/okay importance, as in Rubric JSONL."""
    texts = query_texts or {}
    return "".join(
        json.dumps(
            {
                "query_id": qid,
                "facet_id": None,
                "test_collection": test_collection,
                "query_text": texts.get(qid, ""),
                "info": None,
                "questions": [
                    {
                        "question_id": item.item_id,
                        "question_text": item.text,
                        "query_id": qid,
                        "facet_id": None,
                        "info": {"importance": item.importance} if item.importance else None,
                    }
                    for item in group
                ],
            }
        )
        + "\n"
        for qid, group in by_topic(items).items()
    )


def nuggetizer_jsonl(items: Sequence[BankItem], query_texts: Mapping[str, str] | None = None) -> str:
    """One nuggetizer record per topic; an item without importance has no `importance` key."""
    texts = query_texts or {}
    lines = []
    for qid, group in by_topic(items).items():
        record: dict[str, Any] = {"qid": qid}
        if qid in texts:
            record["query"] = texts[qid]
        record["nuggets"] = [
            {"text": item.text, **({"importance": item.importance} if item.importance else {})} for item in group
        ]
        lines.append(_json_line(record))
    return "".join(lines)


def _tsv_safe(item: BankItem, field: str, value: str) -> str:
    if any(c in value for c in "\t\n\r"):
        raise UsageError(
            f"item {item.item_id!r}: its {field} holds a tab or line break, which TSV cannot carry;"
            " export as rubric or nuggetizer instead"
        )
    return value


def tsv(items: Sequence[BankItem]) -> str:
    """`qid_n<TAB>text[<TAB>importance]`, n counting from 1 within each topic."""
    lines = []
    for qid, group in by_topic(items).items():
        for n, item in enumerate(group, start=1):
            fields = [f"{_tsv_safe(item, 'qid', qid)}_{n}", _tsv_safe(item, "text", item.text)]
            lines.append("\t".join([*fields, *([item.importance] if item.importance else [])]) + "\n")
    return "".join(lines)


def render_bank(
    items: Sequence[BankItem],
    fmt: BankFormat,
    query_texts: Mapping[str, str] | None = None,
    test_collection: str = "",
) -> str:
    if fmt is BankFormat.rubric:
        return rubric_jsonl(items, query_texts, test_collection)
    if fmt is BankFormat.rubric_questions:
        return rubric_questions_jsonl(items, query_texts, test_collection)
    if fmt is BankFormat.nuggetizer:
        return nuggetizer_jsonl(items, query_texts)
    return tsv(items)


def losses(items: Sequence[BankItem], fmt: BankFormat) -> list[str]:
    """What a re-import of the export would not give back, one sentence each (none for Rubric)."""
    if fmt is BankFormat.rubric:
        return []
    found = []
    renamed = sum(item.item_id != rubric_item_id(item.qid, item.text) for item in items)
    if renamed and fmt is not BankFormat.rubric_questions:
        found.append(f"{renamed} item ids are not qid/md5(text) and will be re-derived on import")
    golden = sum(bool(item.gold_answers) for item in items)
    if golden:
        found.append(f"{golden} items lose their gold answers ({fmt} has no field for them)")
    kinds = {item.kind for item in items}
    if fmt is BankFormat.rubric_questions and kinds - {"question"}:
        others = " and ".join(f"{kind}s" for kind in sorted(kinds - {"question"}))
        found.append(f"{others} are written as questions (rubric-questions holds questions only)")
    if fmt is BankFormat.nuggetizer and kinds - {"nugget"}:
        others = " and ".join(f"{kind}s" for kind in sorted(kinds - {"nugget"}))
        found.append(f"{others} are written as nuggets (nuggetizer holds nuggets only)")
    if fmt is BankFormat.tsv and len(kinds) == 1 and kinds != {"nugget"}:
        found.append(f"TSV does not say the kind: re-import with --kind {next(iter(kinds))}")
    if fmt is BankFormat.tsv and len(kinds) > 1:
        found.append("TSV does not say the kind: items of several kinds re-import as one kind")
    return found


def encode(text: str, gzipped: bool) -> bytes:
    """UTF-8 bytes, gzipped with mtime 0 so that the same bank always gives the same bytes."""
    data = text.encode("utf-8")
    return gzip.compress(data, mtime=0) if gzipped else data
