"""A blind campaign (manual, filtering and a recall sample) walked in a real terminal, every key
tried: no key leaves the campaign's screen but quitting, and no captured frame holds the LLM, its
label set, the reference's, the recall sample's, a condition's name or another screen's.

Each key tried is followed by F1, whose help is waited for before the next key: keys are handled
in order, so the frames captured up to the help's are those the key made (nothing rests on a
sleep being long enough)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from terminal_helpers import STUDIO, Terminal

from studio.domain.campaigns import PairRole
from studio.services.project import Project

pytestmark = [
    pytest.mark.terminal,
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

REPO = Path(__file__).resolve().parents[2]
REFERENCE = "nist-grades"  # the reference under a name no passage holds ("human" is in some)
FORBIDDEN = (
    "LLM",
    "umbrela",
    REFERENCE,
    "room-recall",
    "recall",
    "manual",
    "filtering",
    "post-editing",
    "qrels:",
    "Overview",
    "Leaderboard",
    "Review",
    "Bank",
    "Judges",
)
# Every key a person might try, but the grades (which walk) and quitting. The studio's keys on any
# screen, Textual's and the keys that close or confirm are tried one at a time; the rest of the
# keyboard (letters, digits, signs, moves) ten at a time, the frames between them checked too.
ONE_BY_ONE = (
    *("Escape", "F2", "F3", "F4", "F5", "F6", "F7", "F8", "F9", "F10", "F11", "F12", "C-p", "Tab", "BTab"),
    *("Enter", "Space", "C-s", "C-x", "C-f", "C-c", "a", "b", "e", "g", "h", "k", "n", "r", "s", "u", "/"),
)
REST = (
    *("c", "d", "f", "i", "j", "l", "m", "o", "p", "t", "v", "w", "x", "y", "z"),
    *("4", "5", "6", "7", "8", "9", "[", "]", "?", "-", "+", "BSpace", "DC"),
    *("Up", "Down", "Left", "Right", "PPage", "NPage", "Home", "End"),
)
KEYS = (*ONE_BY_ONE, *(" ".join(REST[i : i + 10]) for i in range(0, len(REST), 10)))
SHORT_SWEEP = ("Escape", "F2", "F3", "F4", "F5", "F6", "C-p", "b", "h", "a", "k", "s", "Enter")
HELP = "You grade how relevant"
STATUS = re.compile(r"campaign room · bob · pair (\d+) of (\d+) · (\d+)/\d+ graded")


def studio(env: dict[str, str], db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(STUDIO), "--db", str(db), *args], capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr
    return done


def chrome(frame: str) -> str:
    """What the studio wrote on the frame: the passage's box left out (a passage may say "manually")."""
    kept, boxed = [], False
    for line in frame.splitlines():
        if "╭" in line:
            boxed = True
        if not boxed:
            kept.append(line)
        if "╰" in line:
            boxed = False
    return "\n".join(kept)


def blind(frame: str) -> str:
    """The frame, checked: none of the forbidden words is on it, but in the passage."""
    found = [word for word in FORBIDDEN if word in chrome(frame)]
    assert not found, f"{found} on the screen:\n{frame}"
    return frame


def on_pair(frame: str) -> re.Match[str] | None:
    """The status line once no grade is being saved (the screen's "saving…"; a passage may say "saving")."""
    found = STATUS.search(frame)
    return found if found is not None and "saving…" not in chrome(frame) else None


def wait_for(terminal: Terminal, found: Callable[[str], object], what: str, seconds: float = 30) -> str:
    """The first frame `found` holds for, looked for often (a walk of many keys); fails after `seconds`."""
    return terminal.wait_for(found, seconds, what, every=0.03)


def try_key(terminal: Terminal, key: str, position: int) -> None:
    """Press `key`, then F1 (its help tells the key was handled), checking every frame; close the
    help and find the campaign at the same pair."""
    terminal.press(*key.split())
    terminal.press("F1")
    wait_for(terminal, lambda s: HELP in blind(s), f"F1's help after {key}")
    terminal.press("Escape")
    frame = wait_for(terminal, lambda s: HELP not in blind(s) and on_pair(s) is not None, f"the pair after {key}")
    found = on_pair(frame)
    assert found is not None and int(found.group(1)) == position + 1, frame


def grade(terminal: Terminal, key: str, graded: int) -> str:
    terminal.press(key)
    return wait_for(
        terminal, lambda s: (f"{graded + 1}/" in blind(s) and on_pair(s)) or "Every pair" in s, f"grade {graded + 1}"
    )


def test_every_key_of_a_blind_campaign_leaves_no_trace_of_the_llm(terminal: Terminal, tmp_path: Path) -> None:
    terminal.env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), terminal.env.get("PYTHONPATH")]))
    env = terminal.env
    db = tmp_path / "demo.duckdb"
    studio(env, db, "demo", "--no-tui")
    studio(env, db, "import", "qrels", str(REPO / "sample_data" / "qrels" / "human.txt"), "--name", REFERENCE)
    studio(
        env,
        db,
        *("assess", "plan", "--name", "room", "--llm", "umbrela-smol", "--pool", f"qrels:{REFERENCE}"),
        *("--manual", "1", "--filtering", "1", "--recall-sample", "4", "--seed", "5"),
    )
    with Project.open(db) as project:
        session = project.walk_campaign("room", person="bob")
        session.load()
        recall = {i for i, pair in enumerate(session.pairs) if pair.role is PairRole.recall}
        filtering = next(i for i, pair in enumerate(session.pairs) if str(pair.topic_condition) == "filtering")
        total = len(session.pairs)
    assert recall and max(recall) < total - 1
    terminal.start([str(STUDIO), "--db", str(db), "tui", "--assess", "room", "--assessor", "bob"])
    wait_for(terminal, lambda s: on_pair(blind(s)) is not None, "the first pair", 60)
    for key in KEYS:
        try_key(terminal, key, 0)
    for position in range(total):
        if position in (min(recall), filtering):
            for key in SHORT_SWEEP:
                try_key(terminal, key, position)
        frame = grade(terminal, str(position % 4), position)
        if position % 9 == 4:  # an undo now and then: the pair again, with the grade taken back
            terminal.press("u")
            wait_for(terminal, lambda s: "You had graded this pair" in blind(s), "the undone pair")
            frame = grade(terminal, str(position % 4), position)
        blind(frame)
    wait_for(terminal, lambda s: "Every pair given to you is graded" in blind(s), "the end of the walk")
    terminal.press("q")
    wait_for(terminal, lambda _: terminal.exit_status() is not None, "the studio closed")
    assert terminal.exit_status() == 0
    shown = json.loads(studio(env, db, "assess", "show", "room", "--format", "json").stdout)
    assert shown["judged"] == shown["shown"] and shown["recall_judged"] == shown["recall_sample"] == 4
