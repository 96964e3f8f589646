"""Review's filter text `pair A B`, typed at the `/` prompt, narrows the queue to the labels the
two runs' significance decision hangs on (`Project.decision_labels`), the most deciding first."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from tui_helpers import Messages, drive, settle, text_of

from studio.tui.app import StudioApp
from studio.tui.screens.review import ReviewScreen
from studio.tui.widgets.dialog import MessageDialog

RUN_A, RUN_B = "rerank-strong", "lexical-bm25"


def queue_loaded(app: StudioApp) -> bool:
    return isinstance(app.screen, ReviewScreen) and app.screen.loaded


def narrowed(app: StudioApp) -> bool:
    screen = app.screen
    return (
        isinstance(screen, ReviewScreen)
        and screen.session is not None
        and screen.session.filters.decision_pair is not None
    )


def test_typing_pair_narrows_the_queue_to_the_decisions_labels(sample: Path) -> None:
    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        await settle(pilot, lambda: queue_loaded(app))
        screen = app.screen
        assert isinstance(screen, ReviewScreen) and screen.session is not None
        everything = len(screen.session.queue)
        await pilot.press("slash")
        await pilot.pause()
        await pilot.press(*f"pair {RUN_A} {RUN_B}", "enter")
        await settle(pilot, lambda: queue_loaded(app) and narrowed(app))
        screen = app.screen
        assert isinstance(screen, ReviewScreen) and screen.session is not None
        session = screen.session
        behind = app.state.project.decision_labels(session.ref, session.qrels, RUN_A, RUN_B)["labels"]
        assert behind, "the sample's LLM disagrees with people on documents both runs rank"
        assert [(p["qid"], p["docid"]) for p in session.queue] == [(r["qid"], r["docid"]) for r in behind]
        assert len(session.queue) < everything
        assert f"the labels behind {RUN_A} vs {RUN_B}" in text_of(app, "#status")

    drive(sample, steps, screen="review")


def test_a_pair_of_one_run_is_refused_and_the_queue_stays(sample: Path) -> None:
    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        await settle(pilot, lambda: queue_loaded(app))
        screen = app.screen
        assert isinstance(screen, ReviewScreen) and screen.session is not None
        before = [(p["qid"], p["docid"]) for p in screen.session.queue]
        await pilot.press("slash")
        await pilot.pause()
        await pilot.press(*f"pair {RUN_A}", "enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReviewScreen) and screen.session is not None
        assert screen.session.filters.decision_pair is None
        assert [(p["qid"], p["docid"]) for p in screen.session.queue] == before

    drive(sample, steps, screen="review")


def test_a_run_the_project_lacks_is_named_in_an_error_dialog(sample: Path) -> None:
    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        await settle(pilot, lambda: queue_loaded(app))
        await pilot.press("slash")
        await pilot.pause()
        await pilot.press(*f"pair {RUN_A} nobody", "enter")
        await settle(pilot, lambda: isinstance(app.screen, MessageDialog))
        assert "no run named 'nobody'" in text_of(app, "#dialog-text")

    drive(sample, steps, screen="review")
