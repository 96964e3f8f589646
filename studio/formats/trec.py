"""TREC run and qrels files: the precise, line-by-line reader and the writers.

This reader is the authority on what the formats mean; the bulk loader in `studio.store`
is a fast path that must agree with it and hands any file it is unsure of back here.
Rules follow trec_eval: columns separated by ASCII blanks (spaces, tabs, runs of them; never a
no-break space or any other character, which stays part of its column), columns after the sixth
of a run ignored (trec_eval reads them as junk), exactly four in qrels (trec_eval refuses more),
lines whose first column starts with `#` skipped as comments (trec_eval 10), blank lines
skipped, a docid at most once per topic of a run, a (qid, docid) pair at most once in qrels.
Numbers are read as trec_eval reads them (`studio.domain.numbers`: ASCII decimal, finite), qids
and docids are checked as ids (`studio.domain.names`). A run file holds one run: its tag
column names it, and a line with another tag is refused unless the caller names the run itself.
Lines end in LF or CRLF; a CR anywhere else is refused (trec_eval would read a file of bare-CR
line ends as one line). Files are read line by line (`studio.formats.text_input.read_lines`, with
`TREC_LINE_BYTES` as the longest line); ids are capped as ids are everywhere, and numbers as
numbers are (`studio.domain.numbers.MAX_NUMBER_LENGTH`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TextIO

from studio.domain.choices import OnDuplicateGrade
from studio.domain.errors import InputError, quoted
from studio.domain.models import QrelsRow, RunRow
from studio.domain.numbers import (
    read_decimal,
    read_grade,
    read_integer,
    why_not_decimal,
    why_not_grade,
    why_not_integer,
)
from studio.formats.checks import checked_id
from studio.formats.text_input import Text

RUN_COLUMNS = 6  # qid Q0 docid rank score tag
QRELS_COLUMNS = 4  # qid iter docid grade


@dataclass(frozen=True)
class ParsedRun:
    tag: str  # the tag of the first row
    rows: list[RunRow]
    other_tags: frozenset[str]  # tags other than the first one, when the caller let the file mix them


@dataclass(frozen=True)
class ParsedQrels:
    rows: list[QrelsRow]
    repeated_pairs: int  # pairs listed more than once (same grade, or resolved by policy)


def split_columns(line: str) -> list[str]:
    """The columns of a line, split on runs of spaces and tabs (and on nothing else)."""
    columns = line.replace("\t", " ").split(" ")
    return [column for column in columns if column] if "" in columns else columns


def trec_lines(text: Text) -> Iterator[tuple[int, list[str]]]:
    """(line number, columns) of every line holding a column, comment lines included. A line end
    is LF or CRLF; the CRs before it are dropped."""
    lines: Iterable[tuple[int, str]] = enumerate(text.split("\n"), start=1) if isinstance(text, str) else text
    for number, line in lines:
        columns = split_columns(line.rstrip("\r"))
        if columns:
            yield number, columns


def _rows(text: Text, source: str, columns: int, what: str, *, extra: bool) -> Iterator[tuple[int, list[str]]]:
    """(line number, the first `columns` fields) of every line holding a row; with `extra`,
    fields after those are allowed and dropped. A file without rows is refused as empty."""
    comments = rows = 0
    for number, fields in trec_lines(text):
        if any("\r" in field for field in fields):
            raise InputError(source, number, "a carriage return (CR) inside the line: lines must end in LF or CRLF")
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


def _check_ids(qid: str, docid: str, source: str, line: int) -> None:
    checked_id(qid, "qid", source, line)
    checked_id(docid, "docid", source, line)


def parse_run(text: Text, source: str, *, mixed_tags: bool = False) -> ParsedRun:
    """Parse a TREC run (`qid Q0 docid rank score tag [ignored …]`). A line whose tag differs
    from the first row's is refused unless `mixed_tags` (the caller names the run itself)."""
    rows: list[RunRow] = []
    seen: dict[tuple[str, str], int] = {}
    tags: dict[str, int] = {}
    for number, fields in _rows(text, source, RUN_COLUMNS, "qid Q0 docid rank score tag", extra=True):
        qid, _, docid, rank_text, score_text, tag = fields
        _check_ids(qid, docid, source, number)
        rank = read_integer(rank_text)
        if rank is None:
            raise InputError(source, number, f"rank {quoted(rank_text)} {why_not_integer(rank_text)}")
        score = read_decimal(score_text)
        if score is None:
            raise InputError(source, number, f"score {quoted(score_text)} {why_not_decimal(score_text)}")
        first = seen.setdefault((qid, docid), number)
        if first != number:
            raise InputError(
                source,
                number,
                f"docid {docid!r} is ranked twice for topic {qid!r} (first on line {first});"
                " trec_eval refuses such runs",
            )
        if tags.setdefault(tag, number) == number and len(tags) > 1 and not mixed_tags:
            first_tag, first_line = next(iter(tags.items()))
            raise InputError(
                source,
                number,
                f"tag {quoted(tag)} differs from the tag {quoted(first_tag)} of line {first_line}:"
                " a run file holds one run"
                " (give --name to import the file as one run under that name)",
            )
        rows.append(RunRow(qid, docid, rank, score))
    first_tag, *others = tags
    return ParsedRun(first_tag, rows, frozenset(others))


def parse_qrels(text: Text, source: str, on_duplicate: OnDuplicateGrade = OnDuplicateGrade.ERROR) -> ParsedQrels:
    """Parse TREC qrels (`qid iter docid grade`); grades may be fractional."""
    grades: dict[tuple[str, str], tuple[float, int]] = {}
    repeated = 0
    for number, fields in _rows(text, source, QRELS_COLUMNS, "qid iter docid grade", extra=False):
        qid, _, docid, grade_text = fields
        _check_ids(qid, docid, source, number)
        grade = read_grade(grade_text)
        if grade is None:
            raise InputError(source, number, f"grade {quoted(grade_text)} {why_not_grade(grade_text)}")
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
