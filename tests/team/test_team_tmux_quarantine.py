"""A quarantined event as a person meets it, in a real terminal: another member appended an
event whose grade is not a number straight on the server; `studio sync` in bob's shell names it
and goes on, `studio team status` lists it, `studio check` notes it (and passes: it was never
applied), and the coordinator's `studio team quarantine` shows bob's report."""

from __future__ import annotations

import json
import shlex
import shutil

import pytest
from team.team_helpers import COORDINATOR, Team, append_raw, human_pairs
from terminal_helpers import STUDIO, Terminal

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

WHEN = "2026-03-01 10:00:00.000000"


def run(terminal: Terminal, *words: str) -> None:
    terminal.press(shlex.join(words), "Enter")


def test_a_quarantined_event_in_status_and_check(joined: Team, terminal: Terminal) -> None:
    (q1, d1), (q2, d2) = human_pairs(joined, 2)
    bad = {"qrels": "human", "qid": q1, "docid": d1, "made_at": WHEN, "grade": "three", "parent": None, "note": None}
    append_raw(joined, "alice", 1, "label", json.dumps(bad))
    append_raw(joined, "alice", 2, "label", json.dumps({**bad, "qid": q2, "docid": d2, "grade": 2}))
    terminal.env.update(joined.cluster.env())
    terminal.start(["bash", "--norc", "--noprofile"], size=(200, 50))
    terminal.wait_for(lambda s: s.strip() != "", 10, "the shell's prompt")
    bob, coordinator = str(joined.path("bob")), str(joined.path(COORDINATOR))
    run(terminal, str(STUDIO), "--db", bob, "sync")
    screen = terminal.wait_for(lambda s: "quarantined: alice #1 (label)" in s, 60, "sync naming the quarantined event")
    assert "grade is not a number" in screen and "Traceback" not in screen
    terminal.press("clear", "Enter")
    run(terminal, str(STUDIO), "--db", bob, "team", "status")
    # `team status` lists it in a table of its own: whose event, its sequence, why.
    screen = terminal.wait_for(lambda s: "Quarantined events" in s and "grade is not a number" in s, 30, "team status")
    assert any(
        line.split("│")[0].strip() == "alice" and line.split("│")[1].strip() == "1"
        for line in screen.splitlines()
        if line.count("│") >= 4
    )
    terminal.press("clear", "Enter")
    run(terminal, str(STUDIO), "--db", bob, "check")
    screen = terminal.wait_for(lambda s: "1 pulled event quarantined" in s, 60, "check noting it")
    assert "FAIL" not in screen
    terminal.press("clear", "Enter")
    run(terminal, str(STUDIO), "--db", coordinator, "team", "quarantine")
    screen = terminal.wait_for(lambda s: "Quarantined events" in s and "bob" in s, 30, "the coordinator's view")
    assert "alice" in screen
