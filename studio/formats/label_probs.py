"""Per-pair label probabilities as CSV: `topic_id,doc_id,prob_0,…,prob_k` (a header required).

The topic column may be named `topic_id`, `qid` or `query_id`, the document's `doc_id`, `docid` or
`pid`; the probabilities are `prob_G` for integer grades G (`prob_0`…`prob_3`), or `prob_yes` and
`prob_no` as LARA publishes binary ones (yes is grade 1, no grade 0). A tab-separated file with the
same header is read too. Any other column is refused, as is a pair listed twice.

Each probability is a number as trec_eval reads numbers (`studio.domain.numbers`) within [0, 1],
and a row's probabilities sum to 1 within 1e-6: a row that does not is refused, never normalised,
since a distribution that does not add up says the file is not what it claims. A pair's label is
its most probable grade; equally probable grades give the lowest of them (the cautious label).
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Sequence
from dataclasses import dataclass

from studio.domain.errors import InputError
from studio.domain.numbers import read_decimal, read_integer, why_not_decimal
from studio.formats.checks import checked_id

TOPIC_COLUMNS = ("topic_id", "qid", "query_id")
DOC_COLUMNS = ("doc_id", "docid", "pid")
BINARY_COLUMNS = {"prob_no": 0, "prob_yes": 1}
SUM_TOLERANCE = 1e-6


@dataclass(frozen=True, slots=True)
class PairProbs:
    """A pair's label distribution: {grade: probability}."""

    qid: str
    docid: str
    probs: dict[int, float]

    @property
    def label(self) -> int:
        """The most probable grade; the lowest of equally probable ones."""
        return min(self.probs, key=lambda grade: (-self.probs[grade], grade))

    @property
    def expected(self) -> float:
        """The expected grade Σ g·p(g)."""
        return math.fsum(grade * p for grade, p in self.probs.items())


def _grade_of(column: str) -> int | None:
    if column in BINARY_COLUMNS:
        return BINARY_COLUMNS[column]
    if column.startswith("prob_"):
        grade = read_integer(column.removeprefix("prob_"))
        return grade if grade is not None and grade >= 0 else None
    return None


def _header(cells: list[str], source: str) -> tuple[int, int, dict[int, int]]:
    """(topic column, document column, {column: grade}) of a header line."""
    topic = next((i for i, c in enumerate(cells) if c in TOPIC_COLUMNS), None)
    doc = next((i for i, c in enumerate(cells) if c in DOC_COLUMNS), None)
    if topic is None or doc is None:
        raise InputError(
            source,
            1,
            f"the header needs a topic column ({', '.join(TOPIC_COLUMNS)}) and a document column"
            f" ({', '.join(DOC_COLUMNS)})",
        )
    grades: dict[int, int] = {}
    for index, cell in enumerate(cells):
        if index in (topic, doc):
            continue
        grade = _grade_of(cell)
        if grade is None:
            raise InputError(source, 1, f"unknown column {cell!r} (expected prob_0…prob_k, or prob_yes and prob_no)")
        if grade in grades.values():
            raise InputError(source, 1, f"column {cell!r} gives grade {grade} a second probability")
        grades[index] = grade
    named = {cells[i] for i in grades}
    if named & set(BINARY_COLUMNS) and (named - set(BINARY_COLUMNS) or len(named) != 2):
        raise InputError(source, 1, "prob_yes and prob_no go together, and without prob_0…prob_k")
    if len(grades) < 2:
        raise InputError(source, 1, "a distribution needs at least two probability columns")
    return topic, doc, grades


def parse_label_probs(text: str, source: str) -> list[PairProbs]:
    """Every pair's distribution; the refusals of the module's docstring with file and line."""
    lines = [line.rstrip("\r") for line in text.split("\n")]
    delimiter = "\t" if "\t" in lines[0] and "," not in lines[0] else ","
    reader = csv.reader(io.StringIO("\n".join(lines)), delimiter=delimiter)
    topic, doc, grades = _header([cell.strip() for cell in next(reader, [])], source)
    rows: list[PairProbs] = []
    first: dict[tuple[str, str], int] = {}
    for cells in reader:
        number = reader.line_num
        if not any(cell.strip() for cell in cells):
            continue
        if len(cells) != len(grades) + 2:
            raise InputError(source, number, f"expected {len(grades) + 2} fields as in the header, found {len(cells)}")
        qid = checked_id(cells[topic], "topic", source, number)
        docid = checked_id(cells[doc], "docid", source, number)
        if (qid, docid) in first:
            raise InputError(source, number, f"pair ({qid}, {docid}) listed twice (first on line {first[qid, docid]})")
        first[qid, docid] = number
        probs: dict[int, float] = {}
        for index, grade in sorted(grades.items(), key=lambda item: item[1]):
            value = read_decimal(cells[index])
            if value is None:
                raise InputError(source, number, f"probability {cells[index]!r} {why_not_decimal(cells[index])}")
            if not 0.0 <= value <= 1.0:
                raise InputError(source, number, f"probability {cells[index]} is outside [0, 1]")
            probs[grade] = value
        total = math.fsum(probs.values())
        if abs(total - 1.0) > SUM_TOLERANCE:
            raise InputError(source, number, f"the probabilities sum to {total!r}, not 1 (within {SUM_TOLERANCE:g})")
        rows.append(PairProbs(qid, docid, probs))
    if not rows:
        raise InputError(source, None, "the file holds no pairs")
    return rows


def write_label_probs(rows: Sequence[PairProbs]) -> str:
    """The CSV layout above, `prob_0`…`prob_k` over every grade the rows give (0 where a row gives
    none), each probability with every digit (it reads back to the same float)."""
    grades = sorted({grade for row in rows for grade in row.probs})
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["topic_id", "doc_id", *(f"prob_{grade}" for grade in grades)])
    for row in rows:
        writer.writerow([row.qid, row.docid, *(repr(float(row.probs.get(grade, 0.0))) for grade in grades)])
    return out.getvalue()
