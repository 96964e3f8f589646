"""One verdict at a time, as an Answers screen will show it: the card (answer, exemplar or subtopics,
the verdicts behind it), and keeping or overriding it: an ordinary audited label event written
through the one write path, undone like any other, the leaderboard and τ between methods following
at once."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from studio import Project
from studio.domain.errors import UsageError


@pytest.fixture
def project(genir_db: Path) -> Iterator[Project]:
    with Project.open(genir_db) as opened:
        yield opened


def test_the_queue_and_a_card(project: Project) -> None:
    keys = project.answer_keys("binary")
    assert [(k["qid"], k["system"]) for k in keys][:3] == [
        ("1110199", "gpt-4"),
        ("1110199", "lier-gpt-4"),
        ("130510", "gpt-4"),
    ]
    card = project.answer_card("binary", "130510", "gpt-4")
    assert (card["method"], card["query"], card["verdict"], card["judged"], card["edited"]) == (
        "binary", "definition declaratory judgment", 0.0, 0.0, False,
    )  # fmt: skip
    assert card["answer"] is not None and card["answer"].startswith("A declaratory judgment is")
    assert card["raw"] == ["No"]


def test_an_override_is_an_audited_edit_that_the_leaderboard_and_tau_follow(project: Project) -> None:
    before = {r["system"]: r["score"] for r in project.answer_scores(["binary"])}
    assert project.answer_agreement("binary", "preferences")["kendall_tau"] == 1.0
    event = project.set_answer_verdict("binary", "156493", "lier-gpt-4", 1.0, note="it does answer")
    assert (event["origin"], event["previous"], event["grade"], event["docid"]) == (
        "person",
        0.0,
        1.0,
        "answer/lier-gpt-4",
    )
    for qid in ("1110199", "489204"):
        project.set_answer_verdict("binary", qid, "lier-gpt-4", 1.0)
    project.set_answer_verdict("binary", "156493", "gpt-4", 0.0)
    after = {r["system"]: r["score"] for r in project.answer_scores(["binary"])}
    assert (after["lier-gpt-4"], after["gpt-4"]) == (before["lier-gpt-4"] + 0.75, before["gpt-4"] - 0.25)
    assert project.answer_agreement("binary", "preferences")["kendall_tau"] == -1.0  # the order turned over
    card = project.answer_card("binary", "156493", "lier-gpt-4")
    assert (card["verdict"], card["judged"], card["edited"]) == (1.0, 0.0, True)
    assert [e["note"] for e in project.label_history("binary")][-1] == "it does answer"
    for _ in range(4):
        assert project.undo_answer_verdict("binary") is not None
    assert project.undo_answer_verdict("binary") is None
    assert {r["system"]: r["score"] for r in project.answer_scores(["binary"])} == before
    assert project.check().problems == 0


@pytest.mark.parametrize(
    ("label_set", "value", "says"),
    [
        ("binary", 0.5, "0 or 1"),
        ("graded", 4.0, "a whole grade 0–3"),
        ("graded", 1.5, "a whole grade"),
        ("subtopics", 1.2, "between 0 and 1"),
        ("preferences", -1.0, "won"),
    ],
)
def test_a_verdict_off_its_scale_is_refused(project: Project, label_set: str, value: float, says: str) -> None:
    with pytest.raises(UsageError, match=says):
        project.set_answer_verdict(label_set, "156493", "gpt-4", value)
    assert project.label_history(label_set) == []


def test_a_subtopic_verdict_takes_any_share_and_keeps_the_entries_beside_it(project: Project) -> None:
    project.set_answer_verdict("subtopics", "156493", "gpt-4", 4 / 6, note="entry 3 is satisfied too")
    card = project.answer_card("subtopics", "156493", "gpt-4")
    assert card["verdict"] == pytest.approx(4 / 6) and card["judged"] == 0.5
    assert [s["satisfied"] for s in card["subtopics"]] == [True, False, True, False, False, True]
