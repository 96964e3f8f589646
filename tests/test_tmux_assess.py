"""A campaign walked in real terminals by two assessors in two processes at once, through all three
conditions: no captured frame of manual or filtering holds the LLM's grade (nor the key that keeps
it), every post-editing frame holds its group's announcement and the grade; a process killed with
SIGKILL loses no grade it had acknowledged; `studio check` passes afterwards."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest
from terminal_helpers import STUDIO, Terminal

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

REPO = Path(__file__).resolve().parents[1]
NOT_SAVED = "Not saved"
ROUNDS = 60  # turns of a few grades each: far more than the walk needs, so a stuck walk fails
GRADED = re.compile(r"· (\d+)/\d+ graded")  # also once every pair is: "every pair graded · 26/26 graded"
# The condition is named only under post-editing: on a blind pair the name would tell what the LLM said.
STATUS = re.compile(r"· (?:(post-editing) · )?pair \d+ of (\d+) · (\d+)/\d+ graded")
BLIND = "blind"  # manual, filtering and the recall sample, which the screen does not tell apart


def studio(env: dict[str, str], db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(STUDIO), "--db", str(db), *args], capture_output=True, text=True, timeout=60, env=env)


def settled(screen: str) -> re.Match[str] | None:
    """The status line once the screen shows a pair and no grade is being saved."""
    found = STATUS.search(screen)
    return found if found is not None and "saving…" not in screen else None  # a passage may say "saving"


def check_frame(screen: str, condition: str) -> None:
    if condition == "post-editing":
        assert "Here are all the passages that the LLM found" in screen, screen
        assert re.search(r"LLM grade: \d", screen), screen
    else:
        assert not any(word in screen for word in ("LLM", "filtering", "post-editing")), screen


def graded_count(screen: str) -> int | None:
    """How many of the pairs given to this assessor the status line says are graded."""
    found = GRADED.search(screen)
    return None if found is None else int(found.group(1))


def grade_some(terminal: Terminal, count: int, seen: set[str]) -> int | None:
    """Grade up to `count` pairs (k under post-editing, else 1), checking every frame; the grades
    the screen has acknowledged (saved) after the last one (None: every pair was graded already).

    A grade the other process kept the file from for longer than the studio waits is not saved:
    the studio says so in a dialog and takes it back; it is closed and the pair graded again."""
    acknowledged = None
    for _ in range(count):
        screen = terminal.wait_for(lambda s: settled(s) is not None or "every pair" in s, 30, "a settled pair")
        found = settled(screen)
        if found is None:
            break
        condition, graded = found.group(1) or BLIND, int(found.group(3))
        seen.add(condition)
        check_frame(screen, condition)
        terminal.press("k" if condition == "post-editing" else "1")
        screen = terminal.wait_for(
            lambda s: NOT_SAVED in s or (graded_count(s) == graded + 1 and "saving…" not in s),  # noqa: B023
            30,
            f"grade {graded + 1} saved or refused",
        )
        if NOT_SAVED in screen:
            terminal.press("enter")
            terminal.wait_for(lambda s: NOT_SAVED not in s, 30, "the dialog closed")
            continue
        acknowledged = graded + 1
    return acknowledged


def pids_of(terminal: Terminal) -> list[int]:
    pane = int(terminal.tmux("list-panes", "-t", terminal.name, "-F", "#{pane_pid}").stdout.split()[0])
    children = subprocess.run(["pgrep", "-P", str(pane)], capture_output=True, text=True).stdout.split()
    return [pane, *map(int, children)]


def test_two_assessors_in_two_terminals_walk_every_condition(terminal: Terminal, tmp_path: Path) -> None:
    terminal.env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), terminal.env.get("PYTHONPATH")]))
    env = terminal.env
    db = tmp_path / "demo.duckdb"
    assert studio(env, db, "demo", "--no-tui").returncode == 0
    made = studio(
        env,
        db,
        *("assess", "plan", "--name", "walk", "--llm", "umbrela-smol", "--pool", "qrels:human"),
        *("--manual", "1", "--filtering", "1", "--post-editing", "1", "--assessors", "alice,bob", "--seed", "4"),
    )
    assert made.returncode == 0, made.stderr
    bob = Terminal(f"{terminal.name}-bob", env)
    try:
        terminal.start([str(STUDIO), "--db", str(db), "tui", "--assess", "walk", "--assessor", "alice"])
        bob.start([str(STUDIO), "--db", str(db), "tui", "--assess", "walk", "--assessor", "bob"])
        seen: dict[str, set[str]] = {"alice": set(), "bob": set()}
        acknowledged = None
        for _ in range(ROUNDS):  # the two take turns at the file, a few pairs at a time
            if len(seen["alice"]) == 2:
                break
            acknowledged = grade_some(terminal, 3, seen["alice"]) or acknowledged
            grade_some(bob, 3, seen["bob"])
        for _ in range(ROUNDS):
            if grade_some(bob, 10, seen["bob"]) is None:
                break
        assert seen["alice"] == {BLIND, "post-editing"}
        assert seen["bob"] == {BLIND, "post-editing"}
        assert "Every pair given to you is graded" in bob.screen()
        assert "every pair" not in terminal.screen()  # alice is mid-walk
        for pid in pids_of(terminal):  # and her process dies
            os.kill(pid, signal.SIGKILL)
        bob.press("q")
    finally:
        bob.kill()
    shown: dict[str, Any] = json.loads(studio(env, db, "assess", "show", "walk", "--format", "json").stdout)
    alice = sum(row["graded"] for row in shown["assessors"] if row["assessor"] == "alice")
    assert acknowledged is not None and alice >= acknowledged > 0
    check = studio(env, db, "check")
    assert check.returncode == 0, check.stdout + check.stderr
