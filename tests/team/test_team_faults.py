"""Three members in three processes against a real server, and the faults a team meets: a member
killed mid-push, the server stopped while members grade, a member offline for a day. Nothing
acknowledged is lost, nothing is duplicated, every copy ends the same."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import psycopg
from cli.cli_helpers import REPO, run_subprocess
from team.team_helpers import COORDINATOR, MEMBERS, Team, grade_some, identities, server_identities, state

from studio import Project

WORKER = Path(__file__).resolve().parent / "team_worker.py"


def worker(path: Path, how: str, team: Team) -> subprocess.Popen[str]:
    env = {**os.environ, **team.cluster.env(), "PYTHONPATH": str(REPO)}
    return subprocess.Popen([sys.executable, str(WORKER), str(path), how], env=env, text=True, stderr=subprocess.PIPE)


def sync_all(team: Team) -> None:
    for role in (*MEMBERS, *MEMBERS, COORDINATOR):
        with Project.open(team.path(role)) as project:
            assert not project.sync()["offline"]


def test_three_members_in_three_processes_end_the_same(joined: Team) -> None:
    running = [worker(joined.path(member), str(seed), joined) for seed, member in enumerate(MEMBERS)]
    for process in running:
        _, stderr = process.communicate(timeout=120)
        assert process.returncode == 0, stderr
    sync_all(joined)
    states = [state(joined.path(role)) for role in (*MEMBERS, COORDINATOR)]
    assert all(s == states[0] for s in states[1:])
    assert states[0]["check"]
    assert server_identities(joined.conninfo(COORDINATOR)) == states[0]["identities"]
    assert len(states[0]["labels"]) == 60  # every pair of the audit graded
    assert states[0]["kappa"] and states[0]["conflicts"] is not None


def test_a_member_killed_after_the_server_committed_pushes_nothing_twice(joined: Team) -> None:
    alice = joined.path("alice")
    grade_some(alice, 5)
    killed = worker(alice, "die-after-server-commit", joined)
    killed.communicate(timeout=60)
    assert killed.returncode == -signal.SIGKILL
    assert server_identities(joined.conninfo(COORDINATOR)) == [("alice", n) for n in range(1, 6)]
    with Project.open(alice) as project:
        done = project.sync()
    assert (done["pushed"], done["waiting"]) == (0, 0)  # the same identities again: the server kept one
    assert server_identities(joined.conninfo(COORDINATOR)) == identities(alice)


def test_a_member_killed_before_the_server_committed_pushes_it_all_next_time(joined: Team) -> None:
    bob = joined.path("bob")
    grade_some(bob, 4)
    killed = worker(bob, "die-before-server-commit", joined)
    killed.communicate(timeout=60)
    assert killed.returncode == -signal.SIGKILL
    assert server_identities(joined.conninfo(COORDINATOR)) == []
    with Project.open(bob) as project:
        assert project.sync()["pushed"] == 4
    sync_all(joined)
    assert state(joined.path("alice")) == state(bob)


def test_the_server_stopped_and_restarted_while_members_grade(joined: Team) -> None:
    grade_some(joined.path("alice"), 3)
    joined.cluster.stop()
    try:
        grade_some(joined.path("alice"), 4, start=3)
        grade_some(joined.path("carol"), 6)
        done = run_subprocess(
            ["--db", str(joined.path("carol")), "sync", "--format", "json"], joined.folder, joined.cluster.env()
        )
        assert done.code == 0, done.stderr
        result = json.loads(done.stdout)
        assert result["offline"] and result["waiting"] == 6 and result["pushed"] == 0
        assert "offline" in done.stderr
        listed = run_subprocess(
            ["--db", str(joined.path("carol")), "eval", "--qrels", "gold", "--format", "json"], joined.folder
        )
        assert listed.code == 0, listed.stderr  # every other command works on the copy as before
    finally:
        joined.cluster.start()
    sync_all(joined)
    states = [state(joined.path(role)) for role in (*MEMBERS, COORDINATOR)]
    assert all(s == states[0] for s in states[1:])
    assert [i for i in states[0]["identities"] if i[0] == "alice"] == [("alice", n) for n in range(1, 8)]


def test_a_day_offline_goes_up_in_order(joined: Team) -> None:
    carol = joined.path("carol")
    joined.cluster.stop()
    try:
        for sitting in range(4):  # a day of sittings, each ending in a sync that finds no server
            grade_some(carol, 5, start=sitting)
            with Project.open(carol) as project:
                assert project.sync()["offline"]
        with Project.open(carol) as project:
            status = project.team_status()
        assert status is not None and status["waiting"] == 20
        assert status["last_sync"] is not None and status["last_attempt"] is not None
        assert status["last_sync"] < status["last_attempt"]  # the join's sync reached it; the day's did not
    finally:
        joined.cluster.start()
    with Project.open(carol) as project:
        assert project.sync()["pushed"] == 20
    with psycopg.connect(joined.conninfo(COORDINATOR)) as con:
        rows = con.execute("SELECT seq, made_at FROM studio_team.events WHERE member = 'carol' ORDER BY id").fetchall()
    assert [seq for seq, _ in rows] == list(range(1, 21))  # in the order they were made
    assert [t for _, t in rows] == sorted(t for _, t in rows)
