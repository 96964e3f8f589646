"""A live edit whose replaced grade the cached leaderboard knows is written in one statement of its
own (`LabelWrites._append_plain`): the event it writes must be the one the transaction would have
written, and an event another writer slipped in since the cache's belief must send the edit back
to the transaction, which reads the grade it really replaces."""

from __future__ import annotations

from pathlib import Path

from studio import Project
from studio.domain.rows import LabelEvent
from studio.store import labels as label_store
from studio.store.batches import new_batch

QID = "1002"


def pairs(project: Project) -> list[str]:
    """Some pairs of one topic the leaderboard ranks, read from the cached evaluator."""
    return project.engine.evaluator("human").rankings.topics[QID].docids[:6]


def stored(project: Project, event: int) -> tuple[object, ...]:
    """The event as the file holds it: grade, replaced grade, origin, source, time (to the second)."""
    row = (
        project.db.cursor()
        .execute(
            "SELECT grade, previous, origin, source, strftime(created_at, '%Y-%m-%d %H:%M:%S')"
            " FROM label_events WHERE event_id = ?",
            [event],
        )
        .fetchone()
    )
    assert row is not None, f"event {event} was not written"
    return tuple(row)


def as_returned(event: LabelEvent) -> tuple[object, ...]:
    return (event["grade"], event["previous"], event["origin"], event["source"], event["time"])


def test_plain_edits_write_what_they_return_with_ids_in_order(sample: Path) -> None:
    with Project.open(sample) as project:
        project.leaderboard("human", "nDCG@10")  # the cache knows every grade it replaces
        docids = pairs(project)
        events = [
            project.set_label("human", QID, docids[0], 3.0, person="ana"),  # the first of its batch
            project.set_label("human", QID, docids[0], 1.0, person="ana"),  # one statement from here
            project.set_label("human", QID, docids[1], None, person="ana"),
            project.set_label("human", QID, docids[2], 2.0, person="ben"),  # another person's batch
            project.set_label("human", QID, docids[3], 0.0, person="ana"),
        ]
        for event in events:
            assert stored(project, event["event"]) == as_returned(event)
        assert events[1]["previous"] == 3.0
        ids = [event["event"] for event in events]
        assert ids == sorted(ids) and len(set(ids)) == len(ids)
        batches = project.db.cursor().execute(
            "SELECT source, count(DISTINCT batch_id) FROM label_events WHERE event_id >= ? GROUP BY source",
            [ids[0]],
        )
        assert dict(batches.fetchall()) == {"ana": 1, "ben": 1}  # each person's edits, one batch
        assert project.undo("human") is not None  # the newest edit, taken back as any other
        assert project.engine.known_grade("human", QID, docids[3]) is not None


def test_an_event_written_meanwhile_is_the_grade_the_edit_replaces(sample: Path) -> None:
    with Project.open(sample) as project:
        project.leaderboard("human", "nDCG@10")
        docid = pairs(project)[4]
        first = project.set_label("human", QID, docid, 1.0, person="ana")
        # Another writer (a worker of this process on a connection of its own) grades the pair
        # without the cache hearing of it.
        other = project.db.cursor().cursor()
        set_id = project.engine.label_set_id("human")
        batch = new_batch(other, "import", None)
        slipped = label_store.append_label_event(
            other, set_id, QID, docid, 2.0, origin="import", source="elsewhere", batch_id=batch
        )
        edit = project.set_label("human", QID, docid, 3.0, person="ana")
        assert edit["event"] > slipped["event"] > first["event"]
        assert edit["previous"] == 2.0  # not the 1.0 the cache believed
        assert stored(project, edit["event"]) == as_returned(edit)
        # Nothing half-written: one event of the edit, after the other writer's.
        count = project.db.cursor().execute(
            "SELECT count(*) FROM label_events WHERE qid = ? AND docid = ? AND event_id > ?",
            [QID, docid, slipped["event"]],
        )
        assert count.fetchone() == (1,)
