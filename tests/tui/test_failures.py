"""How the studio fails: an error meant for a person opens a dialog and the studio goes on; a bug
ends it with exit status 1 and its traceback in a file named on stderr, never a silent 0. And
`studio tui` refuses, before the app starts, a label set or an audit the project lacks."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest
from helpers import cli
from terminal_helpers import STUDIO
from textual.pilot import Pilot
from textual.widgets import Select
from tui_helpers import SIZE, Messages, drive, until

from studio.domain.errors import UsageError
from studio.domain.specs import AuditDrawSpec
from studio.services.project import Project
from studio.tui.app import StudioApp, exit_status
from studio.tui.screens.leaderboard import LeaderboardScreen
from studio.tui.widgets.dialog import MessageDialog

LLM = "umbrela-smol"


def test_an_error_meant_for_a_person_opens_a_dialog_and_the_studio_goes_on(
    sample: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refused(self: Project, ref: str, qrels: str, measure: str, **options: Any) -> Any:
        raise UsageError(f"no leaderboard for {qrels} today")

    monkeypatch.setattr(Project, "leaderboard_view", refused)

    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        await pilot.press("f3")
        await until(pilot, lambda: isinstance(app.screen, MessageDialog))
        dialog = app.screen
        assert isinstance(dialog, MessageDialog) and dialog.text == f"no leaderboard for {LLM} today"
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, LeaderboardScreen))
        await pilot.pause(0.5)
        assert isinstance(app.screen, LeaderboardScreen) and app.is_running  # not failing again on its own

    app = drive(sample, steps, qrels=LLM)
    assert app.crash is None and exit_status(app) == 0


def test_a_bug_in_a_worker_ends_the_studio_with_status_1_and_a_crash_report(
    sample: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(self: Project) -> Any:
        raise KeyError("a bug in the overview")

    monkeypatch.setattr(Project, "overview", broken)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))

    async def run(app: StudioApp) -> None:
        async with app.run_test(size=SIZE) as pilot:
            deadline = time.monotonic() + 30
            while app.is_running and time.monotonic() < deadline:
                await pilot.pause(0.05)

    with Project.open(sample) as project:
        app = StudioApp(project)
        with pytest.raises(KeyError, match="a bug in the overview"):  # Textual's test driver raises it again
            asyncio.run(run(app))
    assert not app.is_running and app.return_code == 1 and isinstance(app.crash, KeyError)
    capsys.readouterr()
    assert exit_status(app) == 1
    stderr = capsys.readouterr().err
    [report] = tmp_path.glob("studio-crash-*.txt")
    assert str(report) in stderr and "KeyError" in stderr
    text = report.read_text(encoding="utf-8")
    assert text.startswith("Traceback") and "def broken" not in text and "a bug in the overview" in text
    assert "in broken" in text  # the whole traceback, down to the failing function


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (
            ["--screen", "review", "--ref", "human", "--qrels", "nope"],
            "--qrels nope: the project has no such label set",
        ),
        (["--ref", "nope"], "--ref nope: the project has no such label set"),
        (["--ref", "human", "--qrels", "human"], "both name human"),
    ],
)
def test_tui_refuses_a_label_set_the_project_lacks_naming_those_it_has(
    sample: Path, options: list[str], said: str
) -> None:
    result = cli(sample, "tui", *options)
    assert result.exit_code == 2
    [line] = result.stderr.strip().splitlines()
    assert said in line and line.endswith(f"its label sets: human, {LLM}")


def test_tui_refuses_an_audit_the_project_lacks_naming_those_it_has(sample: Path) -> None:
    result = cli(sample, "tui", "--audit", "nope")
    assert result.exit_code == 2 and "its audits: none yet (studio audit plan" in result.stderr
    with Project.open(sample) as project:
        project.plan_audit(AuditDrawSpec(LLM, name="first", budget=4, design="pairs"))
    result = cli(sample, "tui", "--audit", "nope")
    assert result.exit_code == 2 and result.stderr.strip().endswith("its audits: first")


@pytest.mark.process
def test_tui_with_an_unknown_label_set_exits_at_once_with_stdout_a_pipe(sample: Path) -> None:
    start = time.monotonic()
    done = subprocess.run(
        [str(STUDIO), "--db", str(sample), "tui", "--screen", "review", "--ref", "human", "--qrels", "nope"],
        capture_output=True,  # stdout a pipe
        stdin=subprocess.DEVNULL,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert "--qrels nope: the project has no such label set; its label sets: human, umbrela-smol" in done.stderr
    assert time.monotonic() - start < 30  # the command's start-up, not a wait


@pytest.mark.process
def test_tui_without_a_terminal_is_refused_instead_of_spinning(sample: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "studio", "--db", str(sample), "tui"],
        capture_output=True,
        stdin=subprocess.DEVNULL,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "the studio needs a terminal and stdin is not one" in done.stderr


def test_a_label_set_the_project_lacks_leaves_the_selector_blank_instead_of_crashing(sample: Path) -> None:
    """The command line refuses such a name; the app given one anyway says so in a dialog."""

    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        await pilot.press("f3")
        await until(pilot, lambda: isinstance(app.screen, MessageDialog))
        dialog = app.screen
        assert isinstance(dialog, MessageDialog) and "nope" in dialog.text
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, LeaderboardScreen))
        await pilot.pause(0.3)
        board = app.screen
        assert isinstance(board, LeaderboardScreen) and board.named
        assert board.query_one("#qrels", Select).is_blank() and board.query_one("#ref", Select).value == "human"
        assert app.is_running

    app = drive(sample, steps, qrels="nope")
    assert app.crash is None
