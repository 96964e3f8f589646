"""Label edits and their undo shared through the team: an edit of a one-grade label set reaches
every copy; two members' crossing edits of one pair end the same on every copy, the later standing,
and the sync names the conflict; an undo reverts the same edit everywhere."""

from __future__ import annotations

from team.team_helpers import COORDINATOR, Team

from studio import Project
from studio.domain.specs import AuditDrawSpec


def grade_of(team: Team, role: str, qid: str, docid: str) -> float | None:
    with Project.open(team.path(role)) as project:
        return project.engine.evaluator("human").labels[qid].judged.get(docid)


def a_human_pair(team: Team) -> tuple[str, str]:
    with Project.open(team.path(COORDINATOR)) as project:
        qid, row = sorted(project.engine.evaluator("human").labels.items())[0]
        return qid, sorted(row.judged)[0]


def sync(team: Team, *roles: str) -> list[str]:
    conflicts: list[str] = []
    for role in roles:
        with Project.open(team.path(role)) as project:
            conflicts += project.sync()["conflicts"]
    return conflicts


def test_an_edit_and_its_undo_reach_every_copy(joined: Team) -> None:
    qid, docid = a_human_pair(joined)
    before = grade_of(joined, "bob", qid, docid)
    with Project.open(joined.path("alice")) as project:
        project.set_label("human", qid, docid, 3.0 if before != 3.0 else 0.0, note="clearly relevant")
    assert sync(joined, "alice", "bob") == []
    assert grade_of(joined, "bob", qid, docid) == grade_of(joined, "alice", qid, docid) != before
    with Project.open(joined.path("alice")) as project:
        assert project.undo() is not None
    sync(joined, "alice", "bob", COORDINATOR)
    assert grade_of(joined, "bob", qid, docid) == grade_of(joined, COORDINATOR, qid, docid) == before
    with Project.open(joined.path("bob")) as project:
        assert project.check().ok


def test_crossing_edits_end_the_same_everywhere_and_are_named(joined: Team) -> None:
    qid, docid = a_human_pair(joined)
    with Project.open(joined.path("alice")) as project:
        project.set_label("human", qid, docid, 1.0)
    # Bob's edit is made after alice's; had the clock not moved between them, the tie goes to the
    # later member name, bob's: no sleep is needed for his to stand.
    with Project.open(joined.path("bob")) as project:
        project.set_label("human", qid, docid, 2.0)
    conflicts = sync(joined, "bob", "alice", "bob", "carol")
    assert conflicts and all(f"human {qid} {docid}" in c for c in conflicts)
    assert {grade_of(joined, role, qid, docid) for role in ("alice", "bob", "carol")} == {2.0}


def test_an_event_about_what_a_copy_lacks_is_named_not_fatal(joined: Team) -> None:
    with Project.open(joined.path(COORDINATOR)) as project:  # an audit made after the base
        project.plan_audit(AuditDrawSpec("umbrela-smol", name="late", budget=4, design="pairs", seed=9))
        session = project.blind_audit("late")
        session.load()
        session.grade(2)
        assert project.sync()["pushed"] == 1
    with Project.open(joined.path("alice")) as project:
        done = project.sync()
        assert done["pulled"] == 0 and any("no audit named 'late' here" in q for q in done["quarantined"])
        again = project.sync()  # taken once: the next sync does not stumble on it again
        assert (again["pulled"], again["quarantined"]) == (0, [])
        assert [q["seq"] for q in project.team_status()["quarantined"]] == [1]  # type: ignore[index]
