"""An audited edit records the grade it replaced as the project file has it, even when the open
project's cached labels are stale; a person's edits through one open project share one batch."""

from __future__ import annotations

from pathlib import Path

from helpers import scalar

from studio import Project
from studio.store import labels as label_store
from studio.store import new_batch


def grade_in_file(project: Project, name: str, qid: str, docid: str) -> float | None:
    set_id = project.engine.label_set_id(name)
    return label_store.current_grade(project.db.cursor(), set_id, qid, docid)


def some_pairs(project: Project, name: str, count: int) -> list[tuple[str, str]]:
    labels = project.engine.evaluator(name).labels
    return [(qid, docid) for qid, topic in sorted(labels.items()) for docid in sorted(topic.judged)][:count]


def test_an_edit_records_the_grade_it_replaced(db: Path) -> None:
    with Project.open(db) as project:
        project.leaderboard("llm")  # the label set cached: its grades are at hand
        (qid, docid), (other_qid, other_docid) = some_pairs(project, "llm", 2)
        before = grade_in_file(project, "llm", qid, docid)
        other_before = grade_in_file(project, "llm", other_qid, other_docid)
        first = project.set_label("llm", qid, docid, 3.0, person="ann")
        second = project.set_label("llm", qid, docid, 1.0, person="ann")
        third = project.set_label("llm", other_qid, other_docid, None, person="ann")
        assert (first["previous"], second["previous"]) == (before, 3.0)
        assert third["previous"] == other_before is not None
        undone = project.undo("llm")  # the removal undone: the grade comes back, replacing nothing
        assert undone is not None and undone["grade"] == other_before and undone["previous"] is None
        assert grade_in_file(project, "llm", other_qid, other_docid) == other_before


def test_a_write_the_open_project_did_not_see_is_not_taken_for_the_replaced_grade(db: Path) -> None:
    with Project.open(db) as project:
        project.leaderboard("llm")  # cached now
        (qid, docid), (other_qid, other_docid) = some_pairs(project, "llm", 2)
        set_id = project.engine.label_set_id("llm")
        # Another writer (a judge in a worker, say) changes both pairs behind the cache's back.
        with project.db.transaction() as tx:
            batch = new_batch(tx, "judge", "elsewhere")
            for q, d in ((qid, docid), (other_qid, other_docid)):
                label_store.append_label_event(tx, set_id, q, d, 2.5, origin="judge", source="x", batch_id=batch)
        event = project.set_label("llm", qid, docid, 0.0, person="ann")
        assert event["previous"] == 2.5  # the file's grade, not the stale cached one
        later = project.set_label("llm", other_qid, other_docid, 1.0, person="ann")
        assert later["previous"] == 2.5  # and the cache is no longer trusted for any pair
        stored = scalar(project.db.cursor(), "SELECT previous FROM label_events WHERE event_id = ?", [event["event"]])
        assert stored == 2.5


def test_a_persons_edits_share_one_batch_per_open_project(db: Path) -> None:
    with Project.open(db) as project:
        (qid, docid), (other_qid, other_docid) = some_pairs(project, "llm", 2)
        first = project.set_label("llm", qid, docid, 3.0, person="ann")
        second = project.set_label("llm", other_qid, other_docid, 3.0, person="ann")
        third = project.set_label("llm", qid, docid, 1.0, person="bob")
        batches = [
            scalar(project.db.cursor(), "SELECT batch_id FROM label_events WHERE event_id = ?", [e["event"]])
            for e in (first, second, third)
        ]
        assert batches[0] == batches[1] != batches[2]
        assert (
            scalar(project.db.cursor(), "SELECT command || ' ' || source FROM batches WHERE batch_id = ?", [batches[2]])
            == "label bob"
        )
    with Project.open(db) as reopened:  # another open project, another batch
        fourth = reopened.set_label("llm", qid, docid, 2.0, person="ann")
        assert (
            scalar(reopened.db.cursor(), "SELECT batch_id FROM label_events WHERE event_id = ?", [fourth["event"]])
            not in batches
        )
