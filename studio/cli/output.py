"""Printing results: stdout carries data only (table, JSON, CSV or TSV); stderr the rest.

A table never drops a column or cuts a value, whatever the width. Piped or redirected (not a
terminal), it is printed at its full width. On a terminal too narrow for it, the widest columns
are narrowed first and their values wrapped onto more lines, but no column gets narrower than its
header; when even the headers do not fit, the table is printed at full width and the terminal
wraps its lines.

Writing stdout can fail: a full disk or a failing device (`> /dev/full`) is the studio's
`OutputError` (one line on stderr, exit 1); a reader that closed the pipe (`| head -1`) raises
BrokenPipeError, which `cli/errors.py` ends quietly, as Unix tools end on SIGPIPE.
"""

from __future__ import annotations

import csv
import errno
import os
import sys
import warnings
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from rich.cells import cell_len
from rich.console import Console
from rich.table import Table
from rich.text import Text

from studio.domain.errors import WRITE_FAILURES, OutputError
from studio.domain.json_text import json_text


class OutputFormat(StrEnum):
    table = "table"
    json = "json"
    csv = "csv"
    tsv = "tsv"


# What numpy warns of in arithmetic (an overflow, an invalid value, a division by zero), and its
# nan-functions over nothing: messages for programmers, about figures the results already show as
# not computed (NaN, JSON null). They never reach the terminal (nor garble the TUI).
ARITHMETIC_WARNINGS = (
    r"(overflow|invalid value|divide by zero|underflow) encountered|Mean of empty slice|Degrees of freedom <= 0"
)


def silence_arithmetic_warnings() -> None:
    """Keep numpy's arithmetic warnings (`ARITHMETIC_WARNINGS`) off stderr for this process."""
    warnings.filterwarnings("ignore", message=ARITHMETIC_WARNINGS, category=RuntimeWarning)


def stderr_console() -> Console:
    return Console(stderr=True, highlight=False, soft_wrap=True)


class _DataConsole(Console):
    """A console on stdout that lets a closed pipe reach `cli/errors.py` (rich would exit 1 itself)."""

    def on_broken_pipe(self) -> None:
        raise BrokenPipeError(errno.EPIPE, os.strerror(errno.EPIPE))


@contextmanager
def stdout_writes() -> Iterator[None]:
    """Writes to stdout, a failing medium reported as the studio's error (a closed pipe passes)."""
    try:
        yield
    except BrokenPipeError:
        raise
    except OSError as error:
        if error.errno not in WRITE_FAILURES:
            raise
        raise OutputError(f"cannot write to stdout: {error.strerror or error}") from error


def flush_stdout() -> None:
    """Push out what stdout still buffers, so that a failure shows now and not at exit."""
    with stdout_writes():
        sys.stdout.flush()


def silence_stdout() -> None:
    """After stdout failed: send what it still buffers to /dev/null, so that Python's flush at exit
    neither fails again nor changes the exit status (as the Python docs advise for SIGPIPE)."""
    try:
        descriptor = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # not a file (a test's capture): nothing buffered
        return
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, descriptor)
    finally:
        os.close(null)


def cell_text(value: Any) -> str:
    """How a value reads in a table or CSV cell."""
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.4f}" if not value.is_integer() else str(int(value))
    if isinstance(value, list | tuple):
        return ", ".join(map(str, value))
    return str(value)


def emit_records(
    records: Sequence[Mapping[str, Any]],
    fmt: OutputFormat,
    *,
    title: str | None = None,
    columns: Sequence[str] | None = None,
) -> None:
    """Print rows of a result in the chosen format (columns default to the first row's keys)."""
    names = list(columns) if columns is not None else (list(records[0]) if records else [])
    with stdout_writes():
        if fmt is OutputFormat.json:
            sys.stdout.write(json_text(list(records), indent=2) + "\n")
        elif fmt in (OutputFormat.csv, OutputFormat.tsv):
            writer = csv.writer(sys.stdout, delimiter="," if fmt is OutputFormat.csv else "\t", lineterminator="\n")
            writer.writerow(names)
            writer.writerows([[cell_text(r.get(n)) for n in names] for r in records])
        else:
            print_table(names, [[cell_text(r.get(n)) for n in names] for r in records], title)


def emit_object(value: Mapping[str, Any], fmt: OutputFormat, *, title: str | None = None) -> None:
    """Print one result object: key/value rows as a table, the object itself as JSON."""
    if fmt is OutputFormat.json:
        with stdout_writes():
            sys.stdout.write(json_text(value, indent=2) + "\n")
    else:
        emit_records([{"key": k, "value": cell_text(v)} for k, v in value.items()], fmt, title=title)


@dataclass(frozen=True)
class Part:
    """A list inside a result, printed as a table of its own (`emit_parts`)."""

    key: str
    title: str
    optional: bool = False  # printed only when it holds rows


def emit_parts(value: Mapping[str, Any], fmt: OutputFormat, *, title: str, parts: Sequence[Part]) -> None:
    """A result with lists inside (a campaign's or an audit's progress): the object whole as JSON;
    otherwise its own fields as one table, then each part as a table of its own."""
    if fmt is OutputFormat.json:
        emit_object(value, fmt)
        return
    inside = {part.key for part in parts}
    emit_object({k: v for k, v in value.items() if k not in inside}, fmt, title=title)
    for part in parts:
        rows = value[part.key]
        if rows or not part.optional:
            emit_records(rows, fmt, title=part.title)


def print_table(names: Sequence[str], rows: Sequence[Sequence[str]], title: str | None = None) -> None:
    """A table on stdout that keeps every column and every value (see the module's docstring)."""
    natural = [max([_text_width(name), *(_text_width(row[i]) for row in rows)]) for i, name in enumerate(names)]
    console = _DataConsole(highlight=False, soft_wrap=False)
    widths = None
    if console.is_terminal:
        widths = fit_widths(natural, [_text_width(name) for name in names], console.width - _frame_width(len(names)))
    if widths is None:
        widths = natural
        console = _DataConsole(highlight=False, soft_wrap=False, width=max(1, sum(natural) + _frame_width(len(names))))
    # A title of several lines (a comparison's frame under it) is printed whole, each line unwrapped:
    # Rich would wrap it to the table's width.
    heading, *under = (title or "").split("\n")
    if under:
        with stdout_writes():
            console.print(Text(heading, style="table.title"), soft_wrap=True)
            for line in under:
                console.print(Text(line, style="dim"), soft_wrap=True)
    # Text, not str: a value such as "[vital]" is data, never console markup.
    table = Table(title=None if under else title, title_justify="left", show_edge=False, padding=(0, 1))
    for name, width in zip(names, widths, strict=True):
        table.add_column(Text(name), width=width, overflow="fold")
    for row in rows:
        table.add_row(*(Text(cell) for cell in row))
    with stdout_writes():
        console.print(table)


def _text_width(text: str) -> int:
    return max((cell_len(line) for line in text.splitlines()), default=0)


def _frame_width(columns: int) -> int:
    """What a table without outer edges adds to its columns: one space each side of a cell, one
    rule between two columns."""
    return 2 * columns + max(columns - 1, 0)


def fit_widths(natural: Sequence[int], floors: Sequence[int], available: int) -> list[int] | None:
    """Column widths that fit `available` cells: the natural ones when they fit, else the widest
    columns narrowed to a common cap but none below its floor (its header), with what is left
    handed back to the narrowed columns; None when even the floors do not fit."""
    if sum(natural) <= available:
        return list(natural)
    if sum(floors) > available:
        return None

    def capped(cap: int) -> list[int]:
        return [min(width, max(floor, cap)) for width, floor in zip(natural, floors, strict=True)]

    low, high = 0, max(natural)  # capped(low) fits (the floors do), capped(high) does not
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (middle, high) if sum(capped(middle)) <= available else (low, middle)
    widths = capped(low)
    spare = available - sum(widths)
    for index, width in enumerate(widths):
        if spare and width < natural[index]:
            widths[index] += 1
            spare -= 1
    return widths


def warn_about_scale(warnings: list[str], clipped: bool) -> None:
    """Say on stderr which label sets hold grades outside the reference's scale (and that they are
    clipped, with --clip)."""
    for warning in warnings:
        text = (
            warning.replace("; --clip compares them clipped into it", "; clipped into it (--clip)")
            if clipped
            else warning
        )
        stderr_console().print(f"warning: {text}", markup=False, highlight=False)
