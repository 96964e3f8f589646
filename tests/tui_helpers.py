"""Driving the studio headless: open it on a project file, wait for its workers, read widgets,
and keep every message the app handled so that tests can assert on what happened. Also the
rubric judge the TUI tests grade the sample project's nugget bank with."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

from textual.message import Message
from textual.pilot import Pilot
from textual.widgets import DataTable, Static

from studio.domain.judging import JudgeConfig
from studio.services.project import Project
from studio.tui.app import StudioApp

SIZE = (120, 36)
# Simulated exam-nugget grades of bank `nuggets`, topic 1001: a bank with coverage to show.
GRADER = JudgeConfig(method="exam-nugget", backend="simulated", name="exam-sim", bank="nuggets", topics=["1001"])
M = TypeVar("M", bound=Message)


class Messages(list[Message]):
    """The messages the app's nodes received, in order (Textual's `message_hook`)."""

    def of(self, kind: type[M]) -> list[M]:
        """Each message of `kind` once, although a bubbling message arrives at every node it passes."""
        found = {id(message): message for message in self if isinstance(message, kind)}
        return list(found.values())


async def settle(pilot: Pilot[Any], until: Callable[[], bool] | None = None, seconds: float = 30.0) -> None:
    """Let workers finish and messages land (until `until()` holds, when given)."""
    for _ in range(int(seconds / 0.02)):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        if until is None or until():
            await pilot.pause()
            return
        await pilot.pause(0.02)
    raise AssertionError("the screen never settled")


async def settle_picture(pilot: Pilot[Any], until: Callable[[], bool] | None = None) -> None:
    """Settled (see `settle`), and the picture unchanged over a few consecutive looks: what a
    snapshot waits for. Readiness alone is not enough on a busy machine: a DataTable measures new
    rows on the next Idle and repaints after that, and a chain of workers (names, then choices,
    then rows) can still be under way; the picture could otherwise be taken in between."""
    app = pilot.app
    await settle(pilot, until)
    pictures = [app.export_screenshot()]
    while len(pictures) < 4 or len(set(pictures[-4:])) > 1:
        if len(pictures) > 100:
            raise AssertionError("the screen never stopped changing")
        await pilot.pause(0.1)
        await settle(pilot, until)
        pictures.append(app.export_screenshot())


async def until(pilot: Pilot[Any], holds: Callable[[], bool], seconds: float = 30.0) -> None:
    """Wait for `holds()` while workers keep running (settle would wait for them to end)."""
    for _ in range(int(seconds / 0.02)):
        if holds():
            return
        await pilot.pause(0.02)
    raise AssertionError("never happened")


def tables_settled(app: StudioApp) -> bool:
    """DataTables size their columns on the next Idle after rows arrive; a snapshot must wait for it."""
    return not any(table._require_update_dimensions for table in app.screen.query(DataTable))


def text_of(app: StudioApp, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).visual)


def drive(
    path: Path,
    steps: Callable[[StudioApp, Pilot[Any], Messages], Awaitable[None]],
    *,
    ready: Callable[[StudioApp], bool] | None = None,
    size: tuple[int, int] = SIZE,
    **options: Any,
) -> StudioApp:
    """Run the app on the project at `path` headless (`options` as the CLI gives them), wait
    until `ready(app)` when given, and let `steps` play with it; `steps` sees every message."""
    messages = Messages()

    async def main() -> StudioApp:
        with Project.open(path) as project:
            app = StudioApp(project, person="tester", **options)
            async with app.run_test(size=size, message_hook=messages.append) as pilot:
                await settle(pilot, None if ready is None else lambda: ready(app))
                await steps(app, pilot, messages)
            return app

    return asyncio.run(main())
