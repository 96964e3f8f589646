"""`studio demo` in a real terminal: a detached tmux session on its own tmux server.

The test reads the screen with `tmux capture-pane`, presses keys with `tmux send-keys`, and
checks that `q` ends the program. The session and its server are always killed afterwards.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from terminal_helpers import STUDIO, Terminal

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]


def test_demo_opens_review_where_keys_decide_and_the_cli_sees_the_edits(terminal: Terminal, tmp_path: Path) -> None:
    assert STUDIO.is_file(), f"no studio console script beside {sys.executable}"
    db = tmp_path / "demo.duckdb"
    terminal.start([str(STUDIO), "demo", "--db", str(db)])

    screen = terminal.wait_for(lambda s: "pair 1 of" in s, 30, "the Review screen with its queue")
    assert "umbrela-smol" in screen and "human" in screen and "0 decided" in screen
    terminal.press("3")
    screen = terminal.wait_for(lambda s: "pair 2 of" in s and "1 decided" in s, 5, "the next pair after 3")
    assert "grade 3" in screen  # the sidebar history
    terminal.press("u")
    terminal.wait_for(lambda s: "pair 1 of" in s and "0 decided" in s, 5, "the first pair again after u")
    terminal.press("a")
    terminal.wait_for(lambda s: "pair 2 of" in s and "1 decided" in s and "accept" in s, 5, "the accepted label")

    terminal.press("F2")
    screen = terminal.wait_for(lambda s: "10 topics" in s, 10, "the Overview summary")
    assert "demo.duckdb" in screen
    assert "2 label sets (560 labels) · 2 banks" in screen  # one line: the pane is 120 wide

    terminal.press("2")
    terminal.wait_for(lambda s: "rerank-strong" in s and "weak-baseline" in s, 5, "the runs table")

    terminal.press("F1")
    terminal.wait_for(lambda s: "Overview lists" in s and "Keys" in s, 5, "the help screen")
    terminal.press("Escape")
    terminal.wait_for(lambda s: "Overview lists" not in s and "rerank-strong" in s, 5, "the Overview again")

    terminal.press("q")
    deadline = time.monotonic() + 5
    while (status := terminal.exit_status()) is None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert status == 0, f"studio still running or failed (status {status}):\n{terminal.screen()}"

    # The decisions are label events of the project file: 3, its undo, and the accepted label.
    listed = subprocess.run(
        [str(STUDIO), "--db", str(db), "list", "qrels", "--format", "json"],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
        env=terminal.env,
    )
    events = {row["name"]: row["events"] for row in json.loads(listed.stdout)}
    assert events == {"human": 280, "umbrela-smol": 283}
    history = subprocess.run(
        [str(STUDIO), "--db", str(db), "history", "--qrels", "umbrela-smol", "--format", "json"],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
        env=terminal.env,
    )
    assert [row["origin"] for row in json.loads(history.stdout)] == ["person", "undo", "person"]


def test_the_bank_screen_lists_a_topics_nuggets_before_any_grading(terminal: Terminal, tmp_path: Path) -> None:
    """`studio tui --screen bank` on a freshly built sample project, at 160x48: topic 1001's
    nuggets are on the screen although no rubric judge has graded the bank."""
    db = tmp_path / "sample.duckdb"
    subprocess.run(
        [str(STUDIO), "demo", "--db", str(db), "--no-tui"],
        capture_output=True,
        check=True,
        timeout=120,
        env=terminal.env,
    )
    listed = subprocess.run(
        [str(STUDIO), "--db", str(db), "bank", "list", "nuggets", "--topic", "1001", "--format", "json"],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
        env=terminal.env,
    )
    texts = [item["text"] for item in json.loads(listed.stdout)]
    assert len(texts) == 10

    terminal.start([str(STUDIO), "--db", str(db), "tui", "--screen", "bank"], size=(160, 48))
    screen = terminal.wait_for(lambda s: "10 items" in s, 30, "the Bank screen with topic 1001's items")
    assert "nuggets" in screen and "topic 1001" in screen and "no rubric judge has graded it yet" in screen
    # The table's rows can be painted a frame before its columns widen to their texts: wait for the
    # texts themselves, not only for the line that counts them.
    terminal.wait_for(lambda s: all(text in s for text in texts), 30, "every nugget's text in the table")
    terminal.press("q")
