"""Project files written by the studio at every past schema version (tests/store/past_versions/,
made by make_fixtures.py with each version's own code) open with the current studio, are upgraded
to LATEST_VERSION, pass `studio check`, still hold what they held, and give the same leaderboards."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest
from store.past_versions.holdings import holdings, schema_versions

from studio.services.project import Project
from studio.store import campaigns as campaign_store
from studio.store.file_identity import APPLICATION, MARK_TABLE
from studio.store.migrations import (
    LATEST_VERSION,
    schema_holds,
    v14_skipped,
    v20_audit_assessors,
    v21_topic_vocabularies,
    v26_team_gates,
)
from studio.store.team import local as team_store

FIXTURES = Path(__file__).resolve().parent / "past_versions"
MANIFEST: dict[str, dict[str, Any]] = json.loads((FIXTURES / "manifest.json").read_text("utf-8"))


def fixture_file(name: str, folder: Path) -> Path:
    """The fixture's project file, decompressed into `folder` (the committed file is never opened)."""
    path = folder / f"{name}.duckdb"
    path.write_bytes(gzip.decompress((FIXTURES / MANIFEST[name]["file"]).read_bytes()))
    return path


@pytest.fixture(scope="module", params=sorted(MANIFEST))
def past(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[dict[str, Any], Project]]:
    """A past version's manifest entry and its project file opened (so migrated) by the studio,
    once for the tests that only read it."""
    name: str = request.param
    with Project.open(fixture_file(name, tmp_path_factory.mktemp(name))) as project:
        yield MANIFEST[name], project


def test_every_past_version_has_a_fixture() -> None:
    # 14 was never used, so no studio ever wrote a file at it; the newest version is what the studio
    # writes now, and needs a fixture once a later version comes.
    made = {entry["version"] for entry in MANIFEST.values()}
    # 22 and 23 hold no schema of their own here (their numbers belong to changes merged separately).
    past = set(range(1, LATEST_VERSION)) - {v14_skipped.VERSION}
    assert past <= made <= past | {LATEST_VERSION}


def test_the_fixture_is_the_file_the_manifest_describes(tmp_path: Path) -> None:
    for name, entry in MANIFEST.items():
        with duckdb.connect(str(fixture_file(name, tmp_path)), read_only=True) as con:
            assert schema_versions(con) == entry["schema_versions"]
            assert max(entry["schema_versions"]) == entry["version"]
            assert holdings(con) == {"counts": entry["counts"], "digests": entry["digests"]}, name


def test_opening_upgrades_to_the_latest_version_applying_only_what_is_newer(
    past: tuple[dict[str, Any], Project],
) -> None:
    entry, project = past
    assert project.db.schema_version() == LATEST_VERSION
    written = entry["schema_versions"]
    applied = project.db.cursor().execute("SELECT version FROM schema_version ORDER BY version").fetchall()
    assert [row[0] for row in applied] == [*written, *range(max(written) + 1, LATEST_VERSION + 1)]


def test_the_upgraded_file_carries_the_studios_mark(past: tuple[dict[str, Any], Project]) -> None:
    # Written before the mark existed, it was a project by its tables; upgraded, it is marked.
    _, project = past
    marks = project.db.cursor().execute(f"SELECT application FROM {MARK_TABLE}").fetchall()
    assert marks == [(APPLICATION,)]


def test_the_upgraded_file_passes_the_check(past: tuple[dict[str, Any], Project]) -> None:
    _, project = past
    report = project.check()
    assert report.ok, [check.as_dict() for check in report.checks if not check.ok]


def test_the_upgraded_file_holds_what_it_held(past: tuple[dict[str, Any], Project]) -> None:
    entry, project = past
    now = holdings(project.db.cursor())
    assert {name: now["counts"].get(name) for name in entry["counts"]} == entry["counts"]
    assert {name: now["digests"].get(name) for name in entry["digests"]} == entry["digests"]


def test_the_listing_agrees_with_the_manifest(past: tuple[dict[str, Any], Project]) -> None:
    entry, project = past
    counts = project.counts()
    for name in ("topics", "documents", "runs", "run_rows", "label_sets", "labels", "banks", "bank_items"):
        assert counts[name] == entry["counts"][name], name
    assert len(project.judge_runs()) == entry["counts"].get("judge_runs", 0)


def test_leaderboards_are_those_the_old_studio_computed(past: tuple[dict[str, Any], Project]) -> None:
    entry, project = past
    for measure, boards in entry["leaderboards"].items():
        for label_set, board in boards.items():
            assert project.leaderboard(label_set, measure) == pytest.approx(board, rel=1e-12, abs=1e-15)


def test_a_file_at_13_gets_the_skipped_number_on_its_way(tmp_path: Path) -> None:
    (name,) = [name for name, entry in MANIFEST.items() if entry["version"] == 13]
    with Project.open(fixture_file(name, tmp_path)) as project:
        versions = schema_versions(project.db.cursor())
    assert versions[12:] == list(range(13, LATEST_VERSION + 1))


def test_a_file_past_the_skipped_number_is_not_given_it(tmp_path: Path) -> None:
    # Files written while 15 or 16 was the newest never recorded 14 (later studios record it).
    skipped = v14_skipped.VERSION
    later = [
        name
        for name, entry in MANIFEST.items()
        if entry["version"] > skipped and skipped not in entry["schema_versions"]
    ]
    assert later
    for name in later:
        with Project.open(fixture_file(name, tmp_path)) as project:
            assert v14_skipped.VERSION not in schema_versions(project.db.cursor())


# What readers ask of an older file before reading a table or a column a later version added.
HELD_BY = {
    "audit_assessments": lambda con: schema_holds(con, v20_audit_assessors.VERSION),
    "ranking_vocabularies": lambda con: schema_holds(con, v21_topic_vocabularies.VERSION),
    "campaigns": campaign_store.holds_campaigns,
    "campaigns.llm_event": lambda con: schema_holds(con, v26_team_gates.VERSION),
    "team_link": team_store.has_team_tables,
    "team_link.last_outcome": team_store.has_outcome,
    "team_quarantine": team_store.has_quarantine,
}


@pytest.mark.slow  # every past file decompressed and opened
def test_the_schema_version_says_which_tables_and_columns_a_file_holds(tmp_path: Path) -> None:
    """The readers' checks answer from `schema_version` what DuckDB's catalog would: on every past
    file (22 and 23 included), a table or column is there exactly from the version that added it."""
    for name in MANIFEST:
        with duckdb.connect(str(fixture_file(name, tmp_path)), read_only=True) as con:
            held = {str(row[0]) for row in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
            columns = con.execute("SELECT table_name || '.' || column_name FROM duckdb_columns()").fetchall()
            held |= {str(row[0]) for row in columns}
            for what, holds in HELD_BY.items():
                assert holds(con) == (what in held), (name, what)
    with Project.open(tmp_path / "new.duckdb") as project:  # a new file holds every one
        assert all(holds(project.db.cursor()) for holds in HELD_BY.values())
