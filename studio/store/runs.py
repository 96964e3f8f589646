"""Runs in the project file, and the fast bulk path that reads TREC run files with DuckDB.

The fast path reads many files in one `read_csv` pass. It accepts only files that are
unambiguous to it (single-space columns, numbers DuckDB and Python read alike, no repeated
docid); anything else raises `FastPathRefused`, and the caller falls back to the precise
reader in `studio.formats.trec`, which then names the offending line.
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Sequence
from pathlib import Path

import duckdb

from studio.domain.models import RunRow
from studio.store.database import Connection
from studio.store.rankings import delete_rankings, rank_staged_runs

RUN_CSV_COLUMNS = (
    "{'qid': 'VARCHAR', 'q0': 'VARCHAR', 'docid': 'VARCHAR', 'rank': 'VARCHAR',"
    " 'score': 'VARCHAR', 'tag': 'VARCHAR'}"
)

# Columns are read as text and converted only where DuckDB and Python read them alike:
# DuckDB would take a rank of '1.6' for 2 and split no field on a tab or a no-break space.
NUMBER_PATTERN = r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?(?i:inf|infinity)"
# Every character Python's str.split() separates columns on, except the space DuckDB splits on.
PYTHON_WHITESPACE = (
    r"[\t\n\x0b\x0c\r\x1c-\x1f\x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}"
    r"\x{202f}\x{205f}\x{3000}]"
)


class FastPathRefused(Exception):
    """The bulk reader is not sure of these files; read them with the precise parser."""


def checked(value: str, unsure_when: str) -> str:
    """SQL for `value`, aborting the statement (hence `FastPathRefused`) where `unsure_when` holds.

    `unsure_when` is true, or NULL because a field is missing (an empty column).
    """
    return (
        f"CASE WHEN coalesce({unsure_when}, true)"
        f" THEN error('the fast path is unsure of this row') ELSE {value} END"
    )


def odd_text(*columns: str) -> str:
    """SQL condition: the columns hold whitespace other than the space DuckDB splits on."""
    return f"regexp_matches({' || '.join(columns)}, '{PYTHON_WHITESPACE}')"


def odd_integer(column: str) -> str:
    """SQL condition: DuckDB would read the integer `column` otherwise than it is written."""
    return f"CAST(CAST({column} AS BIGINT) AS VARCHAR) <> {column}"


def odd_number(column: str) -> str:
    """SQL condition: `column` is not a decimal number (or infinity) as Python's float reads it."""
    return f"NOT regexp_full_match({column}, '{NUMBER_PATTERN}')"


def lone_cr_line_ends(path: Path) -> bool:
    """True when the first line ends in a bare CR, which DuckDB takes for a line break and
    the precise reader (like trec_eval) does not."""
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


def run_names(con: Connection) -> set[str]:
    return {name for (name,) in con.execute("SELECT name FROM runs").fetchall()}


def delete_run(con: Connection, name: str) -> None:
    row = con.execute("SELECT run_id FROM runs WHERE name = ?", [name]).fetchone()
    if row is not None:
        delete_rankings(con, row[0])
        con.execute("DELETE FROM runs WHERE run_id = ?", [row[0]])


def add_run(con: Connection, name: str, source_file: str, batch_id: int) -> int:
    row = con.execute(
        "INSERT INTO runs (run_id, name, source_file, batch_id)"
        " VALUES (nextval('run_ids'), ?, ?, ?) RETURNING run_id",
        [name, source_file, batch_id],
    ).fetchone()
    assert row is not None
    return int(row[0])


def stage_run_files(con: Connection, files: Sequence[tuple[int, Path]]) -> None:
    """Read (file_index, path) pairs into the temporary staging table in one pass.

    Runs outside any transaction: DuckDB aborts a transaction on the first failed
    statement, and a refused fast path must not cost the import its transaction.
    Refuses (leaving the staging table empty of these files) when unsure.
    """
    if not files:
        return
    paths = [str(path) for _, path in files]
    mapping = ", ".join(f"({index}, ?)" for index, _ in files)
    indexes = [index for index, _ in files]
    try:
        if any(lone_cr_line_ends(path) for _, path in files):
            raise FastPathRefused("lines end in a bare CR")
        con.execute(
            f"""
            INSERT INTO staged_run_rows
            SELECT m.file_index,
                   {checked("r.qid", odd_text("r.qid", "r.q0", "r.docid", "r.tag"))},
                   r.docid,
                   {checked("CAST(r.rank AS BIGINT)", odd_integer("r.rank"))},
                   {checked("CAST(r.score AS DOUBLE)", odd_number("r.score"))}
            FROM read_csv(?, delim = ' ', header = false, quote = '', escape = '',
                          auto_detect = false, strict_mode = true, filename = true,
                          columns = {RUN_CSV_COLUMNS}) AS r
            JOIN (VALUES {mapping}) AS m(file_index, filename) USING (filename)
            """,
            [paths, *paths],
        )
    except (duckdb.Error, OSError, EOFError, zlib.error) as error:
        raise FastPathRefused(str(error)) from error
    problem = con.execute(
        """
        SELECT 1 FROM staged_run_rows
        WHERE list_contains(?, file_index) AND isnan(score)
        UNION ALL
        (SELECT 1 FROM staged_run_rows WHERE list_contains(?, file_index)
         GROUP BY file_index, qid, docid HAVING count(*) > 1 LIMIT 1)
        UNION ALL
        SELECT 1 FROM unnest(?::INTEGER[]) AS f(file_index)
        WHERE NOT EXISTS (SELECT 1 FROM staged_run_rows s WHERE s.file_index = f.file_index)
        LIMIT 1
        """,
        [indexes, indexes, indexes],
    ).fetchone()
    if problem is not None:
        con.execute("DELETE FROM staged_run_rows WHERE list_contains(?, file_index)", [indexes])
        raise FastPathRefused("a NaN score, a docid ranked twice or an empty file")


def create_run_staging(con: Connection) -> None:
    con.execute(
        "CREATE OR REPLACE TEMP TABLE staged_run_rows ("
        " file_index INTEGER, qid VARCHAR, docid VARCHAR, rank BIGINT, score DOUBLE)"
    )


def drop_run_staging(con: Connection) -> None:
    con.execute("DROP TABLE IF EXISTS staged_run_rows")


def stage_run_rows(con: Connection, file_index: int, rows: Sequence[RunRow]) -> None:
    """Rows from the precise parser, moved in as column lists (one statement, not one per row)."""
    con.execute(
        "INSERT INTO staged_run_rows SELECT ?, unnest(?), unnest(?), unnest(?), unnest(?)",
        [
            file_index,
            [r.qid for r in rows],
            [r.docid for r in rows],
            [r.rank for r in rows],
            [r.score for r in rows],
        ],
    )


def commit_staged_runs(con: Connection, run_ids: Sequence[tuple[int, int]]) -> None:
    """Store the staged rows as the runs' rankings, file index -> run id (`store.rankings`)."""
    rank_staged_runs(con, run_ids)
