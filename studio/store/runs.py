"""Runs in the project file, and the fast bulk path that reads TREC run files with DuckDB.

The fast path (`studio.store.fast_path`) reads many files in one pass, whichever whitespace
separates their columns. It accepts only what it reads exactly as the precise reader in
`studio.formats.trec` would (numbers DuckDB and Python read alike, no repeated docid, at least
one row); anything else raises `FastPathRefused`, and the caller falls back to the precise
reader, which then names the offending line.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

import duckdb

from studio.domain.models import RunRow
from studio.store.database import Connection
from studio.store.fast_path import (
    FastPathRefused,
    check_file,
    checked,
    literal_path,
    odd_ids,
    odd_run_fields,
    parallel_reads,
    split_lines,
)
from studio.store.new_names import new_names
from studio.store.rankings import delete_rankings, rank_staged_runs


def run_names(con: Connection) -> set[str]:
    return {name for (name,) in con.execute("SELECT name FROM runs").fetchall()}


def pairs_retrieved(con: Connection, name: str) -> set[tuple[str, str]]:
    """Every (qid, docid) the run named `name` retrieved (empty when no run has that name)."""
    sql = "SELECT DISTINCT r.qid, r.docid FROM run_rows r JOIN runs USING (run_id) WHERE runs.name = ?"
    return {(q, d) for q, d in con.execute(sql, [name]).fetchall()}


def delete_run(con: Connection, name: str) -> None:
    row = con.execute("SELECT run_id FROM runs WHERE name = ?", [name]).fetchone()
    if row is not None:
        delete_rankings(con, row[0])
        con.execute("DELETE FROM runs WHERE run_id = ?", [row[0]])


def add_runs(con: Connection, runs: Sequence[tuple[str, str]], batch_id: int) -> list[int]:
    """Register (name, source file) runs in one statement; their run ids, in the same order. The
    names are stored composed, and refused when one looks like a taken one or another of them."""
    names = new_names(con, "run", [name for name, _ in runs])
    created = con.execute(
        "INSERT INTO runs (run_id, name, source_file, batch_id)"
        " SELECT nextval('run_ids'), unnest(?::VARCHAR[]), unnest(?::VARCHAR[]), ? RETURNING name, run_id",
        [names, [source for _, source in runs], batch_id],
    ).fetchall()
    ids = {name: int(run_id) for name, run_id in created}
    return [ids[name] for name in names]


@contextmanager
def unordered_inserts(con: Connection) -> Iterator[None]:
    """Inserts that keep rows in whichever order the threads produce them, for tables nothing
    reads in insertion order (the staged rows, grouped and sorted afterwards; the rankings,
    grouped from them): keeping an order costs the parallel read and insert their speed. The
    setting is the connection's: leave the block only after a transaction inside it ended."""
    con.execute("SET preserve_insertion_order = false")
    try:
        yield
    finally:
        con.execute("RESET preserve_insertion_order")


def stage_run_files(con: Connection, files: Sequence[tuple[int, Path]], tags: Mapping[int, str] | None = None) -> None:
    """Read (file_index, path) pairs into the temporary staging table in one pass; columns
    after the sixth are ignored, as trec_eval ignores them. With `tags` (file index -> the tag of
    its first row), a row with another tag refuses the files: a run file holds one run.

    Runs outside any transaction: DuckDB aborts a transaction on the first failed
    statement, and a refused fast path must not cost the import its transaction.
    File indexes are not negative.
    Refuses (leaving the staging table empty of these files) when unsure.
    """
    if not files:
        return
    _read_run_files(con, files, tags or {})
    _check_staged_pairs(con, [index for index, _ in files])


def _read_run_files(con: Connection, files: Sequence[tuple[int, Path]], tags: Mapping[int, str]) -> None:
    """The files' rows into `staged_run_rows`, a line DuckDB's split cannot read as the precise
    parser would (or a row of another tag) refusing the fast path."""
    paths = [literal_path(path) for _, path in files]
    mapping = ", ".join(f"({index}, ?, CAST(? AS VARCHAR))" for index, _ in files)
    expected = [tags.get(index) for index, _ in files]
    try:
        checks = [check_file(path) for _, path in files]
        for check in checks:
            if check.unsure is not None:
                raise FastPathRefused(check.unsure)
        with unordered_inserts(con):
            con.execute(
                f"""
                INSERT INTO staged_run_rows
                SELECT m.file_index,
                       {checked("f[1]", odd_run_fields("f") + " OR (m.tag IS NOT NULL AND f[6] <> m.tag)")},
                       f[3],
                       CAST(f[4] AS BIGINT),
                       CAST(f[5] AS DOUBLE)
                FROM {split_lines(parallel=parallel_reads(checks))} AS r
                JOIN (VALUES {mapping}) AS m(file_index, filename, tag) USING (filename)
                """,
                [paths, *(value for pair in zip(paths, expected, strict=True) for value in pair)],
            )
    except (duckdb.Error, OSError, EOFError, zlib.error) as error:
        raise FastPathRefused(str(error)) from error


def _check_staged_pairs(con: Connection, indexes: list[int]) -> None:
    """The staged rows of the files `indexes` checked as the precise parser checks them, their
    (qid, docid) pairs staged; a problem refuses the fast path and drops the files' rows."""
    # A docid twice in a topic of one file: the (qid, docid) pairs are grouped across the files
    # (far fewer groups than rows), each group keeping a bit per file; a file's second row sets
    # no new bit. Cheaper than grouping by file, qid and docid. The groups are kept: they are the
    # staged pairs that `store.rankings` numbers, so the rows are grouped once, and the ids of
    # every line are checked on them, once per pair.
    con.execute(
        """
        CREATE OR REPLACE TEMP TABLE checked_pairs AS
        SELECT qid, docid, count(*) <> bit_count(bit_or(1::UBIGINT << (file_index % 64)::UBIGINT)) AS twice
        FROM staged_run_rows WHERE list_contains(?, file_index)
        GROUP BY qid, docid, file_index // 64
        """,
        [indexes],
    )
    problem = con.execute(
        f"""
        SELECT 1 FROM checked_pairs WHERE twice OR {odd_ids("qid", "docid")}
        UNION ALL
        SELECT 1 FROM staged_run_rows WHERE list_contains(?, file_index) AND NOT isfinite(score)
        UNION ALL
        SELECT 1 FROM unnest(?::INTEGER[]) AS f(file_index)
        WHERE NOT EXISTS (SELECT 1 FROM staged_run_rows s WHERE s.file_index = f.file_index)
        LIMIT 1
        """,
        [indexes, indexes],
    ).fetchone()
    if problem is not None:
        con.execute("DELETE FROM staged_run_rows WHERE list_contains(?, file_index)", [indexes])
        con.execute("DROP TABLE checked_pairs")
        raise FastPathRefused(
            "an id the precise parser refuses, a score out of range, a docid ranked twice or an empty file"
        )
    con.execute("INSERT INTO staged_pairs SELECT qid, docid FROM checked_pairs")
    con.execute("DROP TABLE checked_pairs")


def create_run_staging(con: Connection) -> None:
    con.execute(
        "CREATE OR REPLACE TEMP TABLE staged_run_rows ("
        " file_index INTEGER, qid VARCHAR, docid VARCHAR, rank BIGINT, score DOUBLE)"
    )
    # The (qid, docid) pairs of the staged rows, each at least once (`store.rankings` numbers them).
    con.execute("CREATE OR REPLACE TEMP TABLE staged_pairs (qid VARCHAR, docid VARCHAR)")


def drop_run_staging(con: Connection) -> None:
    con.execute("DROP TABLE IF EXISTS staged_run_rows")
    con.execute("DROP TABLE IF EXISTS staged_pairs")


def staged_run_row_count(con: Connection) -> int:
    """How many run rows the staging table holds, all files together."""
    row = con.execute("SELECT count(*) FROM staged_run_rows").fetchone()
    return int(row[0]) if row else 0


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
    con.execute(
        "INSERT INTO staged_pairs SELECT unnest(?), unnest(?)", [[r.qid for r in rows], [r.docid for r in rows]]
    )


def commit_staged_runs(con: Connection, run_ids: Sequence[tuple[int, int]]) -> None:
    """Store the staged rows as the runs' rankings, file index -> run id (`store.rankings`)."""
    rank_staged_runs(con, run_ids)
