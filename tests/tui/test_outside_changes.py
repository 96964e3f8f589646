"""The studio shares its project file: idle, it gives the file up, so a command in another
terminal can write; it then notices the write, updates its leaderboards and says what came in."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path
from typing import Any

from terminal_helpers import STUDIO
from textual.pilot import Pilot
from tui_helpers import Messages, drive, until

from studio.tui.app import StudioApp


def test_an_edit_from_another_process_reaches_the_open_studio(sample: Path) -> None:
    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        engine = app.state.project.engine
        with app.state.engine_lock:
            before = engine.leaderboard("umbrela-smol", "nDCG@10")
            grade = engine.evaluator("umbrela-smol").labels["1001"].judged["p1001-01"]
        new = (grade + 1) % 4
        done = await asyncio.to_thread(
            subprocess.run, [str(STUDIO), "--db", str(sample), "--wait", "20", "label", "--qrels", "umbrela-smol",
                             "1001", "p1001-01", f"{new:g}", "--person", "ana"],
            capture_output=True, text=True, timeout=60)
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
