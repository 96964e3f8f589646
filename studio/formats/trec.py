"""TREC run and qrels files: the precise, line-by-line reader and the writers.

This reader is the authority on what the formats mean; the bulk loader in `studio.store`
is a fast path that must agree with it and hands any file it is unsure of back here.
Rules follow trec_eval: columns separated by any whitespace (spaces, tabs, runs of them),
columns after the sixth of a run ignored (trec_eval reads them as junk), exactly four in
qrels (trec_eval refuses more), lines whose first non-blank character is `#` skipped as
comments (trec_eval 10), blank lines skipped, a docid at most once per topic of a run, a
(qid, docid) pair at most once in qrels. Lines end in LF or CRLF; a CR anywhere else is
refused (trec_eval would read a file of bare-CR line ends as one line).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TextIO

from studio.domain.choices import OnDuplicateGrade
from studio.domain.errors import InputError
from studio.domain.models import QrelsRow, RunRow
from studio.formats.text_input import numbered_lines

RUN_COLUMNS = 6  # qid Q0 docid rank score tag
QRELS_COLUMNS = 4  # qid iter docid grade


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


def _rows(text: str, source: str, columns: int, what: str, *, extra: bool) -> Iterator[tuple[int, list[str]]]:
    """(line number, the first `columns` fields) of every line holding a row; with `extra`,
    fields after those are allowed and dropped. A file without rows is refused as empty."""
    comments = rows = 0
    for number, line in numbered_lines(text):
        if "\r" in line:
            raise InputError(source, number, "a carriage return (CR) inside the line: lines must end in LF or CRLF")
        fields = line.split()
        if fields[0].startswith("#"):
            comments += 1
            continue
        if len(fields) < columns or (len(fields) > columns and not extra):
            expected = f"at least {columns}" if extra else str(columns)
            raise InputError(source, number, f"expected {expected} columns ({what}), found {len(fields)}")
        rows += 1
        yield number, fields[:columns]
    if not rows:
        raise InputError(source, None, "the file is empty" + (" (nothing but comments)" if comments else ""))


def parse_run(text: str, source: str) -> ParsedRun:
    """Parse a TREC run (`qid Q0 docid rank score tag [ignored …]`)."""
    rows: list[RunRow] = []
    seen: dict[tuple[str, str], int] = {}
    tags: dict[str, None] = {}
    for number, fields in _rows(text, source, RUN_COLUMNS, "qid Q0 docid rank score tag", extra=True):
        qid, _, docid, rank_text, score_text, tag = fields
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
    first_tag, *others = tags
    return ParsedRun(first_tag, rows, frozenset(others))


def parse_qrels(text: str, source: str, on_duplicate: OnDuplicateGrade = OnDuplicateGrade.ERROR) -> ParsedQrels:
    """Parse TREC qrels (`qid iter docid grade`); grades may be fractional."""
    grades: dict[tuple[str, str], tuple[float, int]] = {}
    repeated = 0
    for number, fields in _rows(text, source, QRELS_COLUMNS, "qid iter docid grade", extra=False):
        qid, _, docid, grade_text = fields
        grade = parse_number(grade_text)
        if grade is None or math.isinf(grade):
            raise InputError(source, number, f"grade {grade_text!r} is not a number")
        key = (qid, docid)
        if key in grades:
            repeated += 1
            earlier, first_line = grades[key]
            if earlier != grade and on_duplicate is OnDuplicateGrade.ERROR:
                raise InputError(
                    source,
                    number,
                    f"({qid}, {docid}) is graded {grade_text} here and {earlier:g} on line"
                    f" {first_line}; choose with --on-duplicate first|last|highest",
                )
            if on_duplicate is OnDuplicateGrade.LAST or (on_duplicate is OnDuplicateGrade.HIGHEST and grade > earlier):
                grades[key] = (grade, first_line)
            continue
        grades[key] = (grade, number)
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
