"""The Judges screen driven through Pilot: what a run did is read from its JudgeFinished message
and from the project file, never from the status text."""

from __future__ import annotations

import itertools
import threading
from pathlib import Path
from typing import Any

import pytest
from fakes import ScriptedBackend
from helpers import judge_all
from textual.pilot import Pilot
from textual.widgets import DataTable, Input, Select
from tui_helpers import Messages, drive, settle, until

from studio.domain.judging import JudgeConfig
from studio.judges.backend import ChatRequest, ChatResult
from studio.judges.simulated import SimulatedBackend
from studio.services.project import Project
from studio.tui.app import StudioApp
from studio.tui.messages import JudgeFinished, JudgeProgressed
from studio.tui.screens.judges import JudgesScreen

PAIRS = 280  # every human-labelled pair of the sample project


def ended(messages: Messages, count: int = 1) -> bool:
    return len(messages.of(JudgeFinished)) >= count


def saved_judgments(project: Project, label_set: str) -> int:
    found = (
        project.db.cursor()
        .execute(
            "SELECT count(*) FROM judgments JOIN judge_runs USING (judge_run_id) JOIN label_sets USING (label_set_id)"
            " WHERE name = ?",
            [label_set],
        )
        .fetchone()
    )
    return int(found[0]) if found else 0


def test_a_simulated_judge_runs_to_completion_from_the_judges_screen(sample: Path) -> None:
    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        assert isinstance(app.screen, JudgesScreen)
        app.screen.query_one("#name", Input).value = "sim-from-tui"
        await pilot.press("ctrl+s")
        await settle(pilot, lambda: ended(messages))
        [finished] = messages.of(JudgeFinished)
        assert finished.error is None and finished.summary is not None
        assert (finished.label_set, finished.summary.pairs, finished.summary.calls, finished.summary.failures) == (
            "sim-from-tui",
            PAIRS,
            PAIRS,
            0,
        )
        progress = [m.progress for m in messages.of(JudgeProgressed)]
        assert progress and all(p.total == PAIRS for p in progress) and progress[-1].done <= PAIRS
        rows = {row["name"]: row for row in app.state.project.label_sets()}
        assert rows["sim-from-tui"]["pairs"] == PAIRS and rows["sim-from-tui"]["kind"] == "simulated"
        runs = [r for r in app.state.project.judge_runs() if r["label_set"] == "sim-from-tui"]
        assert len(runs) == 1 and runs[0]["calls"] == PAIRS and runs[0]["failures"] == 0

    drive(sample, steps, screen="judges")


def test_cancel_keeps_what_was_judged_and_start_resumes_from_the_cache(
    sample: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Past half the pairs the simulated judge answers only once the test has cancelled it: the
    # run cannot end first, however slow the machine (answers are written in groups meanwhile).
    answer = SimulatedBackend._answer
    cancelled = threading.Event()
    answered = itertools.count()

    def held(self: SimulatedBackend, request: ChatRequest) -> ChatResult:
        if next(answered) >= PAIRS // 2:
            cancelled.wait(timeout=120)
        return answer(self, request)

    monkeypatch.setattr(SimulatedBackend, "_answer", held)

    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        app.screen.query_one("#name", Input).value = "resumed"
        await pilot.press("ctrl+s")
        await until(pilot, lambda: len(messages.of(JudgeProgressed)) > 1)
        await pilot.press("ctrl+x")
        cancelled.set()
        await settle(pilot, lambda: ended(messages))
        assert messages.of(JudgeFinished)[0].summary is None  # cancelled: no summary
        saved = saved_judgments(app.state.project, "resumed")
        assert 0 < saved < PAIRS
        await pilot.press("ctrl+s")
        await settle(pilot, lambda: ended(messages, 2))
        summary = messages.of(JudgeFinished)[1].summary
        assert summary is not None and (summary.calls, summary.cache_hits) == (PAIRS - saved, saved)

    drive(sample, steps, screen="judges")


def test_a_judge_that_cannot_start_says_why(sample: Path) -> None:
    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        app.screen.query_one("#method", Select).value = "exam-nugget"
        app.screen.query_one("#name", Input).value = "no-bank"  # a rubric method without a bank: refused
        await pilot.press("ctrl+s")
        await settle(pilot, lambda: ended(messages))
        [finished] = messages.of(JudgeFinished)
        assert finished.summary is None and finished.error is not None and "give --bank" in finished.error
        assert "no-bank" not in {row["name"] for row in app.state.project.label_sets()}

    drive(sample, steps, screen="judges")


def test_the_failures_table_shows_the_raw_output(sample: Path) -> None:
    with Project.open(sample) as project:
        config = JudgeConfig(method="umbrela", backend="scripted", name="wordy", topics=["1001"], limit=3)
        judge_all(project.db, config, ScriptedBackend("I would say it is quite relevant."))

    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        screen = app.screen
        screen.query_one("#name", Input).value = "wordy"
        await pilot.press("ctrl+f")
        await settle(pilot, lambda: screen.query_one("#failures", DataTable).row_count == 3)
        table = screen.query_one("#failures", DataTable)
        assert all(str(table.get_row_at(i)[3]) == "I would say it is quite relevant." for i in range(3))

    drive(sample, steps, screen="judges")
