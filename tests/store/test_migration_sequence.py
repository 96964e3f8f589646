"""The migrations package: one module per schema version, numbered 1…LATEST_VERSION without a gap,
each file named for its number, and a file at a version past a skipped number left as it is."""

from __future__ import annotations

import pkgutil
import re
from pathlib import Path

import duckdb
import pytest

from studio.store import migrations
from studio.store.database import Database
from studio.store.migrations import LATEST_VERSION, MIGRATION_MODULES, MIGRATIONS, v14_skipped

MODULE_NAME = re.compile(r"v(\d{2})_[a-z0-9_]+")


def test_versions_run_from_1_to_the_latest_without_gaps_or_repeats() -> None:
    versions = [version for version, _ in MIGRATIONS]
    assert versions == list(range(1, LATEST_VERSION + 1))


def test_each_module_is_named_for_its_version() -> None:
    for module in MIGRATION_MODULES:
        name = module.__name__.rsplit(".", 1)[-1]
        found = MODULE_NAME.fullmatch(name)
        assert found is not None, f"{name} is not named vNN_what_it_does"
        assert int(found.group(1)) == module.VERSION, f"{name} holds version {module.VERSION}"
        assert module.__doc__, f"{name} says nothing of what its version adds"


def test_every_module_of_the_package_is_listed() -> None:
    on_disk = {info.name for info in pkgutil.iter_modules(migrations.__path__)}
    listed = {module.__name__.rsplit(".", 1)[-1] for module in MIGRATION_MODULES}
    assert on_disk == listed


def file_at(path: Path, versions: list[int]) -> None:
    """A project file that has been migrated through exactly `versions` (in that order)."""
    statements = dict(MIGRATIONS)
    with duckdb.connect(str(path)) as con:
        con.execute(
            "CREATE TABLE schema_version (version INTEGER PRIMARY KEY,"
            " applied_at TIMESTAMP NOT NULL DEFAULT current_timestamp)"
        )
        for version in versions:
            con.execute(statements[version])
            con.execute("INSERT INTO schema_version (version) VALUES (?)", [version])


def recorded_versions(path: Path) -> list[int]:
    with duckdb.connect(str(path), read_only=True) as con:
        return [row[0] for row in con.execute("SELECT version FROM schema_version ORDER BY version").fetchall()]


def test_a_file_at_13_gets_the_skipped_number_and_every_later_version(tmp_path: Path) -> None:
    path = tmp_path / "v13.duckdb"
    file_at(path, list(range(1, 14)))
    Database(path).close()
    assert recorded_versions(path) == list(range(1, LATEST_VERSION + 1))


@pytest.mark.parametrize("newest", range(v14_skipped.VERSION + 1, LATEST_VERSION + 1))
def test_a_file_past_the_skipped_number_is_never_given_it(tmp_path: Path, newest: int) -> None:
    # Files written while 15 or 16 was the newest never recorded 14; they get only what is above them.
    written = [version for version in range(1, newest + 1) if version != v14_skipped.VERSION]
    path = tmp_path / f"v{newest}.duckdb"
    file_at(path, written)
    Database(path).close()
    assert recorded_versions(path) == [*written, *range(newest + 1, LATEST_VERSION + 1)]
