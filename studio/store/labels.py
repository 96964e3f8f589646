"""Label sets and their append-only label events.

Qrels files reach the events through a temporary staging table, filled either by DuckDB's
CSV reader (the fast path) or by the precise parser; one SQL statement then turns the staged
grades into events, each with the grade it replaces.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import duckdb

from studio.domain.models import QrelsRow
from studio.store.database import Connection
from studio.store.runs import FastPathRefused

QRELS_CSV_COLUMNS = "{'qid': 'VARCHAR', 'iter': 'VARCHAR', 'docid': 'VARCHAR', 'grade': 'DOUBLE'}"


def label_set_id(con: Connection, name: str) -> int | None:
    row = con.execute("SELECT label_set_id FROM label_sets WHERE name = ?", [name]).fetchone()
    return None if row is None else int(row[0])


def create_label_set(con: Connection, name: str, kind: str, source: str | None) -> int:
    row = con.execute(
        "INSERT INTO label_sets (label_set_id, name, kind, source)"
        " VALUES (nextval('label_set_ids'), ?, ?, ?) RETURNING label_set_id",
        [name, kind, source],
    ).fetchone()
    assert row is not None
    return int(row[0])


def create_label_staging(con: Connection) -> None:
    con.execute(
        "CREATE OR REPLACE TEMP TABLE staged_labels"
        " (file_index INTEGER, qid VARCHAR, docid VARCHAR, grade DOUBLE)"
    )


def drop_label_staging(con: Connection) -> None:
    con.execute("DROP TABLE IF EXISTS staged_labels")


def stage_qrels_file(con: Connection, file_index: int, path: Path) -> None:
    """Fast path for a clean qrels file; refuses repeated pairs and odd numbers.

    Runs outside any transaction, like `stage_run_files`.
    """
    try:
        con.execute(
            f"""
            INSERT INTO staged_labels
            SELECT ?, qid, docid, grade
            FROM read_csv(?, delim = ' ', header = false, quote = '', escape = '',
                          auto_detect = false, strict_mode = true, columns = {QRELS_CSV_COLUMNS})
            """,
            [file_index, str(path)],
        )
    except duckdb.Error as error:
        raise FastPathRefused(str(error)) from error
    problem = con.execute(
        """
        SELECT 1 FROM staged_labels
        WHERE file_index = ? AND (NOT isfinite(grade) OR qid IS NULL OR docid IS NULL)
        UNION ALL
        (SELECT 1 FROM staged_labels WHERE file_index = ?
         GROUP BY qid, docid HAVING count(*) > 1 LIMIT 1)
        UNION ALL
        SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM staged_labels WHERE file_index = ?)
        LIMIT 1
        """,
        [file_index, file_index, file_index],
    ).fetchone()
    if problem is not None:
        con.execute("DELETE FROM staged_labels WHERE file_index = ?", [file_index])
        raise FastPathRefused("repeated pair, non-finite grade or no rows")


def stage_labels(con: Connection, file_index: int, rows: Sequence[QrelsRow]) -> None:
    con.execute(
        "INSERT INTO staged_labels SELECT ?, unnest(?::VARCHAR[]), unnest(?::VARCHAR[]),"
        " unnest(?::DOUBLE[])",
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
