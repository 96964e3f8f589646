"""Checking an answers label set's verdicts as an interactive session (what the Answers screen
drives): keep and override are audited label events, undo takes back the newest, a failed write
rolls back in memory, a reopened session starts at the first answer no person checked, and the
leaderboard and τ between methods follow each check."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from studio import Project
from studio.domain.errors import StudioError, UsageError
from studio.services.project import AnswerSession


@pytest.fixture
def project(genir_db: Path) -> Iterator[Project]:
    with Project.open(genir_db) as opened:
        yield opened


def opened(project: Project, label_set: str = "binary") -> AnswerSession:
    session = project.check_answers(label_set, person="alice")
    session.load()
    return session


def test_keep_and_override_are_audited_edits_and_the_next_answer_comes_up(project: Project) -> None:
    session = opened(project)
    keys = [(k["qid"], k["system"]) for k in project.answer_keys("binary")]
    assert session.keys == keys and session.current() == keys[0] and session.progress() == (0, len(keys))
    first = session.verdicts[keys[0]]
    assert session.keep_verdict() is not None
    assert session.current() == keys[1]
    flipped = 1.0 - float(session.verdicts[keys[1]] or 0.0)
    saved = session.override(flipped)
    assert saved is not None and (saved.qid, saved.system, saved.verdict, saved.checked) == (*keys[1], flipped, True)
    history = project.label_history("binary")
    assert [(e["qid"], e["docid"], e["grade"], e["origin"]) for e in history[:2]] == [
        (keys[1][0], f"answer/{keys[1][1]}", flipped, "person"),
        (keys[0][0], f"answer/{keys[0][1]}", first, "person"),
    ]
    assert history[0]["note"] == f"answers: verdict overridden (was {1.0 - flipped:g})"
    assert history[1]["note"] == "answers: verdict kept"
    assert session.progress() == (2, len(keys)) and session.checked_now == 2


def test_a_grade_off_the_sets_scale_is_refused_and_changes_nothing(project: Project) -> None:
    session = opened(project)
    with pytest.raises(UsageError, match="one of 0, 1, not 2"):
        session.decide(2.0)
    assert session.position == 0 and not session.checked and not session.decided
    graded = opened(project, "graded")
    assert graded.grade_keys() == (0, 1, 2, 3)


def test_undo_shows_the_answer_again_with_its_verdict(project: Project) -> None:
    session = opened(project)
    key = session.current()
    assert key is not None
    before = session.verdicts[key]
    session.override(1.0 - float(before or 0.0))
    undone = session.undo()
    assert undone is not None and (undone.qid, undone.system, undone.verdict, undone.checked) == (*key, before, False)
    assert session.current() == key and session.verdicts[key] == before and session.progress()[0] == 0
    assert project.answer_card("binary", *key)["verdict"] == before
    assert session.undo() is None  # nothing stands to undo


def test_a_failed_write_rolls_back_the_check_in_memory(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    session = opened(project)
    key = session.current()
    assert key is not None
    before = session.verdicts[key]

    def refuse(*args: object, **kwargs: object) -> None:
        raise StudioError("the project file is in use by PID 1")

    monkeypatch.setattr(project, "set_answer_verdict", refuse)
    with pytest.raises(StudioError):
        session.override(1.0 - float(before or 0.0))
    assert session.current() == key and session.verdicts[key] == before
    assert not session.checked and not session.decided and project.label_history("binary") == []


def test_a_reopened_session_starts_at_the_first_answer_not_checked(project: Project) -> None:
    session = opened(project)
    session.keep_verdict()
    session.keep_verdict()
    session.undo()
    again = opened(project)
    assert again.progress() == (1, len(again.keys)) and again.current() == again.keys[1]


def test_the_leaderboard_and_tau_follow_each_check(project: Project) -> None:
    session = opened(project)
    before = session.figures()
    assert before.label_set == "binary" and {a["b"] for a in before.agreements} == {
        "graded",
        "preferences",
        "subtopics",
    }
    assert before.rows[: len(project.answer_scores(["binary"]))] == project.answer_scores(["binary"])
    tau = {a["b"]: a["kendall_tau"] for a in before.agreements}
    assert tau["preferences"] == project.answer_agreement("binary", "preferences")["kendall_tau"] == 1.0
    # The checks that turn the binary order over (as in test_verdict_edits), one key each.
    for qid, system, value in (
        ("156493", "lier-gpt-4", 1.0),
        ("1110199", "lier-gpt-4", 1.0),
        ("489204", "lier-gpt-4", 1.0),
        ("156493", "gpt-4", 0.0),
    ):
        session.position = session.keys.index((qid, system))
        session.override(value)
    after = session.figures()
    assert after.rows[:2] == project.answer_scores(["binary"])
    assert {a["b"]: a["kendall_tau"] for a in after.agreements}["preferences"] == -1.0
    assert after.rows[2:] == before.rows[2:]  # the other sets' rows do not move


def test_a_preference_verdict_is_won_or_not_and_an_unknown_set_is_refused(project: Project) -> None:
    session = project.check_answers("preferences")
    session.load()  # a preference set is checked: won (1) or not (0)
    assert session.grade_keys() == (0, 1)
    with pytest.raises(UsageError, match="no label set named"):
        project.check_answers("nothing").load()
