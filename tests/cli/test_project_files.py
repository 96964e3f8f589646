"""The command line on files that are not (yet) projects: only `studio init` and the imports create a
missing one, every other command exits 2 naming it; another program's file is refused with exit
2 and left as it was; `--read-only` reads and refuses writes with exit 1. Never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli.cli_helpers import run_clirunner
from file_state import FOREIGN_DUCKDB, NOT_DUCKDB, duckdb_catalog, folder_state
from helpers import cli

from studio.cli.errors import ExitCode
from studio.services.project import Project
from studio.store.file_identity import APPLICATION, MARK_TABLE
from studio.store.migrations import LATEST_VERSION

# Commands that read or change a project, one or more of each family; none may create one.
NOT_CREATING = [
    ["list"],
    ["check"],
    ["refresh"],
    ["tui"],
    ["eval", "--qrels", "human"],
    ["label", "--qrels", "human", "1001", "d1", "2"],
    ["undo"],
    ["history"],
    ["judge", "--backend", "simulated", "--name", "sim"],
    ["judges", "list"],
    ["derive", "--from", "exam", "--bank", "questions"],
    ["bank", "list", "questions"],
    ["audit", "list"],
    ["export", "qrels", "human", "--out", "human.qrels"],
    ["report", "--out", "report"],
]


def no_project(path: Path) -> str:
    return f"error: no project at {path}; `studio init {path}` creates one, imports create it too\n"


@pytest.mark.parametrize("command", NOT_CREATING, ids=" ".join)
def test_a_command_that_does_not_create_exits_2_on_a_missing_file(tmp_path: Path, command: list[str]) -> None:
    path = tmp_path / "typo.duckdb"
    result = cli(path, *command)  # an exception would propagate: no traceback
    assert (result.exit_code, result.stdout, result.stderr) == (ExitCode.BAD_INPUT, "", no_project(path))
    assert list(tmp_path.iterdir()) == []


def test_the_default_project_file_is_not_created_either(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    done = run_clirunner(["list"], tmp_path)
    assert (done.code, done.stderr) == (ExitCode.BAD_INPUT, no_project(Path("studio.duckdb")))
    assert not (tmp_path / "studio.duckdb").exists()


@pytest.mark.parametrize(
    "command",
    [["init"], ["import", "topics", "TOPICS"], ["import", "qrels", "QRELS", "--name", "human"]],
    ids=" ".join,
)
def test_init_and_the_imports_create_a_missing_project(tmp_path: Path, command: list[str]) -> None:
    files = {"TOPICS": tmp_path / "topics.tsv", "QRELS": tmp_path / "qrels.txt"}
    files["TOPICS"].write_text("1001\tboiling point of water\n", encoding="utf-8")
    files["QRELS"].write_text("1001 0 d1 2\n", encoding="utf-8")
    path = tmp_path / "new" / "p.duckdb"
    result = cli(path, *[str(files.get(arg, arg)) for arg in command])
    assert result.exit_code == ExitCode.OK, result.stderr
    checked = cli(path, "check")
    assert checked.exit_code == ExitCode.OK, checked.stdout
    assert not list(path.parent.glob("*.creating*"))


def test_init_names_what_it_made_and_keeps_a_project_already_there(tmp_path: Path) -> None:
    path = tmp_path / "p.duckdb"
    made = cli(None, "init", path, "--format", "json")
    assert made.exit_code == ExitCode.OK
    assert json.loads(made.stdout)["created"] is True
    with Project.open(path) as project:
        project.import_qrels(_write(tmp_path / "qrels.txt", "1001 0 d1 2\n"), name="human")
    again = cli(path, "init")
    kept = f"kept the studio project already at {path} (schema version {LATEST_VERSION})\n"
    assert (again.exit_code, again.stdout) == (ExitCode.OK, kept)
    with Project.open(path, create=False) as project:
        assert [row["name"] for row in project.label_sets()] == ["human"]
        assert project.db.cursor().execute(f"SELECT application FROM {MARK_TABLE}").fetchall() == [(APPLICATION,)]


@pytest.mark.parametrize("kind", sorted(FOREIGN_DUCKDB))
@pytest.mark.parametrize("command", [["import", "topics", "TOPICS"], ["init"], ["check"]], ids=" ".join)
def test_another_programs_duckdb_file_is_refused_with_exit_2(tmp_path: Path, kind: str, command: list[str]) -> None:
    make, why = FOREIGN_DUCKDB[kind]
    folder = tmp_path / "theirs"
    folder.mkdir()
    path = folder / "their.duckdb"
    make(path)
    topics = _write(tmp_path / "topics.tsv", "1001\tboiling point of water\n")
    before, catalog = folder_state(folder), duckdb_catalog(path)
    result = cli(path, *[str(topics) if arg == "TOPICS" else arg for arg in command])
    assert (result.exit_code, result.stdout) == (ExitCode.BAD_INPUT, "")
    assert result.stderr.startswith(f"error: {path} is not a studio project: ") and why in result.stderr
    assert result.stderr.count("\n") == 1
    assert folder_state(folder) == before and duckdb_catalog(path) == catalog


@pytest.mark.parametrize("kind", sorted(NOT_DUCKDB))
def test_a_file_that_is_not_duckdb_is_refused_with_exit_2(tmp_path: Path, kind: str) -> None:
    make, why = NOT_DUCKDB[kind]
    path = tmp_path / "p.duckdb"
    make(path)
    before = folder_state(tmp_path)
    result = cli(path, "list")
    assert (result.exit_code, result.stdout) == (ExitCode.BAD_INPUT, "")
    assert result.stderr.startswith(f"error: {path} is not a studio project: it is ") and why in result.stderr
    assert result.stderr.count("\n") == 1
    assert folder_state(tmp_path) == before


@pytest.mark.parametrize("how", ["option", "environment"])
def test_read_only_when_asked_reads_and_refuses_writes_with_exit_1(tmp_path: Path, how: str) -> None:
    path = tmp_path / "p.duckdb"
    with Project.open(path) as project:
        project.import_qrels(_write(tmp_path / "qrels.txt", "1001 0 d1 2\n1001 0 d2 0\n"), name="human")
    before = folder_state(tmp_path)
    asked = (["--read-only"], None) if how == "option" else ([], {"STUDIO_READ_ONLY": "1"})
    listed = cli(None, "--db", path, *asked[0], "list", "qrels", "--format", "json", env=asked[1])
    assert listed.exit_code == ExitCode.OK and [row["name"] for row in json.loads(listed.stdout)] == ["human"]
    edit = cli(None, "--db", path, *asked[0], "label", "--qrels", "human", "1001", "d1", "0", env=asked[1])
    assert (edit.exit_code, edit.stdout) == (ExitCode.RUNTIME_ERROR, "")
    assert edit.stderr == f"error: {path} is read-only (reading only was asked for); nothing was written\n"
    assert folder_state(tmp_path) == before


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path
