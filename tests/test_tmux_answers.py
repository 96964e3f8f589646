"""The Answers screen in a real terminal (tmux) on the sample project, whose answers a simulated
UMBRELA and binary judge have judged: `k` keeps a verdict, `0` overrides one, `u` takes it back, the
leaderboard and τ between the methods follow the override, `escape` goes back to the Overview and
`F7` to the screen again; the checks are the set's person edits in `studio history`."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from terminal_helpers import STUDIO, Terminal

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

STATUS = re.compile(r"answer (\d+) of 30 · (\d+)/30 checked")


def studio(env: dict[str, str], db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(STUDIO), "--db", str(db), *args], capture_output=True, text=True, timeout=120, env=env)


def checked(screen: str) -> tuple[int, int] | None:
    """(answer shown, answers checked) from the status line, once nothing is saving."""
    found = STATUS.search(screen)
    return None if found is None or "saving" in screen else (int(found.group(1)), int(found.group(2)))


def row_of(screen: str, system: str) -> str:
    return next(line for line in screen.splitlines() if line.strip().startswith(system + " "))


def test_the_answers_screen_keeps_overrides_and_undoes_in_a_terminal(terminal: Terminal, tmp_path: Path) -> None:
    env = terminal.env
    db = tmp_path / "demo.duckdb"
    assert studio(env, db, "demo", "--no-tui").returncode == 0
    for method, name in (("umbrela", "graded"), ("binary", "binary")):
        judged = studio(env, db, "judge", "--answers", "--method", method, "--backend", "simulated", "--name", name)
        assert judged.returncode == 0, judged.stderr
    terminal.start([str(STUDIO), "--db", str(db), "tui", "--answers", "graded"])

    screen = terminal.wait_for(lambda s: checked(s) == (1, 0) and "τ graded–binary" in s, 30, "the first answer")
    assert "1001 boiling point of water at high altitude" in screen and "`0–3` overrides it" in screen
    assert "graded (graded)" in screen and "binary (binary)" in screen
    system = re.search(r"system (\S+) · verdict", screen)
    assert system is not None
    terminal.press("k")
    screen = terminal.wait_for(lambda s: checked(s) == (2, 1), 10, "the next answer after k")
    second = re.search(r"system (\S+) · verdict (\S+)", screen)
    assert second is not None and second.group(2) != "0", screen  # the simulated judge's seeded grade
    before = row_of(screen, second.group(1))
    terminal.press("0")
    screen = terminal.wait_for(lambda s: checked(s) == (3, 2), 10, "the next answer after 0")
    after = terminal.wait_for(lambda s: row_of(s, second.group(1)) != before, 10, "the leaderboard after 0")
    assert "τ graded–binary" in after
    terminal.press("u")
    screen = terminal.wait_for(lambda s: checked(s) == (2, 1), 10, "the overridden answer again after u")
    assert f"system {second.group(1)} · verdict {second.group(2)}" in screen
    terminal.wait_for(lambda s: row_of(s, second.group(1)) == before, 10, "the leaderboard as before")

    terminal.press("Escape")
    terminal.wait_for(lambda s: "Overview" in s and "10 topics" in s, 10, "the Overview")
    terminal.press("F7")
    terminal.wait_for(lambda s: checked(s) == (2, 1), 10, "the Answers screen again")
    terminal.press("q")
    deadline = time.monotonic() + 10
    while (status := terminal.exit_status()) is None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert status == 0, f"studio still running or failed (status {status}):\n{terminal.screen()}"

    history = studio(env, db, "history", "--qrels", "graded", "-f", "json")
    assert history.returncode == 0, history.stderr
    events = list(reversed(json.loads(history.stdout)))  # oldest first: kept, overridden, undone
    assert [e["origin"] for e in events] == ["person", "person", "undo"]
    assert events[0]["note"] == "answers: verdict kept" and events[0]["docid"] == f"answer/{system.group(1)}"
    assert events[1]["grade"] == 0.0 and events[1]["docid"] == f"answer/{second.group(1)}"
    assert events[2]["undoes"] == events[1]["event"]
