"""The Review screen's first frame is drawn once its first pair is in (`studio.tui.first_frame`),
and a queue that takes longer than the hold still shows that it is being built, without an empty
pair panel and history under its status line."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest
from tui_helpers import text_of, until

from studio.services.project import Project
from studio.services.review.session import ReviewSession
from studio.tui import first_frame
from studio.tui.app import StudioApp
from studio.tui.screens.review import ReviewScreen


def loaded(app: StudioApp) -> bool:
    return isinstance(app.screen, ReviewScreen) and app.screen.loaded


def run_review(path: Path, frames: list[bool], body: Any) -> None:
    """Open Review on `path`, noting for each frame drawn whether its queue was in, and run `body`."""

    async def main() -> None:
        with Project.open(path) as project:
            app = StudioApp(project, screen="review", person="tester")
            display = app._display

            def drawn(screen: Any, renderable: Any) -> None:
                if renderable is not None and not app._batch_count:  # Textual draws it (else it drops it)
                    frames.append(loaded(app))
                display(screen, renderable)

            app._display = drawn  # type: ignore[method-assign]
            async with app.run_test(size=(120, 36)) as pilot:
                await body(app, pilot)

    asyncio.run(main())


def test_the_first_frame_shows_the_first_pair(sample: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(first_frame, "FIRST_FRAME_WAIT", 60.0)  # only the queue ends the hold
    frames: list[bool] = []

    async def body(app: StudioApp, pilot: Any) -> None:
        await until(pilot, lambda: bool(frames) and frames[-1])
        assert "pair 1 of" in text_of(app, "#status")

    run_review(sample, frames, body)
    assert frames and all(frames), f"{frames.count(False)} frames drawn before the first pair was in"


def test_a_slow_queue_is_shown_being_built(sample: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(first_frame, "FIRST_FRAME_WAIT", 0.05)
    built = threading.Event()
    load = ReviewSession.load

    def slow_load(session: ReviewSession) -> None:
        built.wait(60)  # the queue is built once a frame has shown it being built
        load(session)

    monkeypatch.setattr(ReviewSession, "load", slow_load)
    frames: list[bool] = []

    async def body(app: StudioApp, pilot: Any) -> None:
        try:
            await until(pilot, lambda: bool(frames))
            assert not loaded(app) and "Building the review queue" in text_of(app, "#status")
            assert app.screen.query_one("#pair").region.area == 0  # nothing laid out under it yet
        finally:
            built.set()
        await until(pilot, lambda: frames[-1])  # then the pair, drawn
        assert app.screen.query_one("#pair").region.area > 0

    run_review(sample, frames, body)
    assert frames[0] is False and frames[-1] is True


def test_showing_twice_and_holding_twice_are_one_hold() -> None:
    class Batching:
        def __init__(self) -> None:
            self.depth = 0
            self.timers: list[float] = []

        def batch_update(self) -> Any:
            outer = self

            class Batch:
                def __enter__(self) -> None:
                    outer.depth += 1

                def __exit__(self, *_: object) -> None:
                    outer.depth -= 1

            return Batch()

        def set_timer(self, wait: float, callback: Any) -> None:
            self.timers.append(wait)

    app, frame = Batching(), first_frame.FirstFrame()
    frame.hold(app)  # type: ignore[arg-type]
    frame.hold(app)  # type: ignore[arg-type]
    assert app.depth == 1 and app.timers == [first_frame.FIRST_FRAME_WAIT]
    frame.show()
    frame.show()
    assert app.depth == 0
