"""Opening a project file as the studio may: refused when it is not the studio's, read-only when it
cannot be written, and, when it is missing and the command creates, made whole or not at all.

A refused file is left as it was: what is not DuckDB is told by its first bytes before DuckDB opens
it, and another program's DuckDB database by its catalog, read before anything is written.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shlex
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import duckdb

from studio.domain.errors import NoProject, NotAProject, ProjectError, ProjectReadOnly
from studio.store.file_access import Writable, can_write, read_only_reason
from studio.store.file_identity import not_duckdb, not_the_studios
from studio.store.migrations import MIGRATIONS

# DuckDB never installs or loads an extension by itself: a project needs none beyond those built
# in, and a file that is not a project must not make it reach for one over the network.
CONNECT_CONFIG = {"autoinstall_known_extensions": False, "autoload_known_extensions": False}

SCHEMA_VERSION_TABLE = (
    "CREATE TABLE IF NOT EXISTS schema_version ("
    " version INTEGER PRIMARY KEY,"
    " applied_at TIMESTAMP NOT NULL DEFAULT current_timestamp)"
)

# What a write fails with when the disk or the quota has no room (DuckDB puts the system's words
# into its message).
NO_ROOM = tuple(os.strerror(code) for code in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG))


def connect(path: str, *, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection to `path` with the studio's settings."""
    return duckdb.connect(path, read_only=read_only, config=dict(CONNECT_CONFIG))


@dataclass(frozen=True)
class Admission:
    """What opening a project file will be."""

    exists: bool
    read_only: str | None  # why it is opened read-only; None: for writing


def admit(path: Path, *, create: bool, asked_read_only: bool, writable: Writable = can_write) -> Admission:
    """Refuse a missing file the command does not create and an existing one that is not DuckDB;
    else say whether it exists and how it is to be opened."""
    if not path.exists():
        if not create or asked_read_only:
            raise NoProject(no_project(path))
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise ProjectError(f"cannot create {path}: {error.strerror or error}") from error
        return Admission(exists=False, read_only=None)
    try:
        refusal = not_duckdb(path)
    except OSError as error:
        raise ProjectError(f"cannot read {path}: {error.strerror or error}") from error
    if refusal is not None:
        raise NotAProject(f"{path} is not a studio project: {refusal}")
    return Admission(exists=True, read_only=read_only_reason(path, asked=asked_read_only, writable=writable))


def no_project(path: Path) -> str:
    named = shlex.quote(str(path))
    return f"no project at {path}; `studio init {named}` creates one, imports create it too"


def refuse_foreign(con: duckdb.DuckDBPyConnection, path: str) -> None:
    """Raise NotAProject unless the open database is a studio project (reads only)."""
    refusal = not_the_studios(con)
    if refusal is not None:
        raise NotAProject(f"{path} is not a studio project: {refusal}; the studio wrote nothing to it")


def create_project_file(path: Path) -> None:
    """A new project file at the latest schema. It is made beside `path` and renamed into place, so
    an interrupted creation never leaves a file that is half a project (and would then be refused).
    The caller holds the studio's lock on `path` and has seen it missing."""
    building = path.with_name(path.name + ".creating")
    leftovers = (building, Path(f"{building}.wal"))
    _remove(leftovers)
    try:
        con = connect(str(building))
        try:
            con.execute("BEGIN TRANSACTION")
            con.execute(SCHEMA_VERSION_TABLE)
            for version, statements in MIGRATIONS:
                con.execute(statements)
                con.execute("INSERT INTO schema_version (version) VALUES (?)", [version])
            con.execute("COMMIT")
        finally:
            con.close()
        os.rename(building, path)
    except (OSError, duckdb.Error) as error:
        _remove(leftovers)
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        raise ProjectError(f"cannot create {path}: {reason}") from error


def write_refused(path: str, read_only: str | None, error: duckdb.Error) -> ProjectError | None:
    """A write DuckDB refused for want of permission (`read_only`: why the file is open read-only)
    or of room, as the sentence that says so; None for any other error."""
    if read_only is not None and "read-only mode" in str(error):
        return ProjectReadOnly(f"{path} is read-only ({read_only}); nothing was written")
    room = next((words for words in NO_ROOM if words in str(error)), None)
    if room is not None:
        return ProjectError(
            f"cannot write {path}: {room.lower()} (DuckDB needs room for its log beside the file); nothing was written"
        )
    return None


def _remove(paths: Iterable[Path]) -> None:
    for leftover in paths:
        with contextlib.suppress(OSError):
            leftover.unlink(missing_ok=True)
