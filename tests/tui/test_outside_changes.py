"""The studio shares its project file: it holds it only while it uses it, so a command in another
terminal can write at any time; it then notices the write, updates its leaderboards and says what came in."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from terminal_helpers import STUDIO
from textual.pilot import Pilot
from tui_helpers import Messages, drive, text_of, until

from studio.tui.app import StudioApp
from studio.tui.screens.review import ReviewScreen
from studio.tui.widgets.dialog import MessageDialog


@pytest.mark.process
def test_an_edit_from_another_process_reaches_the_open_studio(sample: Path) -> None:
    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        engine = app.state.project.engine
        with app.state.engine_lock:
            before = engine.leaderboard("umbrela-smol", "nDCG@10")
            grade = engine.evaluator("umbrela-smol").labels["1001"].judged["p1001-01"]
        new = (grade + 1) % 4
        # Its workers done, the studio gives the file up after a moment without use, unasked.
        await until(pilot, lambda: not app.state.project.db.held)
        done = await asyncio.to_thread(
            subprocess.run,
            [
                str(STUDIO),
                "--db",
                str(sample),
                "--wait",
                "20",
                "label",
                "--qrels",
                "umbrela-smol",
                "1001",
                "p1001-01",
                f"{new:g}",
                "--person",
                "ana",
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr

        def noticed() -> bool:
            return any("1 new label in umbrela-smol from ana's edits" in str(n.message) for n in app._notifications)

        await until(pilot, noticed)
        with app.state.engine_lock:
            assert engine.evaluator("umbrela-smol").labels["1001"].judged["p1001-01"] == new
            after = engine.leaderboard("umbrela-smol", "nDCG@10")
        assert after != before  # the edit moved the leaderboard in memory, without reading it again
        with app.state.engine_lock:
            engine.forget_labels("umbrela-smol")
            assert engine.leaderboard("umbrela-smol", "nDCG@10") == after  # as the file has it

    drive(sample, steps, screen="leaderboard")


# Keeps the file until the test lets it go (a line on its stdin, or the pipe closed).
HOLD = """
import sys
from studio.store.database import Database
held = Database(sys.argv[1])
print("held", flush=True)
sys.stdin.readline()
held.close()
"""


@pytest.mark.process
def test_a_decision_while_another_process_keeps_the_file_is_refused_with_the_reason(sample: Path) -> None:
    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        # What TUI_WAIT_SECONDS is to people, shortened for the test, yet long enough for the keys'
        # repaint to be read before the write gives up on a busy machine; the holder keeps the file
        # until the test is done with it.
        app.state.project.db.wait = 3.0
        holder = subprocess.Popen(
            [sys.executable, "-c", HOLD, str(sample)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        assert holder.stdin is not None and holder.stdout is not None
        try:
            assert (await asyncio.to_thread(holder.stdout.readline)).strip() == "held"  # the studio let go
            screen = app.screen
            assert isinstance(screen, ReviewScreen) and screen.session is not None
            decided = len(screen.session.decided)
            first = screen.session.current()
            assert first is not None and "pair 1 of" in text_of(app, "#status")
            await pilot.press("2", "s")  # shown at once, saved behind: the next pairs come up
            assert "pair 3 of" in text_of(app, "#status") and "2 saving" in text_of(app, "#status")
            await until(pilot, lambda: isinstance(app.screen, MessageDialog))
            dialog = app.screen
            assert isinstance(dialog, MessageDialog) and dialog.title_text == "Not saved"
            assert f"in use by PID {holder.pid}" in dialog.text and "changed nothing" in dialog.text
            assert "1 decision typed after it were not saved either" in dialog.text
            await pilot.press("escape")
            await until(pilot, lambda: app.screen is screen)
            # Both taken back: the first pair is current again, nothing was decided.
            assert screen.session.current() == first and "pair 1 of" in text_of(app, "#status")
            assert "saving" not in text_of(app, "#status") and len(screen.session.decided) == decided
        finally:
            holder.stdin.close()
            holder.wait(timeout=30)

    drive(sample, steps, screen="review", qrels="umbrela-smol", ready=lambda app: getattr(app.screen, "loaded", False))
