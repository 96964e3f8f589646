"""UMBRELA-style judgment JSONL: one line per judged pair with the prompt, the raw model output
and the judgment (`result_status` 1 when a label was read, 0 for a recorded failure).

The studio writes `qid` and `docid` (and `docid_b` for preferences, `item_id` for rubric cells)
beside UMBRELA's fields, plus the label distribution where the backend gave one, so the file can
be read back into a label set with its judge run: raw outputs, failures and confidences included.
Lines with `result_status` 0 carry no label. Qids and docids are checked as ids (`studio.formats.jsonl`); the
judgment and the expected grade must be grades (finite, within trec_eval's range:
`studio.domain.numbers`); the confidence and each of `label_probs` probabilities, within [0, 1].
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from studio.domain.errors import InputError
from studio.domain.json_text import json_text
from studio.domain.models import QrelsRow
from studio.domain.numbers import finite_json_number, json_grade, why_not_json_grade
from studio.formats.jsonl import first_field, id_field, json_objects
from studio.formats.text_input import Text


def judgment_line(record: dict[str, Any]) -> str:
    return json_text(record) + "\n"


def write_judgments(records: Iterable[dict[str, Any]]) -> str:
    return "".join(judgment_line(r) for r in records)


@dataclass(frozen=True)
class JudgmentRecord:
    """One judged unit of a judgment file: a pair, an ordered document pair or an item cell."""

    qid: str
    docid: str
    label: float | None
    docid_b: str | None = None
    item_id: str | None = None
    prediction: str | None = None
    prompt: list[dict[str, str]] | None = None
    method: str | None = None
    model: str | None = None
    backend: str | None = None
    error: str | None = None
    confidence: float | None = None
    expected: float | None = None
    label_probs: dict[str, float] | None = None


@dataclass
class ParsedJudgments:
    records: list[JudgmentRecord] = field(default_factory=list)

    @property
    def rows(self) -> list[QrelsRow]:
        """The labels: every labelled (topic, document) judgment (not preferences or item cells)."""
        return [
            QrelsRow(r.qid, r.docid, r.label)
            for r in self.records
            if r.label is not None and r.docid_b is None and r.item_id is None
        ]

    @property
    def skipped(self) -> int:
        """Failed judgments: they carry no label."""
        return sum(1 for r in self.records if r.label is None)


def _optional_confidence(record: dict[str, Any], source: str, line: int) -> float | None:
    value = record.get("confidence")
    return None if value is None else _probability(value, "confidence", source, line)


def _optional_grade(record: dict[str, Any], key: str, source: str, line: int) -> float | None:
    value = record.get(key)
    if value is None:
        return None
    grade = json_grade(value)
    if grade is None:
        raise InputError(source, line, f"{key} {value!r} {why_not_json_grade(value)}")
    return grade


def _probability(value: object, what: str, source: str, line: int) -> float:
    number = finite_json_number(value)
    if number is None:
        raise InputError(source, line, f"{what} {value!r} is not a finite number")
    if not 0.0 <= number <= 1.0:
        raise InputError(source, line, f"{what} {value!r} is not a probability (within [0, 1])")
    return number


def _label_probs(record: dict[str, Any], source: str, line: int) -> dict[str, float] | None:
    """The label distribution: an object of probabilities (labels are the object's keys)."""
    probs = record.get("label_probs")
    if probs is None:
        return None
    if not isinstance(probs, dict):
        raise InputError(source, line, "label_probs must be an object of numbers by label")
    found = {}
    for label, value in probs.items():
        found[label] = _probability(value, f"label_probs[{label!r}]", source, line)
    return found


def _text(record: dict[str, Any], key: str) -> str | None:
    value = record.get(key)
    return value if isinstance(value, str) else None


def parse_judgments(text: Text, source: str) -> ParsedJudgments:
    """Every judged unit of a judgment file; a unit judged twice is an error."""
    parsed = ParsedJudgments()
    first_line: dict[tuple[str, str, str | None, str | None], int] = {}
    for number, record in json_objects(text, source):
        qid = id_field(record, ("qid", "query_id", "topic_id"), source, number)
        docid = id_field(record, ("docid", "doc_id", "pid"), source, number)
        assert qid is not None and docid is not None
        docid_b = id_field(record, ("docid_b",), source, number, required=False)
        item_id = first_field(record, ("item_id",), source, number, required=False)
        unit = (qid, docid, docid_b, item_id)
        if unit in first_line:
            what = ", ".join(str(part) for part in unit if part is not None)
            raise InputError(source, number, f"({what}) is judged twice (first on line {first_line[unit]})")
        first_line[unit] = number
        failed = record.get("result_status", 1) == 0 or record.get("judgment") is None
        label = None if failed else _optional_grade(record, "judgment", source, number)
        prompt = record.get("prompt")
        parsed.records.append(
            JudgmentRecord(
                qid,
                docid,
                label,
                docid_b,
                item_id,
                prediction=_text(record, "prediction"),
                prompt=prompt if isinstance(prompt, list) else None,
                method=_text(record, "method"),
                model=_text(record, "model"),
                backend=_text(record, "backend"),
                error=str(record["error"]) if record.get("error") else None,
                confidence=_optional_confidence(record, source, number),
                expected=_optional_grade(record, "expected", source, number),
                label_probs=_label_probs(record, source, number),
            )
        )
    if not parsed.records:
        raise InputError(source, None, "the file is empty")
    return parsed
