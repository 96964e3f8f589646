"""The project file is sacred: no export, report or demo writes over it, its write-ahead log or its
lock, however the path is spelled; `demo` touches only the sample's own file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from gates.conftest import fingerprint
from helpers import cli

from studio import Project

# Each export command, ending where its --out goes.
EXPORTS = [
    ("export", "qrels", "human"),
    ("export", "leaderboard", "--qrels", "human"),
    ("export", "bank", "nuggets"),
    ("export", "responses"),
]


def refused(result: object, project: Path, before: dict[str, tuple[int, str]]) -> None:
    exit_code, stderr = result.exit_code, result.stderr  # type: ignore[attr-defined]
    assert exit_code == 2, stderr
    assert "Traceback" not in stderr and "nothing is written over a project" in stderr
    assert fingerprint(project) == before


@pytest.mark.parametrize("command", EXPORTS, ids=lambda c: " ".join(c[:2]))
def test_an_export_never_writes_over_the_project_itself(command: tuple[str, ...], project: Path) -> None:
    before = fingerprint(project)
    result = cli(project, *command, "--out", project)
    refused(result, project, before)
    assert "it is a DuckDB database" in result.stderr


def spellings(project: Path, folder: Path) -> dict[str, Path]:
    """Other paths to the project file: relative with detours, a symbolic link, a hard link, a
    link to a link."""
    (folder / "sub").mkdir()
    link = folder / "link.duckdb"
    link.symlink_to(project)
    chain = folder / "chain.txt"
    chain.symlink_to(link)
    hard = folder / "hard.duckdb"
    os.link(project, hard)
    detour = Path(os.path.relpath(project)).parent / "sub" / ".." / project.name
    return {"detour": detour, "symlink": link, "chain": chain, "hard link": hard}


@pytest.mark.parametrize("spelling", ["detour", "symlink", "chain", "hard link"])
def test_nor_over_the_project_by_another_name(spelling: str, project: Path, tmp_path: Path) -> None:
    before = fingerprint(project)
    target = spellings(project, tmp_path)[spelling]
    refused(cli(project, "export", "qrels", "human", "--out", target), project, before)
    assert not target.is_symlink() or target.resolve() == project.resolve()


@pytest.mark.parametrize("companion", [".wal", ".lock", ".lock.wanted"])
def test_nor_over_the_files_beside_it(companion: str, project: Path) -> None:
    before = fingerprint(project)
    target = Path(str(project) + companion)
    result = cli(project, "export", "qrels", "human", "--out", target)
    refused(result, project, before)
    assert "belongs to the DuckDB database" in result.stderr


def test_nor_over_another_projects_file(project: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.duckdb"
    Project.open(other).close()
    before = fingerprint(other)
    result = cli(project, "export", "qrels", "human", "--out", other)
    assert result.exit_code == 2 and "it is a DuckDB database" in result.stderr
    assert fingerprint(other) == before


def test_a_report_never_writes_over_a_project(project: Path, tmp_path: Path) -> None:
    folder = tmp_path / "report"
    folder.mkdir()
    (folder / "report.html").symlink_to(project)
    before = fingerprint(project)
    result = cli(project, "report", "--out", folder)
    refused(result, project, before)


def test_an_export_to_an_ordinary_file_still_works_beside_the_project(project: Path) -> None:
    target = project.with_name("human.qrels")
    result = cli(project, "export", "qrels", "human", "--out", target)
    assert result.exit_code == 0, result.stderr
    assert target.read_text().count("\n") > 100


def test_a_killed_exports_temporary_file_is_removed_by_the_next_export(project: Path) -> None:
    target = project.with_name("out.qrels")
    gone = project.with_name(f".out.qrels.{2**22 + 17}-abc123.partial")  # above Linux's pid_max: no such process
    running = project.with_name(f".out.qrels.{os.getpid()}-def456.partial")  # a live export's
    other = project.with_name(f".other.qrels.{2**22 + 17}-abc123.partial")  # another target's
    for leftover in (gone, running, other):
        leftover.write_text("half")
    assert cli(project, "export", "qrels", "human", "--out", target).exit_code == 0
    assert not gone.exists() and running.exists() and other.exists()


# -- demo ----------------------------------------------------------------------------------------


def own_project(path: Path) -> Path:
    """A person's own project: one label set of their own, not the sample."""
    qrels = path.with_name("mine.qrels")
    qrels.write_text("q1 0 d1 1\nq1 0 d2 0\n")
    with Project.open(path) as project:
        project.import_qrels(qrels, name="mine")
    return path


def test_demo_rebuild_never_touches_the_project_studio_db_names(tmp_path: Path) -> None:
    mine = own_project(tmp_path / "mine.duckdb")
    before = fingerprint(mine)
    data = tmp_path / "data"
    env = {"STUDIO_DB": str(mine), "XDG_DATA_HOME": str(data), "HOME": str(tmp_path)}
    result = cli(None, "demo", "--no-tui", "--rebuild", env=env)
    assert result.exit_code == 0, result.stderr
    assert fingerprint(mine) == before
    assert str(data / "studio" / "demo.duckdb") in result.stderr
    with Project.open(data / "studio" / "demo.duckdb") as sample:
        assert "human" in [row["name"] for row in sample.label_sets()]


def test_demo_rebuild_refuses_a_project_that_is_not_a_sample(tmp_path: Path) -> None:
    mine = own_project(tmp_path / "mine.duckdb")
    before = fingerprint(mine)
    env = {"XDG_DATA_HOME": str(tmp_path / "data"), "HOME": str(tmp_path)}
    for args in (("demo", "--db", mine), ("--db", mine, "demo")):
        result = cli(None, *args, "--no-tui", "--rebuild", env=env)
        assert result.exit_code == 2, result.stderr
        assert "is not a sample project" in result.stderr and "Traceback" not in result.stderr
        assert fingerprint(mine) == before


def test_demo_rebuilds_a_sample_it_built_wherever_it_lies(project: Path) -> None:
    with Project.open(project) as opened:
        opened.set_label("human", "1007", "new-doc", 2)
    result = cli(None, "demo", "--db", project, "--no-tui", "--rebuild")
    assert result.exit_code == 0, result.stderr
    with Project.open(project) as opened:
        assert opened.engine.evaluator("human").labels["1007"].judged.get("new-doc") is None
