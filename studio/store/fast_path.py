"""The fast path for TREC run and qrels files: DuckDB reads and splits them, and refuses when unsure.

Each line is read as one text column (`read_csv` in one pass over many files) and split
in SQL on runs of spaces and tabs, so space- and tab-separated files, runs of either, leading and
trailing blanks, CRLF line ends, a byte-order mark and gzip all take the same path. Blank lines
and comment lines (the first field starts with `#`, as trec_eval 10 skips them) give no row.
Whatever DuckDB might read otherwise than the precise parser in `studio.formats.trec` (a number
outside the grammar of `studio.domain.numbers`, an id the precise parser refuses, a bare CR, a
missing column, another tag than the run's) aborts the statement: the caller gets
`FastPathRefused` and hands the file to the precise parser, which accepts it or names the
offending line. Lines are read up to `TREC_LINE_BYTES`, as the precise reader reads them: DuckDB
refuses a longer one, but only when a line end follows it: its parallel reader silently drops a
last line longer than its buffer (32 MB), and even its serial reader returns or drops a last line
without a line end of that size. So a file whose last line is longer than `TREC_LINE_BYTES`
(`check_file`, read from the file's end) goes to the precise parser; files that all fit in one
buffer of the parallel reader (`PARALLEL_BUFFER_BYTES`, decompressed), where no line can outgrow it,
are read in parallel, and the others serially (`parallel = false`), where a long line always
fails the read. Either way a longer line fails the statement, and the file goes to the precise
parser.
Ids and numbers are capped by length as the precise reader caps them (`MAX_ID_BYTES`,
`MAX_NUMBER_LENGTH`). A path is read as that one file, never as a pattern: DuckDB expands `*`,
`?` and `[…]` in the paths it is given, so a path holding such a character goes to the precise
parser.
"""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import NamedTuple

from studio.domain.names import MAX_ID_BYTES
from studio.domain.numbers import DECIMAL_PATTERN, INTEGER_PATTERN, MAX_NUMBER_LENGTH
from studio.formats.text_input import TREC_LINE_BYTES

# What a field may hold, as regular expressions (RE2) over the text. An id (qid, docid) holds no
# control character and none of Python's whitespace (`studio.domain.names.id_problem`; RE2 knows
# the control characters, the rest are listed). A column the readers never look at holds
# anything but the blanks that separate columns. A rank or score is converted only when it is
# written as `studio.domain.numbers` reads it: DuckDB would take a rank of '1.6' for 2, and a
# score of '0x1A', '1_0' or 'nan' for a number.
ID = r"[^\p{Cc} \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}]+"
UNREAD = r"[^ \t]+"
INTEGER = INTEGER_PATTERN
NUMBER = DECIMAL_PATTERN
# `read_csv` needs a delimiter: the unit separator (chr(31)). A line holding it fails the read
# (strict mode), and so does one ending in it: DuckDB would drop a delimiter at the end of a line
# silently, but with a `nullstr` no field can equal (a line break) it reads it as an empty
# second column and refuses the line. The precise parser reads such a line; the fast path never.
# DuckDB's parallel reader drops, without a word, a last line longer than its buffer: set here,
# so that a file smaller than it is known to hold no such line.
PARALLEL_BUFFER_BYTES = 32 << 20


def lines(*, parallel: bool) -> str:
    """SQL: `read_csv` of the files `?`, one row (`filename`, `line`) per line."""
    return (
        "read_csv(?, delim = chr(31), header = false, quote = '', escape = '', auto_detect = false,"
        " strict_mode = true, nullstr = chr(10), filename = true, columns = {'line': 'VARCHAR'},"
        f" buffer_size = {PARALLEL_BUFFER_BYTES}, max_line_size = {TREC_LINE_BYTES}"
        f"{'' if parallel else ', parallel = false'})"
    )


# Characters DuckDB reads as a pattern in a path (`{` too, for the versions that expand braces),
# and the escape character of patterns.
PATTERN_CHARACTERS = frozenset("*?[]{}\\")


class FastPathRefused(Exception):
    """The bulk reader is not sure of these files; read them with the precise parser."""


def split_lines(*, parallel: bool) -> str:
    """SQL: `(filename, line, f)` for every line of the files `?` that holds a row, `f` its fields
    (`parallel`: the files all fit in the parallel reader's buffer, `check_file`).

    Many real files end every line in one blank: that one is cut off (cheaply: `trim` with a set
    of characters walks the whole line); a line starting with blanks, rarer, is trimmed whole.
    The line then splits on its tabs when it has some, on its spaces otherwise; only a line
    holding both, or a run of either (several blanks at its end too), pays for the regular
    expression. Blank lines (NULL, or no field) and comment lines are left out first, on the
    line as read (the filter would otherwise compute the split again); everything else,
    malformed or not, comes through.
    """
    return f"""
        (SELECT filename, line,
                CASE WHEN list_contains(s, '') OR (tabbed AND contains(trimmed, ' '))
                     THEN string_split_regex(rtrim(trimmed, ' ' || chr(9)), '[ \\t]+') ELSE s END AS f
         FROM (SELECT filename, line, trimmed, tabbed,
                      string_split(trimmed, CASE WHEN tabbed THEN chr(9) ELSE ' ' END) AS s
               FROM (SELECT filename, line, trimmed, contains(trimmed, chr(9)) AS tabbed
                     FROM (SELECT filename, line,
                                  CASE WHEN starts_with(line, ' ') OR starts_with(line, chr(9))
                                       THEN trim(line, ' ' || chr(9))
                                       WHEN ends_with(line, ' ') OR ends_with(line, chr(9)) THEN left(line, -1)
                                       ELSE line END AS trimmed
                           FROM {lines(parallel=parallel)}
                           WHERE NOT CASE WHEN starts_with(line, ' ') OR starts_with(line, chr(9))
                                          THEN regexp_full_match(line, '[ \\t]*(?:#.*)?')
                                          ELSE line = '' OR starts_with(line, '#') END))))
    """


def line_pattern(*fields: str, rest: bool) -> str:
    """A regular expression a line matches in full when it holds exactly `fields` (patterns)
    between spaces and tabs, and with `rest` anything after them (columns never read)."""
    return r"[ \t]*" + r"[ \t]+".join(fields) + (r"(?:[ \t].*)?" if rest else r"[ \t]*")


RUN_LINE = line_pattern(ID, UNREAD, ID, INTEGER, NUMBER, UNREAD, rest=True)  # qid Q0 docid rank score tag …
# The same check split in two for the bulk of run lines, whose ids repeat far more than their
# numbers: `split_lines` cuts a line into its maximal runs of characters other than spaces and
# tabs, so a line matches RUN_LINE exactly when it has six fields or more, its rank and score
# match INTEGER and NUMBER (checked on every line: they hardly repeat) and its qid and docid
# match ID (checked once per distinct (qid, docid) pair, `odd_ids`). Two short expressions and one
# per pair cost less than one over every whole line.
RUN_FIELDS = 6
QRELS_LINE = line_pattern(ID, UNREAD, ID, NUMBER, rest=False)  # qid iter docid grade


def literal_path(path: Path) -> str:
    """The path to give DuckDB for `path`: absolute (DuckDB would read a leading `~` as the home
    folder); refused when DuckDB would read it as a pattern."""
    text = str(path.absolute())
    if PATTERN_CHARACTERS.intersection(text):
        raise FastPathRefused(f"{text} holds a character DuckDB reads as a pattern")
    return text


def odd_line(pattern: str) -> str:
    """SQL condition: the line is not one the fast path reads exactly as the precise parser (one
    regular expression over the whole line, cheaper than a check per field)."""
    return f"NOT regexp_full_match(line, '{pattern}')"


def odd_run_fields(fields: str) -> str:
    """SQL condition on a run line's fields (the list `fields`, as `split_lines` gives them): it
    has too few of them, or a rank or score the precise parser reads otherwise (its ids are for
    `odd_ids`)."""
    return (
        f"len({fields}) < {RUN_FIELDS} OR NOT regexp_full_match({fields}[4], '{INTEGER}')"
        f" OR NOT regexp_full_match({fields}[5], '{NUMBER}')"
        f" OR {too_long_number(f'{fields}[4]')} OR {too_long_number(f'{fields}[5]')}"
    )


def too_long_number(field: str) -> str:
    """SQL condition: the field is longer than the precise reader reads a number (in bytes: a
    number longer in bytes than in characters is no ASCII number anyway)."""
    return f"strlen({field}) > {MAX_NUMBER_LENGTH}"


def too_long_id(field: str) -> str:
    """SQL condition: the field is longer in UTF-8 bytes than the precise reader reads an id."""
    return f"strlen({field}) > {MAX_ID_BYTES}"


def odd_ids(*columns: str) -> str:
    """SQL condition: one of the id `columns` holds something the precise parser refuses as an id."""
    return " OR ".join(f"NOT regexp_full_match({column}, '{ID}') OR {too_long_id(column)}" for column in columns)


def checked(value: str, unsure_when: str) -> str:
    """SQL for `value`, aborting the statement (hence `FastPathRefused`) where `unsure_when` holds.

    `unsure_when` is true, or NULL because a field is missing.
    """
    return f"CASE WHEN coalesce({unsure_when}, true) THEN error('the fast path is unsure of this row') ELSE {value} END"


class FileCheck(NamedTuple):
    """What the fast path needs to know of a file before DuckDB reads it."""

    unsure: str | None  # why the fast path cannot read it as the precise parser would (None: it can)
    size: int  # bytes, decompressed: under PARALLEL_BUFFER_BYTES it may be read in parallel


def check_file(path: Path) -> FileCheck:
    """Whether the fast path can read the (possibly gzipped) file as the precise parser would,
    from its first and last bytes, and its size. DuckDB takes a bare CR ending the first line for a
    line break (the precise reader refuses it: trec_eval would read the whole file as one line),
    and mishandles a last line longer than `TREC_LINE_BYTES` (the module's docstring)."""
    if lone_cr_line_ends(path):
        return FileCheck("lines end in a bare CR", 0)
    last, size = file_tail(path)
    if last > TREC_LINE_BYTES:
        return FileCheck("the last line is longer than the precise reader reads", size)
    return FileCheck(None, size)


def file_tail(path: Path) -> tuple[int, int]:
    """How many bytes follow the last LF of the file (at least up to `TREC_LINE_BYTES + 1`), and
    its size, both decompressed. A plain file is read from its end; a gzip must be decompressed, a
    chunk at a time, keeping no more than the counts."""
    with path.open("rb") as raw:
        if raw.read(2) != b"\x1f\x8b":
            size = raw.seek(0, 2)
            start = max(0, size - TREC_LINE_BYTES - 1)
            raw.seek(start)
            tail = raw.read()
            return (len(tail) - tail.rfind(b"\n") - 1 if b"\n" in tail or start == 0 else len(tail)), size
    count = size = 0
    with gzip.open(path, "rb") as stream:
        while chunk := stream.read(1 << 20):
            size += len(chunk)
            end = chunk.rfind(b"\n")
            count = count + len(chunk) if end < 0 else len(chunk) - end - 1
    return count, size


def parallel_reads(checks: list[FileCheck]) -> bool:
    """Whether files so checked may be read by DuckDB's parallel reader (each fits its buffer)."""
    return all(check.size < PARALLEL_BUFFER_BYTES for check in checks)


def lone_cr_line_ends(path: Path) -> bool:
    """True when the first line ends in a bare CR."""
    with path.open("rb") as raw:
        compressed = raw.read(2) == b"\x1f\x8b"
    with gzip.open(path, "rb") if compressed else path.open("rb") as stream:
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
