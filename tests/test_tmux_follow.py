"""A calibrated set follows Review decisions made in a real terminal: six grade keys in the TUI
leave it equal, label for label, to a fresh `studio calibrate`, and `studio check` says the project
is whole (before the one write path, Review edits left it stale while check passed)."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from terminal_helpers import STUDIO, Terminal

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]


def studio(terminal: Terminal, db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(STUDIO), "--db", str(db), *args], capture_output=True, text=True, timeout=60, env=terminal.env
    )


def labels(terminal: Terminal, db: Path, name: str, folder: Path) -> set[str]:
    out = folder / f"{name}.qrels"
    assert studio(terminal, db, "export", "qrels", name, "--out", str(out)).returncode == 0
    return set(out.read_text().splitlines())


def test_six_review_decisions_leave_the_calibration_equal_to_a_fresh_one(terminal: Terminal, tmp_path: Path) -> None:
    db = tmp_path / "demo.duckdb"
    assert studio(terminal, db, "demo", "--db", str(db), "--no-tui").returncode == 0
    made = studio(terminal, db, "calibrate", "--qrels", "umbrela-smol", "--gold", "human", "--name", "cal")
    assert made.returncode == 0, made.stderr
    before = labels(terminal, db, "cal", tmp_path)

    terminal.start(
        [str(STUDIO), "--db", str(db), "tui", "--screen", "review", "--ref", "human", "--qrels", "umbrela-smol"]
    )
    terminal.wait_for(lambda s: "pair 1 of" in s and "0 decided" in s, 30, "the Review screen with its queue")
    for decided, key in enumerate(["3", "3", "2", "3", "1", "3"], start=1):
        terminal.press(key)
        shown = f"{decided} decided"
        terminal.wait_for(lambda screen: shown in screen, 10, f"decision {decided}")  # noqa: B023
    terminal.press("q")
    deadline = time.monotonic() + 15
    while (status := terminal.exit_status()) is None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert status == 0, f"studio still running or failed (status {status}):\n{terminal.screen()}"

    history: list[dict[str, Any]] = json.loads(studio(terminal, db, "history", "--format", "json").stdout)
    assert [row["origin"] for row in history] == ["person"] * 6
    after = labels(terminal, db, "cal", tmp_path)
    fresh = studio(terminal, db, "calibrate", "--qrels", "umbrela-smol", "--gold", "human", "--name", "fresh")
    assert fresh.returncode == 0, fresh.stderr
    assert after == labels(terminal, db, "fresh", tmp_path)
    assert after != before  # the decisions moved the calibration
    checked = studio(terminal, db, "check")
    assert checked.returncode == 0, checked.stdout
    assert "ok    derived" in checked.stdout
