"""Driving the studio headless: open it on a project file, wait for its workers, read widgets."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Static

from studio.services.project import Project
from studio.tui.app import StudioApp

SIZE = (120, 36)


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


def text_of(app: StudioApp, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).visual)


def drive(path: Path, steps: Callable[[StudioApp, Pilot[Any]], Awaitable[None]], **options: Any) -> StudioApp:
    """Run the app on the project at `path` headless, and let `steps` play with it."""

    async def main() -> StudioApp:
        with Project.open(path) as project:
            app = StudioApp(project, person="tester", **options)
            async with app.run_test(size=SIZE) as pilot:
                await settle(pilot)
                await steps(app, pilot)
            return app

    return asyncio.run(main())
