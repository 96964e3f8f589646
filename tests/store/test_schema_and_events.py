"""The project file's schema versioning, and the append-only label and bank events."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest

from studio.domain.errors import ProjectError, UsageError
from studio.services.project import Project
from studio.store.database import Database
from studio.store.migrations import LATEST_VERSION, MIGRATIONS


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def versions(path: Path) -> list[tuple[Any, ...]]:
    with duckdb.connect(str(path), read_only=True) as con:
        return con.execute("SELECT version, applied_at FROM schema_version ORDER BY version").fetchall()


# -- schema versions ----------------------------------------------------------------------------


def test_new_project_file_records_the_latest_schema_version(tmp_path: Path) -> None:
    database = Database(tmp_path / "p.duckdb")
    assert database.schema_version() == LATEST_VERSION
    database.close()
    assert [version for version, _ in versions(tmp_path / "p.duckdb")] == [v for v, _ in MIGRATIONS]


def test_reopening_keeps_the_data_and_runs_no_migration_again(tmp_path: Path) -> None:
    path = tmp_path / "p.duckdb"
    qrels = write(tmp_path / "qrels.txt", "q1 0 d1 2\nq1 0 d2 0\nq2 0 d1 1\n")
    with Project.open(path) as project:
        project.import_qrels(qrels, name="human")
    recorded = versions(path)

    with Project.open(path) as project:
        assert [(s["name"], s["topics"], s["pairs"]) for s in project.label_sets()] == [("human", 2, 3)]
    assert versions(path) == recorded  # same rows, same applied_at: nothing was re-applied


def test_file_from_a_newer_studio_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "p.duckdb"
    Database(path).close()
    with duckdb.connect(str(path)) as con:
        con.execute("INSERT INTO schema_version (version) VALUES (?)", [LATEST_VERSION + 1])
    with pytest.raises(ProjectError, match="newer"):
        Database(path)
    with pytest.raises(ProjectError):
        Project.open(path)


# -- label events -------------------------------------------------------------------------------


def label_events(project: Project) -> list[tuple[Any, ...]]:
    return (
        project.db.cursor()
        .execute("SELECT qid, docid, grade, previous, batch_id FROM label_events ORDER BY event_id")
        .fetchall()
    )


def current_labels(project: Project) -> dict[tuple[str, str], float]:
    rows = project.db.cursor().execute("SELECT qid, docid, grade FROM labels").fetchall()
    return {(qid, docid): grade for qid, docid, grade in rows}


@pytest.fixture
def project() -> Iterator[Project]:
    with Project.open(":memory:") as opened:
        yield opened


def test_importing_qrels_appends_one_event_per_label(project: Project, tmp_path: Path) -> None:
    project.import_qrels(write(tmp_path / "v1.txt", "q1 0 d1 1\nq1 0 d2 2\nq1 0 d3 0.5\n"), name="h")
    events = label_events(project)
    assert [(q, d, g, p) for q, d, g, p, _ in events] == [
        ("q1", "d1", 1.0, None),
        ("q1", "d2", 2.0, None),
        ("q1", "d3", 0.5, None),
    ]
    assert current_labels(project) == {("q1", "d1"): 1.0, ("q1", "d2"): 2.0, ("q1", "d3"): 0.5}


def test_replacing_qrels_appends_changes_and_removals_and_keeps_history(project: Project, tmp_path: Path) -> None:
    project.import_qrels(write(tmp_path / "v1.txt", "q1 0 d1 1\nq1 0 d2 2\nq1 0 d3 0\n"), name="h")
    before = label_events(project)

    project.import_qrels(write(tmp_path / "v2.txt", "q1 0 d1 1\nq1 0 d2 0\nq1 0 d4 3\n"), name="h", replace=True)
    events = label_events(project)
    assert events[: len(before)] == before  # nothing rewritten
    appended = {(q, d): (g, p) for q, d, g, p, _ in events[len(before) :]}
    assert appended == {
        ("q1", "d2"): (0.0, 2.0),  # changed: previous holds the old grade
        ("q1", "d4"): (3.0, None),  # new
        ("q1", "d3"): (None, 0.0),  # missing from the new file: removed
    }  # d1 unchanged: no event
    assert len({batch for *_, batch in events[len(before) :]}) == 1
    assert current_labels(project) == {("q1", "d1"): 1.0, ("q1", "d2"): 0.0, ("q1", "d4"): 3.0}
    (listed,) = project.label_sets()
    assert (listed["pairs"], listed["events"]) == (3, 6)


def test_a_removed_label_can_come_back(project: Project, tmp_path: Path) -> None:
    project.import_qrels(write(tmp_path / "v1.txt", "q1 0 d1 1\nq1 0 d2 2\n"), name="h")
    project.import_qrels(write(tmp_path / "v2.txt", "q1 0 d1 1\n"), name="h", replace=True)
    project.import_qrels(write(tmp_path / "v3.txt", "q1 0 d1 1\nq1 0 d2 3\n"), name="h", replace=True)
    assert current_labels(project) == {("q1", "d1"): 1.0, ("q1", "d2"): 3.0}
    assert label_events(project)[-1][:4] == ("q1", "d2", 3.0, None)


def test_importing_qrels_under_a_taken_name_needs_replace(project: Project, tmp_path: Path) -> None:
    project.import_qrels(write(tmp_path / "v1.txt", "q1 0 d1 1\n"), name="h")
    with pytest.raises(UsageError, match="already exists"):
        project.import_qrels(write(tmp_path / "v2.txt", "q1 0 d1 2\n"), name="h")
    assert current_labels(project) == {("q1", "d1"): 1.0}
    assert len(label_events(project)) == 1


# -- bank events --------------------------------------------------------------------------------


def bank_events(project: Project) -> list[tuple[Any, ...]]:
    return project.db.cursor().execute("SELECT op, text, importance FROM bank_events ORDER BY event_id").fetchall()


def bank_items(project: Project) -> dict[str, str | None]:
    rows = project.db.cursor().execute("SELECT text, importance FROM bank_items").fetchall()
    return dict(rows)


def test_replacing_a_bank_appends_add_edit_delete_and_keeps_history(project: Project, tmp_path: Path) -> None:
    project.import_bank(write(tmp_path / "v1.tsv", "q1_1\tA\tvital\nq1_2\tB\tokay\nq1_3\tC\n"), name="b")
    before = bank_events(project)
    assert before == [("add", "A", "vital"), ("add", "B", "okay"), ("add", "C", None)]

    # A changes its importance (same id: an edit), B stays, C goes, D is new.
    project.import_bank(
        write(tmp_path / "v2.tsv", "q1_1\tA\tokay\nq1_2\tB\tokay\nq1_3\tD\tvital\n"), name="b", replace=True
    )
    events = bank_events(project)
    assert events[: len(before)] == before
    assert sorted(events[len(before) :]) == [("add", "D", "vital"), ("delete", "C", None), ("edit", "A", "okay")]
    assert bank_items(project) == {"A": "okay", "B": "okay", "D": "vital"}
    (listed,) = project.banks()
    assert (listed["items"], listed["vital"], listed["okay"]) == (3, 1, 2)


def test_reimporting_an_unchanged_bank_appends_nothing(project: Project, tmp_path: Path) -> None:
    bank = write(tmp_path / "v1.tsv", "q1_1\tA\tvital\nq2_1\tB\n")
    project.import_bank(bank, name="b")
    project.import_bank(bank, name="b", replace=True)
    assert [op for op, *_ in bank_events(project)] == ["add", "add"]


def test_importing_a_bank_under_a_taken_name_needs_replace(project: Project, tmp_path: Path) -> None:
    project.import_bank(write(tmp_path / "v1.tsv", "q1_1\tA\n"), name="b")
    with pytest.raises(UsageError, match="already exists"):
        project.import_bank(write(tmp_path / "v2.tsv", "q1_1\tB\n"), name="b")
    assert bank_items(project) == {"A": None}
