"""The fast path for TREC run and qrels files: DuckDB reads and splits them, and refuses when unsure.

Each line is read as one text column (`read_csv` in one parallel pass over many files) and split
in SQL on runs of spaces and tabs, so space- and tab-separated files, runs of either, leading and
trailing whitespace, CRLF line ends, a byte-order mark and gzip all take the same path. Blank
lines and comment lines (the first field starts with `#`, as trec_eval 10 skips them) give no
row. Whatever DuckDB might read otherwise than the precise parser in `studio.formats.trec` (any
other whitespace `str.split()` cuts on, a number the two would read differently, a bare CR, a
missing column) aborts the statement: the caller gets `FastPathRefused` and hands the file to
the precise parser, which accepts it or names the offending line.
"""

from __future__ import annotations

import gzip
from pathlib import Path

# Columns are read as text and converted only where DuckDB and Python read them alike:
# DuckDB would take a rank of '1.6' for 2 and an '0x1A' score for a number.
NUMBER_PATTERN = r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?(?i:inf|infinity)"
# Every character Python's str.split() separates columns on, but the space and the tab the fast
# path splits on itself.
PYTHON_WHITESPACE = (
    r"[\n\x0b\x0c\r\x1c-\x1f\x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}"
    r"\x{202f}\x{205f}\x{3000}]"
)
# `read_csv` needs a delimiter: the unit separator (chr(31)), one of the characters above. A line
# holding it fails the read (strict mode), as a field holding it would be refused anyway; only
# at the very end of a line is it dropped, where str.split() drops it too.
LINES = (
    "read_csv(?, delim = chr(31), header = false, quote = '', escape = '', auto_detect = false,"
    " strict_mode = true, filename = true, columns = {'line': 'VARCHAR'})"
)


class FastPathRefused(Exception):
    """The bulk reader is not sure of these files; read them with the precise parser."""


def split_lines() -> str:
    """SQL: `(filename, f)` for every line of the files `?` that holds a row, `f` its fields.

    A line splits on single spaces once tabs became spaces; only a line with a run of them, or
    with leading or trailing ones, pays for the regular expression. Blank lines (NULL, or no
    field) and comment lines are left out; everything else, malformed or not, comes through.
    """
    return f"""
        (SELECT filename, f
         FROM (SELECT filename,
                      CASE WHEN list_contains(s, '')
                           THEN string_split_regex(trim(line, ' ' || chr(9)), '[ \\t]+') ELSE s END AS f
               FROM (SELECT filename, line, string_split(replace(line, chr(9), ' '), ' ') AS s
                     FROM {LINES}))
         WHERE f[1] <> '' AND NOT starts_with(f[1], '#'))
    """


def checked(value: str, unsure_when: str) -> str:
    """SQL for `value`, aborting the statement (hence `FastPathRefused`) where `unsure_when` holds.

    `unsure_when` is true, or NULL because a field is missing.
    """
    return (
        f"CASE WHEN coalesce({unsure_when}, true)"
        f" THEN error('the fast path is unsure of this row') ELSE {value} END"
    )


def odd_fields(count: int, exact: bool) -> str:
    """SQL condition: the row has fewer than `count` fields (or other than `count` when `exact`),
    or one of its first `count` holds whitespace other than the space and tab split on.

    Fields after those are never read, so what they hold does not matter.
    """
    joined = " || ".join(f"f[{i}]" for i in range(1, count + 1))
    return f"(len(f) {'<>' if exact else '<'} {count} OR regexp_matches({joined}, '{PYTHON_WHITESPACE}'))"


def odd_integer(column: str) -> str:
    """SQL condition: `column` is not a decimal integer as Python's int reads it (DuckDB would take
    a rank of '1.6' for 2); one beyond 64 bits fails the cast, as the precise parser refuses it."""
    return f"NOT regexp_full_match({column}, '[+-]?[0-9]+')"


def odd_number(column: str) -> str:
    """SQL condition: `column` is not a decimal number (or infinity) as Python's float reads it."""
    return f"NOT regexp_full_match({column}, '{NUMBER_PATTERN}')"


def lone_cr_line_ends(path: Path) -> bool:
    """True when the first line ends in a bare CR, which DuckDB takes for a line break and the
    precise reader refuses (trec_eval would read the whole file as one line)."""
    with path.open("rb") as raw:
        compressed = raw.read(2) == b"\x1f\x8b"
    with (gzip.open(path, "rb") if compressed else path.open("rb")) as stream:
        previous = b""
        while chunk := stream.read(1 << 16):
            chunk = previous + chunk
            cr, lf = chunk.find(b"\r"), chunk.find(b"\n")
            if lf >= 0 and (cr < 0 or lf < cr):
                return False
            if cr >= 0:
                if cr + 1 < len(chunk):
                    return chunk[cr + 1 : cr + 2] != b"\n"
                previous = chunk[cr:]
            else:
                previous = b""
        return previous == b"\r"
