"""The UI thread never waits for the project file: while another process keeps it, Review keys
repaint at once and the decisions land, in order, once the file is free; no read or write of the
file runs on the UI thread, on any screen."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from tui_helpers import SIZE, Messages, drive, settle, text_of, until

from studio.services.project import Project
from studio.store.database import Database
from studio.tui.app import StudioApp
from studio.tui.screens.review import ReviewScreen
from studio.tui.widgets.review_history import HistoryList

LLM = "umbrela-smol"
KEYS = "320132"  # six grades
# The holder keeps the file until the test lets it go (a line on its stdin, or the pipe closed):
# a UI thread that waited for the file could not show the next pair of each key while it is held.
# That order, not a time, is what the test checks (timings on a busy machine are noise).
HOLD = """
import sys
from studio.store.database import Database
held = Database(sys.argv[1])
print("held", flush=True)
sys.stdin.readline()
held.close()
"""


def review_ready(app: StudioApp) -> bool:
    return isinstance(app.screen, ReviewScreen) and app.screen.loaded


def person_grades(path: Path) -> list[tuple[str, str, float]]:
    with Project.open(path) as project:
        rows = (
            project.db.cursor()
            .execute(
                "SELECT e.qid, e.docid, e.grade FROM label_events e JOIN label_sets s USING (label_set_id)"
                " WHERE s.name = ? AND e.origin = 'person' ORDER BY e.event_id",
                [LLM],
            )
            .fetchall()
        )
    return [(q, d, float(g)) for q, d, g in rows]


@pytest.mark.process
def test_keys_repaint_at_once_while_another_process_keeps_the_file(sample: Path) -> None:
    shown: dict[str, Any] = {}

    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        screen = app.screen
        assert isinstance(screen, ReviewScreen) and screen.session is not None
        session = screen.session
        shown["pairs"] = [(p["qid"], p["docid"]) for p in session.queue[: len(KEYS)]]
        app.state.project.db.wait = 60.0  # the writes wait for the holder (people wait TUI_WAIT_SECONDS)
        holder = subprocess.Popen(
            [sys.executable, "-c", HOLD, str(sample)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        assert holder.stdin is not None and holder.stdout is not None
        try:
            assert (await asyncio.to_thread(holder.stdout.readline)).strip() == "held"  # the studio let go
            for n, key in enumerate(KEYS, start=1):
                await pilot.press(key)
                assert f"pair {n + 1} of" in text_of(app, "#status")  # the next pair, before any write
            assert f"0 decided · {len(KEYS)} saving… · " in text_of(app, "#status")
            rows = screen.query_one(HistoryList).row_texts()
            assert [row.split(maxsplit=2)[2] for row in rows] == [f"grade {key} · saving…" for key in reversed(KEYS)]
            assert screen.pending and holder.poll() is None  # nothing landed while the file was held
            holder.stdin.close()  # let go: the writes land now
            await until(pilot, lambda: not screen.pending, 60)
            assert f"{len(KEYS)} decided" in text_of(app, "#status") and "saving" not in text_of(app, "#status")
        finally:
            holder.stdin.close()
            holder.wait(timeout=30)

    drive(sample, steps, screen="review", qrels=LLM, ready=review_ready)
    assert person_grades(sample) == [(q, d, float(g)) for (q, d), g in zip(shown["pairs"], KEYS, strict=True)]


class FileUse:
    """Records which threads open, read and write the project file (Database's doors to DuckDB)."""

    def __init__(self) -> None:
        self.on: bool = False
        self.calls: list[tuple[str, str]] = []  # (door, thread name)

    def wrap(self, monkeypatch: pytest.MonkeyPatch) -> None:
        for name in ("cursor", "transaction", "busy", "release", "change_counter"):
            monkeypatch.setattr(Database, name, self._recording(name, getattr(Database, name)))
        connection = Database.connection
        assert isinstance(connection, property) and connection.fget is not None
        monkeypatch.setattr(Database, "connection", property(self._recording("connection", connection.fget)))

    def _recording(self, name: str, door: Callable[..., Any]) -> Callable[..., Any]:
        def recorded(database: Database, *args: Any, **kwargs: Any) -> Any:
            if self.on:
                self.calls.append((name, threading.current_thread().name))
            return door(database, *args, **kwargs)

        return recorded

    def on_ui_thread(self) -> list[str]:
        main = threading.main_thread().name
        return [door for door, thread in self.calls if thread == main]


@pytest.fixture()
def file_use(monkeypatch: pytest.MonkeyPatch) -> Iterator[FileUse]:
    use = FileUse()
    use.wrap(monkeypatch)
    yield use


def test_no_read_or_write_of_the_project_file_runs_on_the_ui_thread(sample: Path, file_use: FileUse) -> None:
    async def main() -> None:
        with Project.open(sample) as project:
            app = StudioApp(project, screen="review", ref="human", qrels=LLM, person="tester")
            file_use.on = True  # from the app's start to its end: every screen, every key
            async with app.run_test(size=SIZE) as pilot:
                await settle(pilot, lambda: review_ready(app))
                for key in KEYS:  # six decisions, then an undo, a note and a filter
                    await pilot.press(key)
                await pilot.press("u", "f", "n")
                await pilot.pause()
                await pilot.press(*"why", "enter", "slash")
                await pilot.pause()
                await pilot.press(*"topic 1003", "enter")
                await settle(pilot, lambda: review_ready(app))
                for key in ("f3", "e", "e", "c", "f2", "r", "f5", "f6", "ctrl+f", "f4", "b"):
                    await pilot.press(key)
                    await pilot.pause(0.1)
                await settle(pilot)
                await pilot.pause(1.2)  # the idle tick gives the file up and looks for others' writes
                await settle(pilot)
            file_use.on = False

    asyncio.run(main())
    assert len(file_use.calls) > 100  # the file was used all along, by workers
    assert file_use.on_ui_thread() == []
    assert len(person_grades(sample)) == len(KEYS)  # six grades (the undo's revert is an undo event)
