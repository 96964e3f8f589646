"""UMBRELA-style judgment JSONL: one line per judged pair with the prompt, the raw model output
and the judgment (`result_status` 1 when a label was read, 0 for a recorded failure).

The studio writes `qid` and `docid` beside UMBRELA's fields so the file can be read back into a
label set; lines with `result_status` 0 carry no label and are skipped on import.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from studio.domain.errors import InputError
from studio.domain.models import QrelsRow
from studio.formats.jsonl import first_field, json_objects


def judgment_line(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, sort_keys=False) + "\n"


def write_judgments(records: Iterable[dict[str, Any]]) -> str:
    return "".join(judgment_line(r) for r in records)


def parse_judgments(text: str, source: str) -> tuple[list[QrelsRow], int]:
    """The labelled pairs of a judgment file and the number of failure lines skipped."""
    rows: dict[tuple[str, str], tuple[QrelsRow, int]] = {}
    skipped = 0
    for number, record in json_objects(text, source):
        qid = first_field(record, ("qid", "query_id", "topic_id"), source, number)
        docid = first_field(record, ("docid", "doc_id", "pid"), source, number)
        assert qid is not None and docid is not None
        if record.get("result_status", 1) == 0 or record.get("judgment") is None:
            skipped += 1
            continue
        judgment = record["judgment"]
        if isinstance(judgment, bool) or not isinstance(judgment, int | float):
            raise InputError(source, number, f"judgment {judgment!r} is not a number")
        if (qid, docid) in rows:
            first = rows[(qid, docid)][1]
            raise InputError(source, number, f"({qid}, {docid}) is judged twice (first on line {first})")
        rows[(qid, docid)] = (QrelsRow(qid, docid, float(judgment)), number)
    if not rows and not skipped:
        raise InputError(source, None, "the file is empty")
    return [row for row, _ in rows.values()], skipped
