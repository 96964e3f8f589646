"""The project file: one DuckDB database, opened, migrated and written in transactions."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb

from studio.domain.errors import ProjectError
from studio.store.migrations import LATEST_VERSION, MIGRATIONS

Connection = duckdb.DuckDBPyConnection


class Database:
    """A project file with its migrations applied.

    DuckDB connections are not shared between threads: `cursor()` hands each thread its own
    cursor on the same database, as DuckDB's Python documentation prescribes.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        try:
            self.connection = duckdb.connect(self.path)
        except duckdb.Error as error:
            raise ProjectError(f"cannot open project file {self.path}: {error}") from error
        self._local = threading.local()
        self._owner = threading.get_ident()
        self._migrate()

    def cursor(self) -> Connection:
        """The calling thread's connection (the main one on the opening thread)."""
        if threading.get_ident() == self._owner:
            return self.connection
        cursor = getattr(self._local, "cursor", None)
        if cursor is None:
            cursor = self._local.cursor = self.connection.cursor()
        return cursor

    @contextmanager
    def transaction(self) -> Iterator[Connection]:
        """All or nothing: an exception rolls every write of the block back."""
        con = self.cursor()
        con.execute("BEGIN TRANSACTION")
        try:
            yield con
        except BaseException:
            con.execute("ROLLBACK")
            raise
        con.execute("COMMIT")

    def close(self) -> None:
        self.connection.close()

    def schema_version(self) -> int:
        row = self.connection.execute("SELECT max(version) FROM schema_version").fetchone()
        return int(row[0]) if row and row[0] is not None else 0

    def _migrate(self) -> None:
        con = self.connection
        con.execute(
            "CREATE TABLE IF NOT EXISTS schema_version ("
            " version INTEGER PRIMARY KEY,"
            " applied_at TIMESTAMP NOT NULL DEFAULT current_timestamp)"
        )
        current = self.schema_version()
        if current > LATEST_VERSION:
            raise ProjectError(
                f"{self.path} was written by a newer studio (schema {current} > {LATEST_VERSION})"
            )
        for version, statements in MIGRATIONS:
            if version <= current:
                continue
            with self.transaction() as tx:
                tx.execute(statements)
                tx.execute("INSERT INTO schema_version (version) VALUES (?)", [version])


def new_batch(con: Connection, command: str, source: str | None) -> int:
    """Record one command's writes as a batch; every event points at its batch."""
    row = con.execute(
        "INSERT INTO batches (batch_id, command, source) VALUES (nextval('batch_ids'), ?, ?)"
        " RETURNING batch_id",
        [command, source],
    ).fetchone()
    assert row is not None
    return int(row[0])


def records(cursor: Connection) -> list[dict[str, Any]]:
    """The rows of an executed query as dicts keyed by column name."""
    names = [column[0] for column in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
