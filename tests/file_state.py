"""What a folder holds, byte for byte, and what a DuckDB file's catalog lists: the tests of refused
files compare both before and after the studio was pointed at them."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable
from pathlib import Path

import duckdb

from studio.store.file_identity import APPLICATION


def folder_state(folder: Path) -> dict[str, str]:
    """Every file under `folder` (lock files and logs included) with the sha256 of its bytes."""
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def duckdb_catalog(path: Path) -> list[tuple[str, str]]:
    """(kind, name) of every table and view the DuckDB file holds, read without writing to it."""
    with duckdb.connect(str(path), read_only=True) as con:
        rows = con.execute(
            "SELECT 'table', table_name FROM duckdb_tables() WHERE database_name = current_database()"
            " UNION ALL SELECT 'view', view_name FROM duckdb_views()"
            " WHERE database_name = current_database() AND NOT internal ORDER BY 2"
        ).fetchall()
    return [(str(kind), str(name)) for kind, name in rows]


def _duckdb_file(*statements: str) -> Callable[[Path], None]:
    def make(path: Path) -> None:
        with duckdb.connect(str(path)) as con:
            for statement in statements:
                con.execute(statement)

    return make


def _duckdb_file_with_pending_log(path: Path) -> None:
    """A DuckDB file whose writer stopped before folding its log into the file (a crash)."""
    with duckdb.connect(str(path)) as con:
        con.execute("CREATE TABLE t (a INTEGER)")
        con.execute("CHECKPOINT")
        con.execute("SET checkpoint_threshold = '1TB'")
        con.execute("PRAGMA disable_checkpoint_on_shutdown")
        con.execute("INSERT INTO t SELECT * FROM range(1000)")
    assert Path(f"{path}.wal").exists()


def _sqlite_file(path: Path) -> None:
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE t (a)")
    con.close()


def _bytes(data: bytes) -> Callable[[Path], None]:
    def make(path: Path) -> None:
        path.write_bytes(data)

    return make


# Another program's DuckDB files: each refused with the words that say why.
FOREIGN_DUCKDB: dict[str, tuple[Callable[[Path], None], str]] = {
    "a table": (_duckdb_file("CREATE TABLE t (a INTEGER)", "INSERT INTO t VALUES (1)"), "another program's"),
    "a table the studio has too": (
        _duckdb_file("CREATE TABLE topics (qid VARCHAR)", "INSERT INTO topics VALUES ('1')"),
        "another program's",
    ),
    "a view only": (_duckdb_file("CREATE VIEW v AS SELECT 1 AS one"), "another program's"),
    "no tables": (_duckdb_file(), "holding no tables"),
    "another application's mark": (
        _duckdb_file("CREATE TABLE studio_project (application VARCHAR)", "INSERT INTO studio_project VALUES ('x')"),
        f"not {APPLICATION}",
    ),
    "a pending log": (_duckdb_file_with_pending_log, "another program's"),
}

# Files that are not DuckDB at all: refused by their first bytes.
NOT_DUCKDB: dict[str, tuple[Callable[[Path], None], str]] = {
    "sqlite": (_sqlite_file, "a SQLite database"),
    "text": (_bytes(b"qid\ttext\n1\tboiling point of water\n"), "a text file"),
    "empty": (_bytes(b""), "an empty file"),
    "random bytes": (_bytes(bytes((i * 37) % 256 for i in range(4096))), "not a DuckDB database"),
}
