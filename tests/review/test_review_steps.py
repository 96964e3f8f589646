"""A decision in two steps, without a screen: `decide` moves the queue at once and writes nothing;
`write` saves it in order; `settle` records it; `roll_back` puts the queue back when a write fails.
The same for the blind audit."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio import Project
from studio.domain.errors import UsageError
from studio.domain.specs import AuditDrawSpec
from studio.services.audit.session import AuditSession
from studio.services.review.session import ReviewSession

LLM = "umbrela-smol"


def logged(project: Project) -> list[tuple[str, str, str]]:
    rows = project.db.cursor().execute("SELECT qid, docid, action FROM review_decisions ORDER BY decision_id")
    return [(q, d, a) for q, d, a in rows.fetchall()]


def audited(project: Project, qrels: str, qid: str, docid: str) -> float | None:
    topic = project.engine.evaluator(qrels).labels.get(qid)
    return topic.judged.get(docid) if topic else None


@pytest.fixture()
def review(sample: Path) -> ReviewSession:
    project = Project.open(sample)
    session = project.review("human", LLM, person="ana")
    session.load()
    return session


def test_decide_moves_the_queue_and_writes_nothing_until_write(review: ReviewSession) -> None:
    project = review.project
    assert isinstance(project, Project)
    first, second = review.queue[0], review.queue[1]
    steps = [review.decide("grade", grade=3.0), review.decide("skip")]
    assert review.position == 2 and review.decisions_made == 0 and logged(project) == []
    assert audited(project, LLM, first["qid"], first["docid"]) == first["grade"]
    for step in steps:
        review.settle(step, review.write(step))
    assert logged(project) == [(first["qid"], first["docid"], "grade"), (second["qid"], second["docid"], "skip")]
    assert audited(project, LLM, first["qid"], first["docid"]) == 3.0
    assert review.decisions_made == 1 and review.decided[(first["qid"], first["docid"])]["grade"] == 3.0
    project.close()


def test_a_failed_write_is_rolled_back_with_the_steps_after_it(review: ReviewSession) -> None:
    project = review.project
    assert isinstance(project, Project)
    first = review.current()
    assert first is not None
    failing = review.decide("grade", grade=2.0)
    later = [review.decide("flag"), review.decide("accept")]
    assert review.position == 2
    for step in reversed([failing, *later]):  # the newest first, as a screen takes them back
        review.roll_back(step)
    assert review.position == 0 and review.current() == first and review.moves == []
    assert logged(project) == [] and review.decisions_made == 0
    project.close()


def test_a_write_the_pair_cannot_take_raises_and_changes_nothing(review: ReviewSession) -> None:
    project = review.project
    assert isinstance(project, Project)
    project.set_label("human", review.queue[0]["qid"], review.queue[0]["docid"], None)  # no reference grade now
    step = review.decide("reference")
    with pytest.raises(UsageError, match="the reference has no label"):
        review.write(step)
    review.roll_back(step)
    assert review.position == 0 and logged(project) == []
    project.close()


def test_undo_shows_this_sittings_decision_at_once_and_another_sittings_once_written(sample: Path) -> None:
    with Project.open(sample) as project:
        first = project.review("human", LLM)
        first.load()
        pair = first.current()
        assert pair is not None
        first.set_grade(1.0)
        again = project.review("human", LLM)
        again.load()
        assert again.current() != pair
        step = again.undo_step()  # this sitting made no decision: the log knows which one
        assert not step.known and again.position == 0
        undone = again.write(step)
        assert undone is not None and (undone["qid"], undone["docid"]) == (pair["qid"], pair["docid"])
        again.settle(step, undone)
        shown = again.current()
        assert shown is not None and (shown["qid"], shown["docid"]) == (pair["qid"], pair["docid"])
        made = again.decide("skip")
        again.settle(made, again.write(made))
        step = again.undo_step()  # known: its pair is current before anything is written
        assert step.known and step.reverts is made and again.position == made.position
        again.settle(step, again.write(step))
        assert [a for _, _, a in logged(project)] == ["grade", "undo", "skip", "undo"]


def test_the_blind_audit_grades_in_two_steps(sample: Path) -> None:
    with Project.open(sample) as project:
        project.plan_audit(AuditDrawSpec(LLM, name="blind", budget=6, design="pairs", seed=3))
        session = AuditSession(project, "blind", person="ana")
        session.load()
        first = session.current()
        assert first is not None
        step = session.decide(2.0)
        assert session.position == 1 and session.progress() == (1, 6) and session.graded_now == 0
        assert audited(project, "blind", first[0], first[1]) is None  # nothing written yet
        reveal = session.write(step)
        session.settle(step, reveal)
        assert audited(project, "blind", first[0], first[1]) == 2.0
        assert session.revealed == reveal and session.graded_now == 1
        failing = session.decide(0.0)
        session.roll_back(failing)
        assert session.position == 1 and session.progress() == (1, 6)
        undo = session.undo_step()
        assert (undo.qid, undo.docid) == first[:2] and session.current() == first  # before the revert is written
        session.settle(undo, session.write(undo))
        assert session.progress() == (0, 6) and audited(project, "blind", first[0], first[1]) is None
