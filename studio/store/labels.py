"""Label sets and their append-only label events (one at a time: `studio.store.label_events`).

Qrels files reach the events through a temporary staging table, filled either by DuckDB
(the fast path of `studio.store.fast_path`) or by the precise parser; one SQL statement then
turns the staged grades into events, each with the grade it replaces.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple

import duckdb

from studio.domain.models import LabelSetKind, QrelsRow
from studio.domain.numbers import GRADE_LIMIT
from studio.store.database import Connection
from studio.store.fast_path import (
    QRELS_LINE,
    FastPathRefused,
    check_file,
    checked,
    literal_path,
    odd_line,
    parallel_reads,
    split_lines,
    too_long_id,
    too_long_number,
)
from studio.store.label_events import EventNote as EventNote
from studio.store.label_events import KnownGrade as KnownGrade
from studio.store.label_events import UndoableEvent as UndoableEvent
from studio.store.label_events import add_event_notes as add_event_notes
from studio.store.label_events import append_if_current as append_if_current
from studio.store.label_events import append_label_event as append_label_event
from studio.store.label_events import event_sequence as event_sequence
from studio.store.label_events import event_source_id as event_source_id
from studio.store.label_events import label_history as label_history
from studio.store.label_events import label_set_of_event as label_set_of_event
from studio.store.label_events import last_undoable_event as last_undoable_event
from studio.store.label_events import undoable_event as undoable_event
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
        check = check_file(path)
        if check.unsure is not None:
            raise FastPathRefused(check.unsure)
        con.execute(
            f"""
            INSERT INTO staged_labels
            SELECT ?, {checked("f[1]", QRELS_UNSURE)}, f[3], CAST(f[4] AS DOUBLE)
            FROM {split_lines(parallel=parallel_reads([check]))}
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
    source_id = event_source_id(con, origin, source)
    con.execute(
        """
        INSERT INTO label_event_rows (event_id, label_set_id, qid, docid, grade, previous, source_id, batch_id)
        SELECT nextval('label_event_ids'), ?, s.qid, s.docid, s.grade, c.grade, ?, ?
        FROM (SELECT qid, docid, grade FROM staged_labels WHERE file_index = ?) AS s
        LEFT JOIN (SELECT qid, docid, grade FROM labels WHERE label_set_id = ?) AS c
               USING (qid, docid)
        WHERE c.grade IS DISTINCT FROM s.grade
        """,
        [label_set, source_id, batch_id, file_index, label_set],
    )
    if remove_missing:
        con.execute(
            """
            INSERT INTO label_event_rows (event_id, label_set_id, qid, docid, grade, previous, source_id, batch_id)
            SELECT nextval('label_event_ids'), ?, c.qid, c.docid, NULL, c.grade, ?, ?
            FROM (SELECT qid, docid, grade FROM labels WHERE label_set_id = ?) AS c
            ANTI JOIN (SELECT qid, docid FROM staged_labels WHERE file_index = ?) AS s
                 USING (qid, docid)
            """,
            [label_set, source_id, batch_id, label_set, file_index],
        )
    return _event_count(con) - before


def _event_count(con: Connection) -> int:
    row = con.execute("SELECT count(*) FROM label_event_rows").fetchone()
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
