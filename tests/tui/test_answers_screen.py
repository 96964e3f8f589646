"""The Answers screen driven through Textual's Pilot, and its snapshot: one (topic, system) at a time
on the sample project's answers, judged by a simulated UMBRELA (`graded`) and binary judge
(`binary`); `k` keeps a verdict, a grade key overrides it, `u` takes the last check back, each check
saved in order behind the key; leaving waits for the checks still saving; a check that cannot be
saved is taken back with a dialog; the leaderboard and τ between the methods follow every check."""

from __future__ import annotations

import asyncio
import io
import shutil
from pathlib import Path
from typing import Any

import pytest
from helpers import cli, copy_project
from rich.console import Console
from textual.pilot import Pilot
from tui_helpers import SIZE, Messages, drive, settle, settle_picture, text_of, until

from studio.domain.choices import ScreenName
from studio.domain.errors import StudioError
from studio.domain.judging import JudgeConfig
from studio.services.project import Project
from studio.tui.app import StudioApp
from studio.tui.screens.answers import AnswersScreen
from studio.tui.screens.answers_text import figures_table
from studio.tui.widgets.dialog import MessageDialog

SETS = (("umbrela", "graded"), ("binary", "binary"))


def judge_answers(path: Path) -> None:
    """`studio judge --answers --method umbrela|binary --backend simulated` on the project's answers."""
    with Project.open(path) as project:
        for method, name in SETS:
            for _ in project.judge(JudgeConfig(method=method, backend="simulated", name=name, answers=True, kappa=0.5)):
                pass


@pytest.fixture(scope="module")
def answers_template(sample_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = copy_project(sample_template, tmp_path_factory.mktemp("answers"), "sample.duckdb")
    judge_answers(path)
    return path


@pytest.fixture()
def answers_file(answers_template: Path, tmp_path: Path) -> Path:
    return copy_project(answers_template, tmp_path, "sample.duckdb")


def on_answers(app: StudioApp) -> bool:
    screen = app.screen
    return isinstance(screen, AnswersScreen) and screen.session is not None and screen.figures is not None


def screen_of(app: StudioApp) -> AnswersScreen:
    screen = app.screen
    assert isinstance(screen, AnswersScreen) and screen.session is not None
    return screen


def figures_text(app: StudioApp) -> str:
    """The leaderboard and τ as drawn (a rich Table in a Static)."""
    screen = screen_of(app)
    console = Console(width=SIZE[0], record=True, file=io.StringIO())
    console.print(figures_table(screen.figures))
    return console.export_text()


def person_edits(project: Project) -> list[tuple[str, str, float | None, str | None]]:
    """The set's person edits and undos, oldest first: (qid, docid, grade, note)."""
    return [(e["qid"], e["docid"], e["grade"], e["note"]) for e in reversed(project.label_history("graded"))]


def test_keep_and_override_are_saved_in_order_and_the_next_answer_shows(answers_file: Path) -> None:
    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        screen = screen_of(app)
        session = screen.session
        assert session is not None
        first, second = session.keys[0], session.keys[1]
        kept = session.verdicts[first]
        assert "answer 1 of 30" in text_of(app, "#status") and "0/30 checked" in text_of(app, "#status")
        head = text_of(app, "#answers-head")
        assert head.startswith("1001 boiling point of water at high altitude") and f"system {first[1]}" in head
        assert "graded (graded)" in text_of(app, "#answers-verdicts") and "binary (binary)" in text_of(
            app, "#answers-verdicts"
        )
        assert "Water boils" in text_of(app, "#answers-answer") or "boils" in text_of(app, "#answers-answer")
        await pilot.press("k")
        assert session.current() == second  # shown at once, saved behind
        await pilot.press("3")
        assert session.current() == session.keys[2]
        await settle(pilot, lambda: not screen.pending)
        assert "2/30 checked (2 now)" in text_of(app, "#status")
        before = session.verdicts  # as memory has it: equal to the file
        edits = person_edits(app.state.project)
        assert edits == [
            (first[0], f"answer/{first[1]}", kept, "answers: verdict kept"),
            (second[0], f"answer/{second[1]}", 3.0, edits[1][3]),
        ]
        assert edits[1][3] is not None and edits[1][3].startswith("answers: verdict overridden")
        assert app.state.project.answer_card("graded", *second)["verdict"] == before[second] == 3.0

    drive(answers_file, steps, ready=on_answers, answers="graded")


def test_the_leaderboard_and_tau_follow_each_saved_check(answers_file: Path) -> None:
    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        screen = screen_of(app)
        session = screen.session
        assert session is not None and screen.figures is not None
        project = app.state.project
        shown_before = figures_text(app)
        assert "τ graded–binary" in shown_before
        # Every answer of the best system graded 0: it falls to the bottom of the graded order.
        best = screen.figures.rows[0]["system"]
        for index, key in enumerate(session.keys):
            if key[1] == best:
                session.position = index
                await pilot.press("0")
                await settle(pilot, lambda: not screen.pending)
        figures = screen.figures
        assert figures is not None and figures.rows[:3] == project.answer_scores(["graded"])
        assert figures.rows[2]["system"] == best and figures.rows[2]["score"] == 0.0
        agreement = project.answer_agreement("graded", "binary")
        assert figures.agreements == [agreement]
        shown = figures_text(app)
        assert f"τ graded–binary {agreement['kendall_tau']:.2f}" in shown and shown != shown_before
        assert f"{best}" in shown and "0.000 [0.00, 0.00]" in shown

    drive(answers_file, steps, ready=on_answers, answers="graded")


def test_undo_takes_the_check_back_and_shows_its_answer(answers_file: Path) -> None:
    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        screen = screen_of(app)
        session = screen.session
        assert session is not None
        first = session.keys[0]
        judged = session.verdicts[first]
        override = "0" if judged != 0.0 else "3"
        await pilot.press(override, "u")
        assert session.current() == first and session.verdicts[first] == judged  # at once
        await settle(pilot, lambda: not screen.pending)
        assert app.state.project.answer_card("graded", *first)["verdict"] == judged
        assert "0/30 checked" in text_of(app, "#status")
        await pilot.press("u")
        await settle(pilot, lambda: not screen.pending)
        notices = [str(m.notification.message) for m in messages if type(m).__name__ == "Notify"]  # type: ignore[attr-defined]
        assert "no check of this answers label set to take back" in notices

    drive(answers_file, steps, ready=on_answers, answers="graded")


def test_leaving_waits_for_the_checks_still_saving(answers_file: Path) -> None:
    messages = Messages()

    async def main() -> None:
        with Project.open(answers_file) as project:
            app = StudioApp(project, person="tester", answers="graded")
            async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
                await settle(pilot, lambda: on_answers(app))
                screen = screen_of(app)
                app.state.engine_lock.acquire()  # the writer waits for it: the checks stay pending
                try:
                    await pilot.press("k", "k", "escape")
                    await pilot.pause()
                    assert app.screen is screen and len(screen.pending) == 2 and screen.leaving
                    notices = [str(m.notification.message) for m in messages if type(m).__name__ == "Notify"]  # type: ignore[attr-defined]
                    assert "Saving the last checks, then back to the Overview." in notices
                finally:
                    app.state.engine_lock.release()
                await settle(pilot, lambda: app.current_mode == ScreenName.overview)
                assert not screen.pending and not screen.leaving
                assert len(project.label_history("graded")) == 2

    asyncio.run(main())


def test_a_check_that_cannot_be_saved_is_taken_back_with_a_dialog(
    answers_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        screen = screen_of(app)
        session = screen.session
        assert session is not None
        project = app.state.project
        first = session.keys[0]
        judged = session.verdicts[first]

        def refuse(*args: object, **kwargs: object) -> None:
            raise StudioError("the project file is in use by PID 4242 (another studio); it changed nothing")

        monkeypatch.setattr(project, "set_answer_verdict", refuse)
        app.state.engine_lock.acquire()  # both keys are decided before the first write is tried
        try:
            await pilot.press("3", "k")
            assert session.current() == session.keys[2] and len(screen.pending) == 2
        finally:
            app.state.engine_lock.release()
        await until(pilot, lambda: isinstance(app.screen, MessageDialog))
        dialog = app.screen
        assert isinstance(dialog, MessageDialog) and dialog.title_text == "Not saved"
        assert "in use by PID 4242" in dialog.text and "1 check made after it were not saved either" in dialog.text
        assert session.current() == first and session.verdicts[first] == judged and not session.checked
        assert not screen.pending and project.label_history("graded") == []
        await pilot.press("escape")
        await settle(pilot)
        assert "answer 1 of 30" in text_of(app, "#status") and "0/30 checked" in text_of(app, "#status")

    drive(answers_file, steps, ready=on_answers, answers="graded")


def test_a_write_elsewhere_is_read_afresh_at_the_same_answer(answers_file: Path) -> None:
    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        screen = screen_of(app)
        session = screen.session
        assert session is not None
        await pilot.press("]", "]")
        shown = session.keys[2]
        elsewhere = session.keys[5]
        before = screen.figures
        value = 0.0 if session.verdicts[elsewhere] != 0.0 else 3.0
        app.state.project.set_answer_verdict("graded", *elsewhere, value)  # as `studio label` would
        screen.project_changed()
        await settle(pilot, lambda: on_answers(app) and screen.session is not session)
        fresh = screen.session
        assert fresh is not None and fresh.current() == shown and fresh.verdicts[elsewhere] == value
        assert elsewhere in fresh.checked and "1/30 checked" in text_of(app, "#status")
        assert screen.figures is not None and before is not None
        assert screen.figures.rows[:3] == app.state.project.answer_scores(["graded"]) != before.rows[:3]

    drive(answers_file, steps, ready=on_answers, answers="graded")


def test_f7_opens_the_first_answers_set_and_m_the_next(answers_file: Path) -> None:
    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        await pilot.press("f7")
        await settle(pilot, lambda: on_answers(app))
        screen = screen_of(app)
        assert screen.session is not None and screen.session.label_set == "binary"  # the first by name
        assert "overrides" in text_of(app, "#answers-head") and "`0/1`" in text_of(app, "#answers-head")
        await pilot.press("2")  # off a binary set's scale: refused, nothing queued
        assert not screen.pending and screen.session.position == 0
        await pilot.press("m")
        await settle(pilot, lambda: on_answers(app))
        assert screen.session is not None and screen.session.label_set == "graded"
        assert app.state.answers == "graded"

    drive(answers_file, steps)


def test_an_answers_set_the_project_lacks_is_refused_before_the_screen(answers_file: Path) -> None:
    refused = cli(answers_file, "tui", "--answers", "nope")
    assert refused.exit_code == 2
    assert "--answers nope: the project has no such answers label set; its answers label sets: binary, graded" in (
        refused.stderr
    )


# -- snapshot -------------------------------------------------------------------------------------


@pytest.fixture()
def snapshot_file(answers_template: Path, tmp_path: Path) -> Path:
    """A copy named as the header shows it."""
    target = tmp_path / "snap" / "sample.duckdb"
    target.parent.mkdir()
    shutil.copyfile(answers_template, target)
    return target


def test_snapshot_answers_after_a_check(snapshot_file: Path, snap_compare: Any) -> None:
    async def run(pilot: Pilot[Any]) -> None:
        await settle_picture(pilot, lambda: on_answers(pilot.app))  # type: ignore[arg-type]
        await pilot.press("k")
        await settle_picture(pilot, lambda: not screen_of(pilot.app).pending)  # type: ignore[arg-type]

    with Project.open(snapshot_file) as project:
        app = StudioApp(project, person="tester", answers="graded")
        assert snap_compare(app, terminal_size=SIZE, run_before=run)
