"""The studio opens its own project files and nothing else: another program's DuckDB file, or a
file that is not DuckDB at all, is refused with nothing written to it (its bytes, the catalog and
the folder around it as they were); a missing file is created only when asked, whole or not at all."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import pytest
from file_state import FOREIGN_DUCKDB, NOT_DUCKDB, duckdb_catalog, folder_state

from studio.domain.errors import NoProject, NotAProject, ProjectError
from studio.store import opening
from studio.store.database import Database
from studio.store.file_identity import APPLICATION, MARK_TABLE, not_duckdb
from studio.store.migrations import MIGRATIONS, v18_project_mark


def mark_of(path: Path) -> list[str]:
    with duckdb.connect(str(path), read_only=True) as con:
        return [str(row[0]) for row in con.execute(f"SELECT application FROM {MARK_TABLE}").fetchall()]


@pytest.mark.parametrize("create", [True, False], ids=["creating", "not-creating"])
@pytest.mark.parametrize("kind", sorted(FOREIGN_DUCKDB))
def test_another_programs_duckdb_file_is_refused_untouched(tmp_path: Path, kind: str, create: bool) -> None:
    make, why = FOREIGN_DUCKDB[kind]
    path = tmp_path / "theirs.duckdb"
    make(path)
    before, catalog = folder_state(tmp_path), duckdb_catalog(path)
    with pytest.raises(NotAProject, match="is not a studio project") as refused:
        Database(path, create=create)
    assert why in str(refused.value) and str(path) in str(refused.value)
    assert folder_state(tmp_path) == before  # the file's bytes, no lock file, no log left or folded in
    assert duckdb_catalog(path) == catalog


@pytest.mark.parametrize("kind", sorted(NOT_DUCKDB))
def test_a_file_that_is_not_duckdb_is_refused_before_duckdb_opens_it(
    tmp_path: Path, kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    make, why = NOT_DUCKDB[kind]
    path = tmp_path / "p.duckdb"
    make(path)
    before = folder_state(tmp_path)

    def never(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("DuckDB was asked to open a file that is not DuckDB")

    monkeypatch.setattr(opening, "connect", never)
    with pytest.raises(NotAProject, match=f"{path} is not a studio project: it is {why}"):
        Database(path)
    assert folder_state(tmp_path) == before


def test_duckdb_never_installs_or_loads_an_extension_by_itself(tmp_path: Path) -> None:
    sqlite_file = tmp_path / "lite.db"
    with sqlite3.connect(sqlite_file) as lite:
        lite.execute("CREATE TABLE t (a)")
    lite.close()
    for database in (Database(":memory:"), Database(tmp_path / "p.duckdb")):
        con = database.cursor()
        settings = con.execute(
            "SELECT name, value FROM duckdb_settings() WHERE name IN (?, ?) ORDER BY name", list(opening.CONNECT_CONFIG)
        ).fetchall()
        assert settings == [("autoinstall_known_extensions", "false"), ("autoload_known_extensions", "false")]
        # A statement that needs an extension not built in is refused, not served by a download.
        with pytest.raises(duckdb.Error, match="INSTALL sqlite_scanner"):
            con.execute(f"ATTACH '{sqlite_file}' (TYPE sqlite)")
        database.close()


def test_a_new_project_file_carries_the_mark(tmp_path: Path) -> None:
    path = tmp_path / "p.duckdb"
    database = Database(path)
    assert database.created
    database.close()
    assert mark_of(path) == [APPLICATION]
    assert f"'{APPLICATION}'" in v18_project_mark.SQL  # the mark the released migration writes
    assert not Database(path).created


def test_a_missing_file_is_not_created_unless_asked(tmp_path: Path) -> None:
    path = tmp_path / "typo" / "p.duckdb"
    with pytest.raises(NoProject) as refused:
        Database(path, create=False)
    assert str(refused.value) == f"no project at {path}; `studio init {path}` creates one, imports create it too"
    assert list(tmp_path.iterdir()) == []  # no file, no lock file, no folder


def test_a_missing_file_is_not_created_read_only(tmp_path: Path) -> None:
    with pytest.raises(NoProject):
        Database(tmp_path / "p.duckdb", read_only=True)
    assert list(tmp_path.iterdir()) == []


def test_an_interrupted_creation_leaves_no_half_made_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "p.duckdb"
    failing = [*MIGRATIONS[:5], (6, "SELECT * FROM a_table_no_version_made")]
    monkeypatch.setattr(opening, "MIGRATIONS", failing)
    with pytest.raises(ProjectError, match=f"cannot create {path}"):
        Database(path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.duckdb.lock"]  # nothing of the project itself
    monkeypatch.undo()
    Database(path).close()  # the next attempt makes it whole
    assert mark_of(path) == [APPLICATION]


def test_a_file_removed_while_let_go_is_not_made_anew(tmp_path: Path) -> None:
    path = tmp_path / "p.duckdb"
    database = Database(path)
    database.release()
    path.unlink()
    with pytest.raises(NoProject):
        database.cursor()
    assert not path.exists()


def test_a_text_file_cut_inside_a_character_is_still_text(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("x" + "é" * 400, encoding="utf-8")  # byte 512 falls inside an "é"
    assert not_duckdb(path) == "it is a text file, not a DuckDB database"


@pytest.mark.parametrize(
    ("name", "make", "why"),
    [
        ("folder", lambda path: path.mkdir(), "it is a folder"),
        ("gzip", lambda path: path.write_bytes(b"\x1f\x8b\x08\x00" + bytes(60)), "a gzip file"),
    ],
)
def test_what_a_refused_file_is_named(tmp_path: Path, name: str, make: Callable[[Path], object], why: str) -> None:
    path = tmp_path / name
    make(path)
    with pytest.raises(NotAProject, match=why):
        Database(path)
