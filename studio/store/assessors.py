"""Several assessors on one audit: which pairs each one is given, and every grade each one gave
(and each adjudication), append-only, tied to the gold label event written with it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from studio.store.database import Connection, records

# A row counts while the gold label event written with it stands (an undo of the event takes it back).
_LIVE = "NOT EXISTS (SELECT 1 FROM label_events u WHERE u.undoes = a.label_event)"


def replace_assignments(con: Connection, audit_id: int, rows: Sequence[tuple[str, str, str]]) -> None:
    """The audit's assignments become `rows` (qid, docid, assessor); earlier ones are dropped."""
    con.execute("DELETE FROM audit_assignments WHERE audit_id = ?", [audit_id])
    if not rows:
        return
    qids, docids, assessors = (list(column) for column in zip(*rows, strict=True))
    con.execute(
        "INSERT INTO audit_assignments SELECT ?, unnest(?::VARCHAR[]), unnest(?::VARCHAR[]), unnest(?::VARCHAR[])",
        [audit_id, qids, docids, assessors],
    )


def assignments(con: Connection, audit_id: int) -> list[tuple[str, str, str]]:
    """(qid, docid, assessor) of every assignment of the audit."""
    rows = con.execute(
        "SELECT qid, docid, assessor FROM audit_assignments WHERE audit_id = ? ORDER BY assessor, qid, docid",
        [audit_id],
    ).fetchall()
    return [(str(q), str(d), str(a)) for q, d, a in rows]


def add_assessment(
    con: Connection,
    audit_id: int,
    qid: str,
    docid: str,
    assessor: str,
    *,
    kind: str,
    grade: float | None,
    seconds: float | None,
    label_event: int,
) -> None:
    con.execute(
        "INSERT INTO audit_assessments (audit_id, qid, docid, assessor, kind, grade, seconds, label_event)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [audit_id, qid, docid, assessor, kind, grade, seconds, label_event],
    )


def standing(con: Connection, audit_id: int) -> list[dict[str, Any]]:
    """The grades and adjudications that stand: per (pair, assessor, kind) the newest live row,
    unless it took the grade back; oldest first."""
    cursor = con.execute(
        f"""
        SELECT qid, docid, assessor, kind, grade, seconds, assessment_id FROM (
            SELECT a.*, row_number() OVER (
                PARTITION BY a.qid, a.docid, a.assessor, a.kind ORDER BY a.assessment_id DESC) AS newest
            FROM audit_assessments a WHERE a.audit_id = ? AND {_LIVE}
        ) WHERE newest = 1 AND grade IS NOT NULL ORDER BY assessment_id
        """,
        [audit_id],
    )
    return records(cursor)


def decision_seconds(con: Connection) -> list[float]:
    """The seconds each timed grade of the project took (every audit's; grades whose event was undone left out)."""
    rows = con.execute(
        f"SELECT a.seconds FROM audit_assessments a WHERE a.seconds IS NOT NULL AND a.kind = 'grade' AND {_LIVE}"
    ).fetchall()
    return [float(s) for (s,) in rows]


def has_assessments(con: Connection, audit_id: int) -> bool:
    row = con.execute("SELECT count(*) FROM audit_assessments WHERE audit_id = ?", [audit_id]).fetchone()
    return bool(row and row[0])
