"""The migrations package: one module per schema version, numbered 1…LATEST_VERSION without a gap,
each file named for its number, and a file at a version past a skipped number left as it is."""

from __future__ import annotations

import hashlib
import pkgutil
import re
from pathlib import Path

import duckdb
import pytest

from studio import Project
from studio.store import migrations
from studio.store.database import Database
from studio.store.migrations import LATEST_VERSION, MIGRATION_MODULES, MIGRATIONS, v14_skipped

MODULE_NAME = re.compile(r"v(\d{2})_[a-z0-9_]+")

# The sha256 of each released migration's SQL: project files in the wild were migrated by exactly
# these statements, so a change to one is a change to the past (add a new version instead).
RELEASED_SQL = {
    1: "4955f1ef2c79ba972786144346892b4167386d4cdb7c30312144a7899c04900b",
    2: "f0435febc9088bb5981b4762d577021bf965476d348b3c69bfbc7859eaad2510",
    3: "fd6f25684879f7cc8019e47ea109d8b51f132bd9df1058ba2714e7d2484c6bea",
    4: "7b78d71d8c2b3aa6c78625948518e844f4cfa6815833b9f9c17d653b672c24dc",
    5: "1f01cfab2e127e744eafeac4e71c3e73539a733858eee44670fc9a8fe80d6d1d",
    6: "5ed788a67ac5de0d1389ce84c99b33ca32ecac0c0cc9a28d8b5a8c15090bb364",
    7: "f3222c5a8b880109f746613489c82b7465c9c5aa57569e92ea2cb48c7679f5d0",
    8: "f1ecdd43ab6975d31f13f19224a268c065797808ec7d39031015ac64c6e060cf",
    9: "2ede0d2d7fc83e7c2c95c30a4587036e02d5e7e2164731e91f0e49ecca398da1",
    10: "03278dda1bf22af99806778e556787c04d8d34851e2f648d0d9e818b46e7404f",
    11: "50b042a294aa70320f424c9c3b2794fc4294927abd3fd686eef0e5592805d5db",
    12: "81eb19d624edc9e954b61483eb1fb09afe6a4b588f63130696c4f2f7274bb938",
    13: "b9c91449e305427116200030dbe67985fea05ae05b59da144b248733db710a1d",
    14: "adedd1f62cbc4ce69c967f607ec0cddee8f0ef221f4669f7a70d744ea69f8d4e",
    15: "39c300756319bfbf91331ae96c741de94103c404798418f0e9bb48d550182bbe",
    16: "1ee3bd3463e7b71bc411ab115b19e563452b57146a735cbc998c5aebac89914c",
    17: "7dada8ee905b40d41f24f918e3b833b4af5cfbe1d45d220517440c1438fae4bb",
    18: "2b5d6db416852d3f57a32bedd34778e9eecd438a2cfd27dc7430140009d85ecd",
}


def test_versions_run_from_1_to_the_latest_without_gaps_or_repeats() -> None:
    versions = [version for version, _ in MIGRATIONS]
    assert versions == list(range(1, LATEST_VERSION + 1))


def test_released_migrations_are_unchanged() -> None:
    digests = {version: hashlib.sha256(statements.encode()).hexdigest() for version, statements in MIGRATIONS}
    assert {version: digests.get(version) for version in RELEASED_SQL} == RELEASED_SQL


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


def test_a_file_of_the_early_version_16_is_repaired(tmp_path: Path) -> None:
    """Written when 16 came before 15 and before it added judgments.sample: 16 recorded, 15 never."""
    path = tmp_path / "early16.duckdb"
    early_16 = dict(MIGRATIONS)[16].replace("ALTER TABLE judgments ADD COLUMN sample INTEGER;", "")
    file_at(path, list(range(1, 14)))
    with duckdb.connect(str(path)) as con:
        con.execute(early_16)
        con.execute("INSERT INTO schema_version (version) VALUES (16)")
    Database(path).close()
    with duckdb.connect(str(path), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM calibrations").fetchone() == (0,)
        assert "sample" in {row[0] for row in con.execute("DESCRIBE judgments").fetchall()}
    with Project.open(path) as project:
        assert project.check().ok
