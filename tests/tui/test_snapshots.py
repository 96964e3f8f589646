"""SVG snapshots of every screen on the sample project at 120x36, built through the same app
factory the CLI uses, before and after key presses. After an intended change of a screen,
regenerate with
    .venv/bin/python -m pytest tests/tui --snapshot-update
and look at the new SVGs (tests/tui/__snapshots__/) before committing them."""

from __future__ import annotations

import shutil
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Input
from tui_helpers import SIZE, settle, settle_picture, tables_settled

from studio.services.project import Project
from studio.tui.app import StudioApp
from studio.tui.screens.judges import JudgesScreen

Steps = Callable[[Pilot[Any]], Awaitable[None]]


# Judge runs are listed with when they ran: the snapshots show them at one fixed time.
JUDGED_AT = "2026-01-05 09:30:00"


def named_copy(template: Path, folder: Path) -> Path:
    """A copy named `sample.duckdb` (the header shows the name) in a folder of its own, its judge
    runs dated JUDGED_AT."""
    target = folder / f"copy-{len(list(folder.iterdir()))}" / "sample.duckdb"
    target.parent.mkdir()
    shutil.copyfile(template, target)
    with Project.open(target) as project:
        date_judge_runs(project)
    return target


def date_judge_runs(project: Project) -> None:
    project.db.cursor().execute(
        "UPDATE judge_runs SET started_at = ?::TIMESTAMP,"
        " finished_at = CASE WHEN finished_at IS NULL THEN NULL ELSE ?::TIMESTAMP END",
        [JUDGED_AT, JUDGED_AT],
    )


@pytest.fixture()
def fresh_file(sample_template: Path, tmp_path: Path) -> Path:
    """A copy of the sample project as `studio demo` builds it, named as the screens show it."""
    return named_copy(sample_template, tmp_path)


@pytest.fixture()
def project_file(graded_template: Path, tmp_path: Path) -> Path:
    """A copy of the sample project with topic 1001 graded by a rubric judge (`exam-sim`)."""
    return named_copy(graded_template, tmp_path)


def ready(app: Any) -> bool:
    screen = app.screen
    flags = ("loaded", "computed", "view")
    return all(getattr(screen, flag, True) not in (False, None) for flag in flags) and tables_settled(app)


async def settled(pilot: Pilot[Any]) -> None:
    await settle_picture(pilot, lambda: ready(pilot.app))


def after(*keys: str, prepare: Callable[[Pilot[Any]], None] | None = None) -> Steps:
    """Settle, prepare the screen, press `keys` one at a time, settle again."""

    async def run(pilot: Pilot[Any]) -> None:
        await settled(pilot)
        if prepare is not None:
            prepare(pilot)
        for key in keys:
            await pilot.press(key)
            await pilot.pause()
        await settled(pilot)

    return run


def snapshot(path: Path, screen: str, snap_compare: Any, steps: Steps = settled) -> bool:
    with Project.open(path) as project:
        app = StudioApp(project, screen=screen, ref="human", qrels="umbrela-smol")
        return bool(snap_compare(app, terminal_size=SIZE, run_before=steps))


@pytest.mark.parametrize("screen", ["leaderboard", "review", "bank", "judges"])
def test_screen_snapshot(screen: str, project_file: Path, snap_compare: Any) -> None:
    assert snapshot(project_file, screen, snap_compare)


def test_bank_before_any_grading(fresh_file: Path, snap_compare: Any) -> None:
    """Topic 1001's nuggets listed, the coverage columns blank until a grader exists."""
    assert snapshot(fresh_file, "bank", snap_compare)


def test_review_after_grading_three_and_undoing(graded_template: Path, tmp_path: Path, snap_compare: Any) -> None:
    path = named_copy(graded_template, tmp_path)
    assert snapshot(path, "review", snap_compare, after("3"))
    path = named_copy(graded_template, tmp_path)
    assert snapshot(path, "review", snap_compare, after("3", "u"))


def test_bank_after_an_edit(project_file: Path, snap_compare: Any) -> None:
    path = project_file

    def focus_items(pilot: Pilot[Any]) -> None:
        pilot.app.screen.query_one("#items", DataTable).focus()

    assert snapshot(path, "bank", snap_compare, after("e", "end", *" at 1 atm", "enter", prepare=focus_items))


def test_judges_after_a_finished_judge(project_file: Path, tmp_path: Path, snap_compare: Any) -> None:
    """A short simulated run (three pairs: its duration shows as `<1 s`) and its summary."""
    path = project_file
    with Project.open(path) as project:
        project.import_qrels(tiny_qrels(tmp_path), name="three")

    async def judge(pilot: Pilot[Any]) -> None:
        await settled(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, JudgesScreen)
        screen.query_one("#pool", Input).value = "qrels:three"
        screen.query_one("#name", Input).value = "sim-three"
        await pilot.press("ctrl+s")
        await settle(pilot, lambda: screen.finished is not None and ready(pilot.app))
        with screen.locked() as project:
            date_judge_runs(project)
        screen.load_runs()
        await settle(pilot)

    assert snapshot(path, "judges", snap_compare, judge)


def tiny_qrels(folder: Path) -> Path:
    path = folder / "three.qrels"
    path.write_text("1001 0 p1001-01 3\n1001 0 p1001-02 0\n1002 0 p1002-01 1\n", encoding="utf-8")
    return path
