"""Runs in the project file, and the fast bulk path that reads TREC run files with DuckDB.

The fast path reads many files in one `read_csv` pass. It accepts only files that are
unambiguous to it (single-space columns, numbers DuckDB and Python read alike, no repeated
docid); anything else raises `FastPathRefused`, and the caller falls back to the precise
reader in `studio.formats.trec`, which then names the offending line.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import duckdb

from studio.domain.models import RunRow
from studio.store.database import Connection

RUN_CSV_COLUMNS = (
    "{'qid': 'VARCHAR', 'q0': 'VARCHAR', 'docid': 'VARCHAR', 'rank': 'BIGINT',"
    " 'score': 'DOUBLE', 'tag': 'VARCHAR'}"
)


class FastPathRefused(Exception):
    """The bulk reader is not sure of these files; read them with the precise parser."""


def run_names(con: Connection) -> set[str]:
    return {name for (name,) in con.execute("SELECT name FROM runs").fetchall()}


def delete_run(con: Connection, name: str) -> None:
    row = con.execute("SELECT run_id FROM runs WHERE name = ?", [name]).fetchone()
    if row is not None:
        con.execute("DELETE FROM run_rows WHERE run_id = ?", [row[0]])
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
        con.execute(
            f"""
            INSERT INTO staged_run_rows
            SELECT m.file_index, r.qid, r.docid, r.rank, r.score
            FROM read_csv(?, delim = ' ', header = false, quote = '', escape = '',
                          auto_detect = false, strict_mode = true, filename = true,
                          columns = {RUN_CSV_COLUMNS}) AS r
            JOIN (VALUES {mapping}) AS m(file_index, filename) USING (filename)
            """,
            [paths, *paths],
        )
    except duckdb.Error as error:
        raise FastPathRefused(str(error)) from error
    problem = con.execute(
        """
        SELECT 1 FROM staged_run_rows
        WHERE list_contains(?, file_index) AND (isnan(score) OR qid IS NULL OR docid IS NULL)
        UNION ALL
        (SELECT 1 FROM staged_run_rows WHERE list_contains(?, file_index)
         GROUP BY file_index, qid, docid HAVING count(*) > 1 LIMIT 1)
        LIMIT 1
        """,
        [indexes, indexes],
    ).fetchone()
    if problem is not None:
        con.execute("DELETE FROM staged_run_rows WHERE list_contains(?, file_index)", [indexes])
        raise FastPathRefused("a NaN score, an empty field or a docid ranked twice")


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
    """Move the staged rows into `run_rows`, file index -> run id."""
    mapping = ", ".join(f"({index}, {run_id})" for index, run_id in run_ids)
    con.execute(
        f"""
        INSERT INTO run_rows
        SELECT m.run_id, s.qid, s.docid, s.rank, s.score
        FROM staged_run_rows AS s JOIN (VALUES {mapping}) AS m(file_index, run_id) USING (file_index)
        """
    )
