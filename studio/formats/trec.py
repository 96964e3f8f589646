"""TREC run and qrels files: the precise, line-by-line reader and the writers.

This reader is the authority on what the formats mean; the bulk loader in `studio.store`
is a fast path that must agree with it and hands any file it is unsure of back here.
Rules follow trec_eval: whitespace-separated columns, a docid at most once per topic
of a run, a (qid, docid) pair at most once in qrels.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import TextIO

from studio.domain.errors import InputError
from studio.domain.models import QrelsRow, RunRow
from studio.formats.text_input import numbered_lines

RUN_COLUMNS = 6  # qid Q0 docid rank score tag
QRELS_COLUMNS = 4  # qid iter docid grade


class OnDuplicate(StrEnum):
    """What to do with a qrels pair listed twice with different grades."""

    ERROR = "error"
    FIRST = "first"
    LAST = "last"


@dataclass(frozen=True)
class ParsedRun:
    tag: str
    rows: list[RunRow]
    other_tags: frozenset[str]  # tags other than the first one, when a file mixes them


@dataclass(frozen=True)
class ParsedQrels:
    rows: list[QrelsRow]
    repeated_pairs: int  # pairs listed more than once (same grade, or resolved by policy)


def parse_number(text: str) -> float | None:
    """A finite or infinite float as trec_eval's atof would read a well-formed one; NaN refused."""
    try:
        value = float(text)
    except ValueError:
        return None
    return None if math.isnan(value) else value


def parse_integer(text: str) -> int | None:
    try:
        return int(text)
    except ValueError:
        return None


def _fields(source: str, number: int, line: str, expected: int, what: str) -> list[str]:
    fields = line.split()
    if len(fields) != expected:
        raise InputError(
            source, number, f"expected {expected} columns ({what}), found {len(fields)}"
        )
    return fields


def parse_run(text: str, source: str) -> ParsedRun:
    """Parse a TREC run (`qid Q0 docid rank score tag`)."""
    rows: list[RunRow] = []
    seen: dict[tuple[str, str], int] = {}
    tags: dict[str, None] = {}
    for number, line in numbered_lines(text):
        qid, _, docid, rank_text, score_text, tag = _fields(
            source, number, line, RUN_COLUMNS, "qid Q0 docid rank score tag"
        )
        rank = parse_integer(rank_text)
        if rank is None:
            raise InputError(source, number, f"rank {rank_text!r} is not an integer")
        if not -(2**63) <= rank < 2**63:
            raise InputError(source, number, f"rank {rank_text!r} is out of range")
        score = parse_number(score_text)
        if score is None:
            raise InputError(source, number, f"score {score_text!r} is not a number")
        first = seen.setdefault((qid, docid), number)
        if first != number:
            raise InputError(
                source,
                number,
                f"docid {docid!r} is ranked twice for topic {qid!r} (first on line {first});"
                " trec_eval refuses such runs",
            )
        tags.setdefault(tag)
        rows.append(RunRow(qid, docid, rank, score))
    if not rows:
        raise InputError(source, None, "the file is empty")
    first_tag, *others = tags
    return ParsedRun(first_tag, rows, frozenset(others))


def parse_qrels(text: str, source: str, on_duplicate: OnDuplicate = OnDuplicate.ERROR) -> ParsedQrels:
    """Parse TREC qrels (`qid iter docid grade`); grades may be fractional."""
    grades: dict[tuple[str, str], tuple[float, int]] = {}
    repeated = 0
    for number, line in numbered_lines(text):
        qid, _, docid, grade_text = _fields(
            source, number, line, QRELS_COLUMNS, "qid iter docid grade"
        )
        grade = parse_number(grade_text)
        if grade is None or math.isinf(grade):
            raise InputError(source, number, f"grade {grade_text!r} is not a number")
        key = (qid, docid)
        if key in grades:
            repeated += 1
            earlier, first_line = grades[key]
            if earlier != grade and on_duplicate is OnDuplicate.ERROR:
                raise InputError(
                    source,
                    number,
                    f"({qid}, {docid}) is graded {grade_text} here and {earlier:g} on line"
                    f" {first_line}; choose with --on-duplicate first|last",
                )
            if on_duplicate is OnDuplicate.LAST:
                grades[key] = (grade, first_line)
            continue
        grades[key] = (grade, number)
    if not grades:
        raise InputError(source, None, "the file is empty")
    rows = [QrelsRow(qid, docid, grade) for (qid, docid), (grade, _) in grades.items()]
    return ParsedQrels(rows, repeated)


def format_grade(grade: float) -> str:
    """Integers as integers (trec_eval reads grades with atoi), fractions as shortest floats."""
    return str(int(grade)) if float(grade).is_integer() else repr(float(grade))


def write_qrels(rows: Iterable[QrelsRow], out: TextIO) -> None:
    for row in rows:
        out.write(f"{row.qid} 0 {row.docid} {format_grade(row.grade)}\n")


def write_run(rows: Iterable[RunRow], tag: str, out: TextIO) -> None:
    for row in rows:
        out.write(f"{row.qid} Q0 {row.docid} {row.rank} {row.score!r} {tag}\n")
