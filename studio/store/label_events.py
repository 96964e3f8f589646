"""Label events one at a time: appending an event (its row, its source, its note), the undoable
person edits, and the history of person edits and undos.

An event's row (`label_event_rows`) holds what every event needs; its origin and source are one
row of `label_event_sources` it points to, and a note or the event an undo reverts is a row of
`label_event_notes` (schema version 25, `studio.store.migrations.v25_narrow_label_events`).
Readers read the `label_events` view, which puts them together.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, NamedTuple

from studio.domain.rows import LabelEvent, StoredEvent
from studio.store.database import Connection, typed_records


def event_source_id(con: Connection, origin: str, source: str | None) -> int:
    """The id of (origin, source) in `label_event_sources`, added the first time. Two writers may
    add the same pair at once: both rows say the same, and the lowest id is the one given out."""
    found = con.execute(
        "SELECT min(source_id) FROM label_event_sources WHERE origin = ? AND source IS NOT DISTINCT FROM ?",
        [origin, source],
    ).fetchone()
    if found is not None and found[0] is not None:
        return int(found[0])
    added = con.execute(
        "INSERT INTO label_event_sources (source_id, origin, source)"
        " VALUES (nextval('label_event_source_ids'), ?, ?) RETURNING source_id",
        [origin, source],
    ).fetchone()
    assert added is not None
    return int(added[0])


class EventNote(NamedTuple):
    """What few label events carry beside their row (`label_event_notes`)."""

    event: int
    note: str | None
    undoes: int | None


def add_event_notes(con: Connection, notes: Sequence[EventNote]) -> None:
    """The notes and undone events of label events just appended (those without either skipped)."""
    kept = [n for n in notes if n.note is not None or n.undoes is not None]
    if not kept:
        return
    con.execute(
        "INSERT INTO label_event_notes (event_id, note, undoes)"
        " SELECT unnest(?::BIGINT[]), unnest(?::VARCHAR[]), unnest(?::BIGINT[])",
        [[n.event for n in kept], [n.note for n in kept], [n.undoes for n in kept]],
    )


class KnownGrade(NamedTuple):
    """What a caller believes a pair's grade is, and the newest label event it has seen."""

    as_of: int  # the label event sequence's value when the belief was current
    grade: float | None


def event_sequence(con: Connection) -> int:
    """The newest label event id handed out (0 before the first)."""
    row = con.execute("SELECT last_value FROM duckdb_sequences() WHERE sequence_name = 'label_event_ids'").fetchone()
    return int(row[0]) if row and row[0] is not None else 0


def append_label_event(
    con: Connection,
    label_set: int,
    qid: str,
    docid: str,
    grade: float | None,
    *,
    origin: str,
    source: str | None,
    batch_id: int,
    note: str | None = None,
    undoes: int | None = None,
    known: KnownGrade | None = None,
    source_id: int | None = None,
) -> StoredEvent:
    """Append one event with the grade it replaces; returns it. `source_id`: (origin, source)'s id
    when the caller has it at hand (`event_source_id`), else it is looked up.

    The replaced grade is read in the same statement, unless the caller `known`s it: then it is
    taken as given, and checked after the fact: the new event's id must directly follow the
    sequence value the belief was current at (no event in between); otherwise it is read again.
    """
    previous_sql = (
        "?"
        if known is not None
        else (
            "(SELECT arg_max_null(grade, event_id) FROM label_event_rows"
            " WHERE label_set_id = ? AND qid = ? AND docid = ?)"
        )
    )
    previous_params: list[object] = [known.grade] if known is not None else [label_set, qid, docid]
    if source_id is None:
        source_id = event_source_id(con, origin, source)
    row = con.execute(
        f"""
        INSERT INTO label_event_rows (event_id, label_set_id, qid, docid, grade, previous, source_id, batch_id)
        VALUES (nextval('label_event_ids'), ?, ?, ?, ?, {previous_sql}, ?, ?)
        RETURNING event_id, previous, created_at
        """,
        [label_set, qid, docid, grade, *previous_params, source_id, batch_id],
    ).fetchone()
    assert row is not None
    event_id, previous = int(row[0]), row[1]
    add_event_notes(con, [EventNote(event_id, note, undoes)])
    if known is not None and event_id != known.as_of + 1:
        previous = _read_previous_again(con, label_set, qid, docid, event_id)
    return StoredEvent(
        event=event_id,
        qid=qid,
        docid=docid,
        grade=grade,
        previous=None if previous is None else float(previous),
        origin=origin,
        source=source,
        note=note,
        undoes=undoes,
        time=row[2].isoformat(sep=" ", timespec="seconds"),
    )


def append_if_current(
    con: Connection,
    label_set: int,
    qid: str,
    docid: str,
    grade: float | None,
    *,
    known: KnownGrade,
    origin: str,
    source: str | None,
    source_id: int,
    batch_id: int,
) -> StoredEvent | None:
    """Append one event without a note that replaces `known.grade`, in one statement that writes
    it only when its id directly follows `known.as_of` (no event came in between, so the belief
    holds); None when one did (nothing is written, one id of the sequence goes unused, as after a
    rollback). On a connection in autocommit the statement is the whole write: a transaction
    around it would cost two more calls on every edit (`Database.statement`). Its id is then
    known without asking, and its time is given (local time, as DuckDB's `current_timestamp` is
    stored), so nothing is read back: RETURNING would cost a tenth of the edit."""
    event_id, now = known.as_of + 1, datetime.now()
    written = con.execute(
        """
        INSERT INTO label_event_rows
            (event_id, label_set_id, qid, docid, grade, previous, source_id, batch_id, created_at)
        SELECT id, ?, ?, ?, ?, ?, ?, ?, ? FROM (SELECT nextval('label_event_ids') AS id) WHERE id = ?
        """,
        [label_set, qid, docid, grade, known.grade, source_id, batch_id, now, event_id],
    ).fetchone()
    if written is None or written[0] != 1:
        return None
    return StoredEvent(
        event=event_id,
        qid=qid,
        docid=docid,
        grade=grade,
        previous=None if known.grade is None else float(known.grade),
        origin=origin,
        source=source,
        note=None,
        undoes=None,
        time=now.isoformat(sep=" ", timespec="seconds"),
    )


def _read_previous_again(con: Connection, label_set: int, qid: str, docid: str, event_id: int) -> float | None:
    """Event `event_id`'s replaced grade read from the events before it, and stored: an event
    appended in between made the caller's belief stale."""
    corrected = con.execute(
        """
        UPDATE label_event_rows SET previous = (
            SELECT arg_max_null(grade, event_id) FROM label_event_rows
            WHERE label_set_id = ? AND qid = ? AND docid = ? AND event_id < ?)
        WHERE event_id = ? RETURNING previous
        """,
        [label_set, qid, docid, event_id, event_id],
    ).fetchone()
    return None if corrected is None or corrected[0] is None else float(corrected[0])


UndoableEvent = tuple[int, int, str, str, float | None]


# A person edit is undoable while it is in effect: not undone, and its pair not written since by
# anything but person edits and undos (an import, a judge, a derivation). Undoing one an import
# overwrote would bring back a label the imported file removed.
_NOT_UNDONE = """
    SELECT event_id, label_set_id, qid, docid, previous FROM label_events
    WHERE origin = 'person' AND {where}
      AND event_id NOT IN (SELECT undoes FROM label_events WHERE undoes IS NOT NULL)
    ORDER BY event_id DESC
"""
_OVERWRITTEN = """
    SELECT 1 FROM label_events
    WHERE label_set_id = ? AND qid = ? AND docid = ? AND event_id > ? AND origin NOT IN ('person', 'undo')
    LIMIT 1
"""


def last_undoable_event(
    con: Connection, label_set: int | None, *, except_sets: Sequence[int] = ()
) -> UndoableEvent | None:
    """The newest person edit still in effect (of `label_set`, or of any set but `except_sets`):
    (event, label set, qid, docid, previous grade)."""
    candidates = con.execute(
        _NOT_UNDONE.format(where="(? IS NULL OR label_set_id = ?) AND NOT list_contains(?::INTEGER[], label_set_id)"),
        [label_set, label_set, list(except_sets)],
    )
    return _in_effect(con, candidates.fetchall())


def label_set_of_event(con: Connection, event_id: int) -> str | None:
    """The name of the label set a label event wrote (None: no such event)."""
    row = con.execute(
        "SELECT s.name FROM label_events e JOIN label_sets s USING (label_set_id) WHERE e.event_id = ?", [event_id]
    ).fetchone()
    return None if row is None else str(row[0])


def undoable_event(con: Connection, event_id: int) -> UndoableEvent | None:
    """One person edit, if it exists and is still in effect."""
    return _in_effect(con, con.execute(_NOT_UNDONE.format(where="event_id = ?"), [event_id]).fetchall())


def _in_effect(con: Connection, candidates: list[tuple[Any, ...]]) -> UndoableEvent | None:
    for event_id, set_id, qid, docid, previous in candidates:  # newest first; person edits are few
        if con.execute(_OVERWRITTEN, [set_id, qid, docid, event_id]).fetchone() is None:
            return int(event_id), int(set_id), qid, docid, previous
    return None


def label_history(con: Connection, label_set: int | None, limit: int) -> list[LabelEvent]:
    """Person edits and undos, newest first."""
    cursor = con.execute(
        """
        SELECT e.event_id AS event, s.name AS qrels, e.qid, e.docid, e.grade, e.previous, e.origin,
               e.source, e.note, e.undoes, strftime(e.created_at, '%Y-%m-%d %H:%M:%S') AS time
        FROM label_events e JOIN label_sets s USING (label_set_id)
        WHERE e.origin IN ('person', 'undo') AND (? IS NULL OR e.label_set_id = ?)
        ORDER BY e.event_id DESC LIMIT ?
        """,
        [label_set, label_set, limit],
    )
    return typed_records(cursor, LabelEvent)
