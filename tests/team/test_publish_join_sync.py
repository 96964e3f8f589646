"""Publish, join and sync against a real PostgreSQL server: the base travels as a snapshot, the
grades of two members of one pair both stand under their names, and the gold grade follows the
several-assessors rules on every copy."""

from __future__ import annotations

import json
from pathlib import Path

from cli.cli_helpers import run_subprocess
from team.team_helpers import AUDIT, COORDINATOR, MEMBERS, Team, grade_some, identities, server_identities, state

from studio import Project


def test_a_joined_copy_holds_the_published_project(joined: Team) -> None:
    with Project.open(joined.path(COORDINATOR)) as coordinator, Project.open(joined.path("alice")) as alice:
        assert alice.counts() == coordinator.counts()
        assert alice.leaderboard("human", "nDCG@10") == coordinator.leaderboard("human", "nDCG@10")
        assert alice.audit_pairs(AUDIT) == coordinator.audit_pairs(AUDIT)
        assert alice.team_member() == "alice" and coordinator.team_member() == COORDINATOR
        assert alice.check().ok


def test_every_grade_reaches_every_copy_once(joined: Team) -> None:
    for number, member in enumerate(MEMBERS):
        assert grade_some(joined.path(member), 8, start=number) == 8
    for member in (*MEMBERS, *MEMBERS):  # the second round pulls what the later ones pushed in the first
        with Project.open(joined.path(member)) as project:
            project.sync()
    with Project.open(joined.path(COORDINATOR)) as project:
        done = project.sync()
    assert done["pulled"] == 24 and done["pushed"] == 0 and not done["offline"]
    states = [state(joined.path(role)) for role in (*MEMBERS, COORDINATOR)]
    assert all(s == states[0] for s in states[1:])
    assert states[0]["check"]
    on_server = server_identities(joined.conninfo(COORDINATOR))
    assert on_server == states[0]["identities"] and len(on_server) == len(set(on_server)) == 24


def test_two_members_grading_one_pair_both_keep_their_grade(joined: Team) -> None:
    with Project.open(joined.path("alice")) as alice:
        shared = [
            p for p in alice.audit_pairs(AUDIT, assessor="alice") if p in alice.audit_pairs(AUDIT, assessor="bob")
        ]
    assert shared, "the split gives alice and bob common pairs"
    qid, docid = shared[0]["qid"], shared[0]["docid"]
    for member, grade in (("alice", 3), ("bob", 1)):
        with Project.open(joined.path(member)) as project:
            session = project.blind_audit(AUDIT)
            session.load()
            while session.current() is not None and session.current()[:2] != (qid, docid):  # type: ignore[index]
                session.skip()
            session.grade(grade)
    for role in ("alice", "bob", "alice", COORDINATOR):
        with Project.open(joined.path(role)) as project:
            project.sync()
    with Project.open(joined.path(COORDINATOR)) as project:
        conflicts = project.audit_conflicts(AUDIT)
        assert [(c["qid"], c["docid"], c["grades"]) for c in conflicts] == [(qid, docid, {"alice": 3.0, "bob": 1.0})]
        assert project.engine.evaluator(AUDIT).labels[qid].judged[docid] == 2.0  # the mean until adjudicated
        project.adjudicate(AUDIT, qid, docid, 3)
        assert project.sync()["pushed"] == 1
    with Project.open(joined.path("bob")) as project:
        assert project.sync()["pulled"] >= 1
        assert project.audit_conflicts(AUDIT) == []
        assert project.engine.evaluator(AUDIT).labels[qid].judged[docid] == 3.0
    assert state(joined.path("bob")) == state(joined.path(COORDINATOR))


def test_the_commands_publish_join_and_sync(team_db: Team, audit_template: Path) -> None:
    env = team_db.cluster.env()
    coordinator = team_db.path(COORDINATOR)
    coordinator.write_bytes(audit_template.read_bytes())
    done = run_subprocess(
        [
            "--db",
            str(coordinator),
            "team",
            "publish",
            "--to",
            team_db.conninfo(COORDINATOR),
            "--members",
            "alice,bob",
            "--format",
            "json",
        ],
        team_db.folder,
        env,
    )
    assert done.code == 0, done.stderr
    assert json.loads(done.stdout)["members"] == ["alice", "bob"]
    alice = team_db.path("alice")
    done = run_subprocess(
        ["--db", str(alice), "team", "join", team_db.conninfo("alice"), "--format", "json"], team_db.folder, env
    )
    assert done.code == 0, done.stderr
    assert json.loads(done.stdout)["member"] == "alice"
    grade_some(alice, 3)
    done = run_subprocess(["--db", str(alice), "sync", "--format", "json"], team_db.folder, env)
    assert done.code == 0, done.stderr
    result = json.loads(done.stdout)
    assert (result["pushed"], result["pulled"], result["waiting"], result["offline"]) == (3, 0, 0, False)
    done = run_subprocess(["--db", str(coordinator), "sync", "--format", "json"], team_db.folder, env)
    assert json.loads(done.stdout)["pulled"] == 3
    assert identities(coordinator) == identities(alice) == [("alice", 1), ("alice", 2), ("alice", 3)]


def test_doctor_says_whether_the_team_connection_works(joined: Team) -> None:
    alice = joined.path("alice")
    done = run_subprocess(["--db", str(alice), "doctor", "--format", "json"], joined.folder, joined.cluster.env())
    team = next(s for s in json.loads(done.stdout)["sections"] if s["name"] == "team")
    assert (team["status"], team["facts"]["member"], team["facts"]["reached"]) == ("ok", "alice", True)
    joined.cluster.stop()
    try:
        done = run_subprocess(["--db", str(alice), "doctor", "--format", "json"], joined.folder, joined.cluster.env())
    finally:
        joined.cluster.start()
    team = next(s for s in json.loads(done.stdout)["sections"] if s["name"] == "team")
    assert done.code == 1 and team["status"] == "fail" and "cannot be reached" in team["summary"]


def test_sync_without_a_team_says_so(sample: Path) -> None:
    done = run_subprocess(["--db", str(sample), "sync", "--format", "json"], sample.parent)
    assert done.code == 2 and "belongs to no team" in done.stderr
