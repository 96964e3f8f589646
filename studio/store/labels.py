"""Label sets and their append-only label events.

Qrels files reach the events through a temporary staging table, filled either by DuckDB
(the fast path of `studio.store.fast_path`) or by the precise parser; one SQL statement then
turns the staged grades into events, each with the grade it replaces.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import duckdb

from studio.domain.models import LabelSetKind, QrelsRow
from studio.domain.numbers import GRADE_LIMIT
from studio.domain.rows import LabelEvent, StoredEvent
from studio.store.database import Connection, typed_records
from studio.store.fast_path import (
    QRELS_LINE,
    FastPathRefused,
    checked,
    literal_path,
    odd_line,
    split_lines,
    too_long_id,
    too_long_number,
    unsure_of_file,
)
from studio.store.new_names import new_name

# A qrels line the fast path leaves to the precise reader.
QRELS_UNSURE = " OR ".join([odd_line(QRELS_LINE), too_long_id("f[1]"), too_long_id("f[3]"), too_long_number("f[4]")])


def label_set_id(con: Connection, name: str) -> int | None:
    row = con.execute("SELECT label_set_id FROM label_sets WHERE name = ?", [name]).fetchone()
    return None if row is None else int(row[0])


class LabelSetInfo(NamedTuple):
    name: str
    kind: str  # a LabelSetKind value


def label_set_info(con: Connection, label_set: int) -> LabelSetInfo | None:
    """The name and kind of the label set with id `label_set`, or None when there is none."""
    row = con.execute("SELECT name, kind FROM label_sets WHERE label_set_id = ?", [label_set]).fetchone()
    return None if row is None else LabelSetInfo(str(row[0]), str(row[1]))


def create_label_set(con: Connection, name: str, kind: str, source: str | None) -> int:
    """A new, empty label set; `name` is stored composed, and refused when it looks like a taken
    one (`studio.store.new_names`)."""
    name = new_name(con, "label set", name)
    row = con.execute(
        "INSERT INTO label_sets (label_set_id, name, kind, source)"
        " VALUES (nextval('label_set_ids'), ?, ?, ?) RETURNING label_set_id",
        [name, kind, source],
    ).fetchone()
    assert row is not None
    return int(row[0])


def describe_label_set(con: Connection, label_set: int, kind: str | None, source: str | None) -> None:
    """What a replaced label set now is: the file it came from and its kind (None: kept)."""
    con.execute(
        "UPDATE label_sets SET kind = coalesce(?, kind), source = ? WHERE label_set_id = ?", [kind, source, label_set]
    )


def create_label_staging(con: Connection) -> None:
    con.execute(
        "CREATE OR REPLACE TEMP TABLE staged_labels (file_index INTEGER, qid VARCHAR, docid VARCHAR, grade DOUBLE)"
    )


def drop_label_staging(con: Connection) -> None:
    con.execute("DROP TABLE IF EXISTS staged_labels")


def staged_label_count(con: Connection) -> int:
    """How many grades the staging table holds, all files together."""
    row = con.execute("SELECT count(*) FROM staged_labels").fetchone()
    return int(row[0]) if row else 0


def stage_qrels_file(con: Connection, file_index: int, path: Path) -> None:
    """Fast path for a qrels file of exactly four columns (trec_eval refuses more); refuses
    repeated pairs and odd numbers.

    Runs outside any transaction, like `stage_run_files`.
    """
    source = literal_path(path)
    try:
        if (unsure := unsure_of_file(path)) is not None:
            raise FastPathRefused(unsure)
        con.execute(
            f"""
            INSERT INTO staged_labels
            SELECT ?, {checked("f[1]", QRELS_UNSURE)}, f[3], CAST(f[4] AS DOUBLE)
            FROM {split_lines()}
            """,
            [file_index, source],
        )
    except (duckdb.Error, OSError, EOFError, zlib.error) as error:
        raise FastPathRefused(str(error)) from error
    problem = con.execute(
        """
        SELECT 1 FROM staged_labels
        WHERE file_index = ? AND NOT abs(grade) <= ?
        UNION ALL
        (SELECT 1 FROM staged_labels WHERE file_index = ?
         GROUP BY qid, docid HAVING count(*) > 1 LIMIT 1)
        UNION ALL
        SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM staged_labels WHERE file_index = ?)
        LIMIT 1
        """,
        [file_index, GRADE_LIMIT, file_index, file_index],
    ).fetchone()
    if problem is not None:
        con.execute("DELETE FROM staged_labels WHERE file_index = ?", [file_index])
        raise FastPathRefused("a repeated pair, a grade out of range or no rows")


def stage_labels(con: Connection, file_index: int, rows: Sequence[QrelsRow]) -> None:
    con.execute(
        "INSERT INTO staged_labels SELECT ?, unnest(?::VARCHAR[]), unnest(?::VARCHAR[]), unnest(?::DOUBLE[])",
        [file_index, [r.qid for r in rows], [r.docid for r in rows], [r.grade for r in rows]],
    )


def apply_staged_labels(
    con: Connection,
    label_set: int,
    file_index: int,
    *,
    origin: str,
    source: str | None,
    batch_id: int,
    remove_missing: bool = False,
) -> int:
    """Append an event for every staged grade that differs from the current one.

    With `remove_missing`, current labels absent from the staging table are removed
    (an event with a NULL grade), so a replaced label set keeps its history.
    Returns the number of events appended.
    """
    before = _event_count(con)
    con.execute(
        """
        INSERT INTO label_events
            (event_id, label_set_id, qid, docid, grade, previous, origin, source, batch_id)
        SELECT nextval('label_event_ids'), ?, s.qid, s.docid, s.grade, c.grade, ?, ?, ?
        FROM (SELECT qid, docid, grade FROM staged_labels WHERE file_index = ?) AS s
        LEFT JOIN (SELECT qid, docid, grade FROM labels WHERE label_set_id = ?) AS c
               USING (qid, docid)
        WHERE c.grade IS DISTINCT FROM s.grade
        """,
        [label_set, origin, source, batch_id, file_index, label_set],
    )
    if remove_missing:
        con.execute(
            """
            INSERT INTO label_events
                (event_id, label_set_id, qid, docid, grade, previous, origin, source, batch_id)
            SELECT nextval('label_event_ids'), ?, c.qid, c.docid, NULL, c.grade, ?, ?, ?
            FROM (SELECT qid, docid, grade FROM labels WHERE label_set_id = ?) AS c
            ANTI JOIN (SELECT qid, docid FROM staged_labels WHERE file_index = ?) AS s
                 USING (qid, docid)
            """,
            [label_set, origin, source, batch_id, label_set, file_index],
        )
    return _event_count(con) - before


def _event_count(con: Connection) -> int:
    row = con.execute("SELECT count(*) FROM label_events").fetchone()
    assert row is not None
    return int(row[0])


def current_labels(con: Connection, label_set: int) -> list[QrelsRow]:
    rows = con.execute(
        "SELECT qid, docid, grade FROM labels WHERE label_set_id = ? ORDER BY qid, docid",
        [label_set],
    ).fetchall()
    return [QrelsRow(qid, docid, grade) for qid, docid, grade in rows]


def current_grade(con: Connection, label_set: int, qid: str, docid: str) -> float | None:
    row = con.execute(
        "SELECT grade FROM labels WHERE label_set_id = ? AND qid = ? AND docid = ?",
        [label_set, qid, docid],
    ).fetchone()
    return None if row is None else float(row[0])


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
) -> StoredEvent:
    """Append one event with the grade it replaces; returns it.

    The replaced grade is read in the same statement, unless the caller `known`s it: then it is
    taken as given, and checked after the fact: the new event's id must directly follow the
    sequence value the belief was current at (no event in between); otherwise it is read again.
    """
    previous_sql = (
        "?"
        if known is not None
        else (
            "(SELECT arg_max_null(grade, event_id) FROM label_events WHERE label_set_id = ? AND qid = ? AND docid = ?)"
        )
    )
    previous_params: list[object] = [known.grade] if known is not None else [label_set, qid, docid]
    row = con.execute(
        f"""
        INSERT INTO label_events (event_id, label_set_id, qid, docid, grade, previous, origin,
                                  source, note, undoes, batch_id)
        VALUES (nextval('label_event_ids'), ?, ?, ?, ?, {previous_sql}, ?, ?, ?, ?, ?)
        RETURNING event_id, previous, created_at
        """,
        [label_set, qid, docid, grade, *previous_params, origin, source, note, undoes, batch_id],
    ).fetchone()
    assert row is not None
    event_id, previous = int(row[0]), row[1]
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


def _read_previous_again(con: Connection, label_set: int, qid: str, docid: str, event_id: int) -> float | None:
    """Event `event_id`'s replaced grade read from the events before it, and stored: an event
    appended in between made the caller's belief stale."""
    corrected = con.execute(
        """
        UPDATE label_events SET previous = (
            SELECT arg_max_null(grade, event_id) FROM label_events
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


DERIVED = LabelSetKind.DERIVED.value


def write_exact_labels(
    con: Connection, label_set: int, rows: Sequence[QrelsRow], *, source: str, batch: Callable[[], int]
) -> int:
    """Inside the caller's transaction, bring a derived label set to exactly `rows` (labels not in
    them removed) with events of origin `derived` from `source`; `batch()` makes their batch, only
    when some label changes. Returns the number of events written."""
    create_label_staging(con)
    try:
        stage_labels(con, 0, rows)
        if not _staged_differ(con, label_set):
            return 0
        return apply_staged_labels(
            con, label_set, 0, origin="derived", source=source, batch_id=batch(), remove_missing=True
        )
    finally:
        drop_label_staging(con)


def _staged_differ(con: Connection, label_set: int) -> bool:
    row = con.execute(
        """
        SELECT 1 FROM (SELECT qid, docid, grade FROM staged_labels WHERE file_index = 0) AS s
        FULL JOIN (SELECT qid, docid, grade FROM labels WHERE label_set_id = ?) AS c USING (qid, docid)
        WHERE s.grade IS DISTINCT FROM c.grade LIMIT 1
        """,
        [label_set],
    ).fetchone()
    return row is not None


def derived_set_names(con: Connection) -> frozenset[str]:
    """The label sets made from others: bank scores, ensembles, calibrations."""
    rows = con.execute(
        "SELECT name FROM label_sets WHERE label_set_id IN"
        " (SELECT label_set_id FROM derivations UNION SELECT label_set_id FROM ensembles"
        " UNION SELECT label_set_id FROM calibrations)"
    ).fetchall()
    return frozenset(str(name) for (name,) in rows)


def followed_sets(con: Connection) -> frozenset[str]:
    """The label sets some other label set is made from (bank scores, ensembles, calibrations):
    only an edit of one of these has followers to bring up to date."""
    rows = con.execute(
        "SELECT source FROM derivations UNION SELECT unnest(members) FROM ensembles"
        " UNION SELECT source FROM calibrations UNION SELECT gold FROM calibrations"
    ).fetchall()
    return frozenset(str(name) for (name,) in rows)
