"""`studio demo` and `studio list`: exit codes, stderr diagnostics and golden stdout.

Every golden file is run through typer's CliRunner in-process; the demo's table and the JSON
overview also through a real subprocess (`python -m studio`), and both must match it exactly:
what the real entry point adds (its streams, its encoding) is the same for every listing. The
absolute repository path in `source` fields becomes `<repo>` and the temporary project path
`<project>`.

To regenerate the golden files after an intended change of output:
    STUDIO_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/cli
then review the diff of tests/cli/golden/.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from cli.cli_helpers import RUNNER_PARAMS, RUNNERS, assert_matches_golden, normalised, run_clirunner, run_subprocess


def count_row(table: str, what: str) -> int:
    found = re.search(rf"^\s*{what}\s+│\s+(\d+)\s*$", table, re.MULTILINE)
    assert found, f"no {what} row in:\n{table}"
    return int(found.group(1))


# -- studio demo ------------------------------------------------------------------------------


@pytest.mark.parametrize("runner", RUNNER_PARAMS)
def test_demo_builds_the_project_and_prints_its_counts(runner: str, tmp_path: Path) -> None:
    path = tmp_path / "demo.duckdb"
    result = RUNNERS[runner](["demo", "--no-tui", "--db", str(path)], tmp_path)
    assert result.code == 0, result.stderr
    assert path.is_file()
    expected = {"topics": 10, "documents": 280, "runs": 6, "label_sets": 2, "banks": 2, "responses": 30}
    assert {what: count_row(result.stdout, what) for what in expected} == expected
    assert "Answers" in result.stdout
    assert f"built the sample project at {path}" in result.stderr
    assert "built" not in result.stdout


def test_demo_opens_an_existing_project_without_rebuilding(tmp_path: Path) -> None:
    path = tmp_path / "demo.duckdb"
    run_clirunner(["demo", "--no-tui", "--db", str(path)], tmp_path)
    inode = path.stat().st_ino
    again = run_clirunner(["demo", "--no-tui", "--db", str(path)], tmp_path)
    assert again.code == 0, again.stderr
    assert f"opened the sample project at {path}" in again.stderr
    assert "built" not in again.stderr
    assert path.stat().st_ino == inode  # a build renames a new file into place


@pytest.mark.process  # reads the kept copy and rebuilds again through the real `studio`
def test_demo_rebuild_builds_afresh_and_drops_edits(tmp_path: Path) -> None:
    path = tmp_path / "demo.duckdb"
    run_clirunner(["demo", "--no-tui", "--db", str(path)], tmp_path)
    extra = tmp_path / "extra.txt"
    extra.write_text("1001 0 p1001-01 3\n", encoding="utf-8")
    assert run_clirunner(["--db", str(path), "import", "qrels", str(extra)], tmp_path).code == 0
    rebuilt = run_clirunner(["demo", "--no-tui", "--rebuild", "--db", str(path)], tmp_path)
    assert rebuilt.code == 0, rebuilt.stderr
    assert f"built the sample project at {path}" in rebuilt.stderr
    assert count_row(rebuilt.stdout, "label_sets") == 2  # human and umbrela-smol, not extra
    assert not list(tmp_path.glob("*.building*"))
    # It said what it dropped, and kept the old file beside the new one.
    copy = tmp_path / "demo.before-rebuild.duckdb"
    assert "drops what was written into the sample since it was built: import qrels, 1 label event;" in rebuilt.stderr
    assert str(copy) in rebuilt.stderr
    kept = run_subprocess(["--db", str(copy), "list", "qrels", "--format", "json"], tmp_path)
    assert "extra" in {row["name"] for row in json.loads(kept.stdout)}
    again = run_subprocess(["demo", "--no-tui", "--rebuild", "--db", str(path)], tmp_path)
    assert "drops" not in again.stderr and not (tmp_path / "demo.before-rebuild-2.duckdb").exists()


def test_demo_without_db_builds_in_the_user_data_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = run_clirunner(["demo", "--no-tui"], tmp_path)
    assert result.code == 0, result.stderr
    assert (tmp_path / "data" / "studio" / "demo.duckdb").is_file()
    assert not (tmp_path / "studio.duckdb").exists()


# -- golden output ----------------------------------------------------------------------------

GOLDEN_COMMANDS = {
    "demo_no_tui.txt": ["demo", "--no-tui"],
    "list_overview.json": ["list", "--format", "json"],
    "list_qrels.json": ["list", "qrels", "--format", "json"],
    "list_runs.json": ["list", "runs", "--format", "json"],
    "list_banks.json": ["list", "banks", "--format", "json"],
    "list_topics.json": ["list", "topics", "--format", "json"],
    "list_responses.json": ["list", "responses", "--format", "json"],
}


# The goldens the real entry point prints too (beside CliRunner, for every golden).
THROUGH_A_PROCESS = {"demo_no_tui.txt", "list_overview.json"}


@pytest.mark.parametrize(
    ("golden", "runner"),
    [
        *(pytest.param(golden, "subprocess", marks=pytest.mark.process) for golden in sorted(THROUGH_A_PROCESS)),
        *((golden, "clirunner") for golden in GOLDEN_COMMANDS),
    ],
)
def test_output_matches_the_golden_file(golden: str, runner: str, demo_project: Path, tmp_path: Path) -> None:
    result = RUNNERS[runner](["--db", str(demo_project), *GOLDEN_COMMANDS[golden]], tmp_path)
    assert result.code == 0, result.stderr
    assert_matches_golden(golden, normalised(result.stdout, demo_project))


def test_json_listings_follow_the_documented_shapes(demo_project: Path, tmp_path: Path) -> None:
    shapes = {
        "topics": {"qid", "text", "docs", "judged"},
        "runs": {"name", "topics", "rows"},
        "qrels": {"name", "kind", "topics", "pairs", "events"},
        "banks": {"name", "topics", "items", "vital", "okay"},
    }
    for what, keys in shapes.items():
        result = run_clirunner(["--db", str(demo_project), "list", what, "--format", "json"], tmp_path)
        rows = json.loads(result.stdout)
        assert rows and all(keys <= row.keys() for row in rows), what


def test_the_overview_table_reads_no_topic_counts_and_its_json_has_them(
    demo_project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The table shows no topics, so it does not pay for counting every pooled document (on a
    DL-scale project most of `studio list`); the JSON object keeps them."""
    from studio.services.facade.base import ProjectBase

    asked: list[str] = []
    real_topics = ProjectBase.topics

    def counted_topics(project: ProjectBase) -> object:
        asked.append("topics")
        return real_topics(project)

    monkeypatch.setattr(ProjectBase, "topics", counted_topics)
    table = run_clirunner(["--db", str(demo_project), "list"], tmp_path)
    assert table.code == 0 and count_row(table.stdout, "topics") == 10 and asked == []
    as_json = run_clirunner(["--db", str(demo_project), "list", "--format", "json"], tmp_path)
    assert as_json.code == 0 and len(json.loads(as_json.stdout)["topics"]) == 10 and asked == ["topics"]


@pytest.mark.process  # the real streams: nothing a library prints at start-up reaches them
def test_listings_print_nothing_but_data_on_stdout(demo_project: Path, tmp_path: Path) -> None:
    result = run_subprocess(["--db", str(demo_project), "list", "runs", "--format", "json"], tmp_path)
    assert result.stdout.lstrip().startswith("[")
    assert result.stderr == ""


def test_tui_refuses_an_unknown_screen(tmp_path: Path) -> None:
    result = run_clirunner(["--db", str(tmp_path / "p.duckdb"), "tui", "--screen", "reviews"], tmp_path)
    assert result.code == 2 and "'reviews' is not one of" in result.stderr and "'review'" in result.stderr


@pytest.mark.parametrize("kind", ["a folder", "the current folder as ''", "a SQLite file"])
def test_demo_rebuild_refuses_what_is_no_studio_project_untouched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    target = tmp_path / "target"
    if kind == "a SQLite file":
        target.write_bytes(b"SQLite format 3\x00" + bytes(100))
    else:
        target.mkdir()
        (target / "kept.txt").write_text("kept")
    monkeypatch.chdir(target if target.is_dir() else tmp_path)
    db = "" if kind.endswith("''") else str(target)
    before = {str(p): p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    result = run_clirunner(["demo", "--no-tui", "--rebuild", "--db", db], tmp_path)
    assert result.code == 2, result.stdout + result.stderr
    assert "is not a studio project" in result.stderr and "Traceback" not in result.stderr
    assert {str(p): p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before


def test_demo_where_no_folder_can_be_made_says_so_as_init_does(tmp_path: Path) -> None:
    """A --db under a regular file: the sample's folder cannot be made. The message and exit status
    are those of `studio init` on the same path (a runtime error, 1), never a traceback."""
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    path = blocker / "demo.duckdb"
    demo = run_clirunner(["demo", "--no-tui", "--db", str(path)], tmp_path)
    init = run_clirunner(["init", str(path)], tmp_path)
    assert demo.code == init.code == 1
    assert f"cannot create {path}" in demo.stderr and "Traceback" not in demo.stderr + demo.stdout
    assert blocker.read_text() == "not a folder"
