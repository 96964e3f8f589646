"""What comes from the team's server is input like any file: an event another member appended
(here straight on the server, as row-level security lets a member do under their own name) passes
the gates a local command passes — payload schema, types, scale, owned sets, plausibility — before
it touches the project. One that fails is quarantined: kept aside with member, sequence and reason,
never applied, never blocking the events after it, shown by `team status` and `check`, and
reported on the server, where the coordinator sees every copy's reports."""

from __future__ import annotations

import json
from typing import Any

import pytest
from cli.cli_helpers import run_clirunner
from team.team_helpers import (
    AUDIT,
    COORDINATOR,
    Team,
    append_raw,
    audit_pair_of,
    grade_of,
    human_pairs,
    state,
)

from studio import Project

WHEN = "2026-03-01 10:00:00.000000"


def label(qid: str, docid: str, grade: Any, changed: dict[str, Any] | None = None) -> str:
    """A label edit's payload as the studio writes it, with `changed` keys put in."""
    return json.dumps(
        {"qrels": "human", "qid": qid, "docid": docid, "made_at": WHEN, "grade": grade, "parent": None, "note": None}
        | (changed or {})
    )


def sync(team: Team, role: str) -> dict[str, Any]:
    with Project.open(team.path(role)) as project:
        return dict(project.sync())


@pytest.mark.parametrize(
    ("bad", "why"),
    [
        ({"grade": "three"}, "grade"),
        ({"grade": {}}, "grade"),
        ({"grade": [2]}, "grade"),
        ({"grade": True}, "grade"),
        ({"grade": 1e300}, "grade"),
        ({"made_at": "2026-02-30 25:61:00"}, "made_at"),
        ({"qid": "two words"}, "qid"),
        ({"qrels": ["human"]}, "qrels"),
        ({"extra": 1}, "extra"),
    ],
)
def test_a_label_event_of_the_wrong_shape_is_quarantined_and_the_next_arrive(
    joined: Team, bad: dict[str, Any], why: str
) -> None:
    (q1, d1), (q2, d2) = human_pairs(joined, 2)
    append_raw(joined, "alice", 1, "label", label(q1, d1, 2.0, bad))
    append_raw(joined, "alice", 2, "label", label(q2, d2, 3.0))
    done = sync(joined, "bob")
    assert done["pulled"] == 1 and len(done["quarantined"]) == 1
    assert done["quarantined"][0].startswith("alice #1 (label):") and why in done["quarantined"][0]
    assert grade_of(joined, "bob", q2, d2) == 3.0  # the event after it was applied
    again = sync(joined, "bob")
    assert (again["pulled"], again["quarantined"]) == (0, [])  # taken once, never in the way again
    with Project.open(joined.path("bob")) as project:
        assert project.check().ok


def test_a_label_event_naming_an_audit_gold_set_is_quarantined(joined: Team) -> None:
    qid, docid = audit_pair_of(joined, "alice")
    before = grade_of(joined, "bob", qid, docid, AUDIT)
    append_raw(joined, "alice", 1, "label", label(qid, docid, 3.0, {"qrels": AUDIT}))
    done = sync(joined, "bob")
    assert done["pulled"] == 0 and "gold set of audit gold" in done["quarantined"][0]
    assert grade_of(joined, "bob", qid, docid, AUDIT) == before
    with Project.open(joined.path("bob")) as project:
        assert project.check().ok


@pytest.mark.parametrize(
    ("changed", "why"),
    [
        ({"seconds": -5}, "seconds"),
        ({"seconds": 10**9}, "seconds"),
        ({"grade": 7}, "scale"),
        ({"grade": 1.5}, "scale"),
        ({"made_at": "3026-01-01 00:00:00"}, "future"),
        ({"audit": "nowhere"}, "no audit"),
    ],
)
def test_an_audit_grade_out_of_bounds_is_quarantined(joined: Team, changed: dict[str, Any], why: str) -> None:
    qid, docid = audit_pair_of(joined, "alice")
    before = grade_of(joined, "bob", qid, docid, AUDIT)
    grade = {"audit": AUDIT, "qid": qid, "docid": docid, "made_at": WHEN, "grade": 2, "seconds": 4.5} | changed
    append_raw(joined, "alice", 1, "grade", json.dumps(grade))
    done = sync(joined, "bob")
    assert done["pulled"] == 0 and why in done["quarantined"][0], done["quarantined"]
    assert grade_of(joined, "bob", qid, docid, AUDIT) == before


def test_a_grade_of_a_pair_outside_the_members_share_is_quarantined(joined: Team) -> None:
    with Project.open(joined.path("bob")) as project:
        theirs = {(p["qid"], p["docid"]) for p in project.audit_pairs(AUDIT, assessor="alice")}
        other = next(p for p in project.audit_pairs(AUDIT, assessor="bob") if (p["qid"], p["docid"]) not in theirs)
    grade = {"audit": AUDIT, "qid": other["qid"], "docid": other["docid"], "made_at": WHEN, "grade": 1, "seconds": 3}
    append_raw(joined, "alice", 1, "grade", json.dumps(grade))
    done = sync(joined, "bob")
    assert "not among the pairs" in done["quarantined"][0]


def test_an_undo_of_an_event_that_never_came_does_not_hold_up_the_next(joined: Team) -> None:
    (q1, d1), _ = human_pairs(joined, 2)
    append_raw(joined, "alice", 1, "undo", json.dumps({"member": "carol", "seq": 99, "made_at": WHEN}))
    append_raw(joined, "alice", 2, "label", label(q1, d1, 3.0))
    done = sync(joined, "bob")
    assert done["pulled"] == 1 and "carol #99" in done["quarantined"][0]
    assert grade_of(joined, "bob", q1, d1) == 3.0


def test_a_quarantined_event_is_shown_by_status_check_and_the_server(joined: Team) -> None:
    (q1, d1), (q2, d2) = human_pairs(joined, 2)
    append_raw(joined, "alice", 1, "label", label(q1, d1, "three"))
    append_raw(joined, "alice", 2, "label", label(q2, d2, 1.0))
    bob = ["--db", str(joined.path("bob"))]
    done = run_clirunner([*bob, "sync", "--format", "json"], joined.folder)
    assert done.code == 0, done.stderr
    assert "quarantined: alice #1 (label)" in done.stderr
    status = run_clirunner([*bob, "team", "status", "--format", "json"], joined.folder)
    held = json.loads(status.stdout)["quarantined"]
    assert [(q["member"], q["seq"], q["kind"]) for q in held] == [("alice", 1, "label")]
    assert "grade" in held[0]["reason"]
    check = run_clirunner([*bob, "check", "--format", "json"], joined.folder)
    assert check.code == 0 and any(
        "alice #1" in note and "quarantined" in note for note in json.loads(check.stdout)["notes"]
    )
    listed = run_clirunner(
        ["--db", str(joined.path(COORDINATOR)), "team", "quarantine", "--format", "json"], joined.folder
    )
    assert listed.code == 0, listed.stderr
    reports = json.loads(listed.stdout)
    assert [(r["reporter"], r["member"], r["seq"]) for r in reports] == [("bob", "alice", 1)]
    assert sync(joined, "carol")["quarantined"] and sync(joined, COORDINATOR)["quarantined"]
    listed = run_clirunner(
        ["--db", str(joined.path(COORDINATOR)), "team", "quarantine", "--format", "json"], joined.folder
    )
    assert {r["reporter"] for r in json.loads(listed.stdout)} == {"bob", "carol", COORDINATOR}


def test_copies_that_quarantined_the_same_event_end_the_same(joined: Team) -> None:
    (q1, d1), (q2, d2) = human_pairs(joined, 2)
    append_raw(joined, "alice", 1, "label", label(q1, d1, 2.0, {"qrels": AUDIT}))
    append_raw(joined, "alice", 2, "label", label(q2, d2, 2.0))
    for role in ("bob", "carol", COORDINATOR):
        sync(joined, role)
    states = [state(joined.path(role)) for role in ("bob", "carol", COORDINATOR)]
    assert all(s == states[0] for s in states[1:]) and states[0]["check"]
