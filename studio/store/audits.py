"""Audits: the sample drawn from a label set's pool (each unit with its inclusion probability and
its place in the order it is walked in) and the units graded so far."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from studio.domain.audit_results import AuditRecord, AuditUnit
from studio.store.database import Connection, records, typed_records
from studio.store.migrations import schema_holds, v20_audit_assessors
from studio.store.new_names import new_name

# A unit: (qid, docid or None for a whole topic, stratum, inclusion probability, position).
Unit = tuple[str, str | None, str | None, float, int]


def create_audit(
    con: Connection,
    name: str,
    label_set: str,
    design: str,
    *,
    strata: str | None,
    allocation: str | None,
    pilot: str | None,
    budget: int,
    population: int,
    seed: int,
) -> int:
    name = new_name(con, "audit", name)
    row = con.execute(
        """
        INSERT INTO audits (audit_id, name, label_set, design, strata, allocation, pilot, budget, population, seed)
        VALUES (nextval('audit_ids'), ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING audit_id
        """,
        [name, label_set, design, strata, allocation, pilot, budget, population, seed],
    ).fetchone()
    assert row is not None
    return int(row[0])


def add_units(con: Connection, audit_id: int, units: Sequence[Unit]) -> None:
    if not units:
        return
    columns = list(zip(*units, strict=True))
    con.execute(
        "INSERT INTO audit_units SELECT ?, unnest(?::VARCHAR[]), unnest(?::VARCHAR[]), unnest(?::VARCHAR[]),"
        " unnest(?::DOUBLE[]), unnest(?::INTEGER[])",
        [audit_id, list(columns[0]), list(columns[1]), list(columns[2]), list(columns[3]), list(columns[4])],
    )


def audit(con: Connection, name: str) -> AuditRecord | None:
    cursor = con.execute(
        "SELECT audit_id, name, label_set, design, strata, allocation, pilot, budget, population, seed,"
        " strftime(created_at, '%Y-%m-%d %H:%M:%S') AS created FROM audits WHERE name = ?",
        [name],
    )
    found = typed_records(cursor, AuditRecord)
    return found[0] if found else None


def audit_names(con: Connection) -> frozenset[str]:
    """Every audit's name (its gold label set's name too)."""
    return frozenset(str(name) for (name,) in con.execute("SELECT name FROM audits").fetchall())


def audits(con: Connection, label_set: str | None = None) -> list[AuditRecord]:
    cursor = con.execute(
        "SELECT audit_id, name, label_set, design, strata, allocation, pilot, budget, population, seed,"
        " strftime(created_at, '%Y-%m-%d %H:%M:%S') AS created FROM audits"
        " WHERE ? IS NULL OR label_set = ? ORDER BY audit_id",
        [label_set, label_set],
    )
    return typed_records(cursor, AuditRecord)


def units(con: Connection, audit_id: int) -> list[AuditUnit]:
    """The sampled units in the order they are walked in."""
    cursor = con.execute(
        "SELECT qid, docid, stratum, inclusion, position FROM audit_units WHERE audit_id = ? ORDER BY position",
        [audit_id],
    )
    return typed_records(cursor, AuditUnit)


def inclusion_probabilities(con: Connection, audit: str) -> tuple[str, dict[tuple[str, str] | str, float]]:
    """The audit's design and each unit's inclusion probability, keyed by (qid, docid) for pairs
    and by qid for whole topics."""
    row = con.execute("SELECT audit_id, design FROM audits WHERE name = ?", [audit]).fetchone()
    if row is None:
        raise KeyError(audit)
    probabilities: dict[tuple[str, str] | str, float] = {}
    for qid, docid, inclusion in con.execute(
        "SELECT qid, docid, inclusion FROM audit_units WHERE audit_id = ?", [row[0]]
    ).fetchall():
        probabilities[qid if docid is None else (qid, docid)] = float(inclusion)
    return str(row[1]), probabilities


def add_grade(con: Connection, audit_id: int, qid: str, docid: str, label_event: int) -> None:
    con.execute(
        "INSERT INTO audit_grades (audit_id, qid, docid, label_event) VALUES (?, ?, ?, ?)",
        [audit_id, qid, docid, label_event],
    )


def graded_pairs(con: Connection, audit_id: int, gold: str) -> set[tuple[str, str]]:
    """The pairs the audit graded that still hold a gold label (an undone grade no longer counts)."""
    rows = con.execute(
        """
        SELECT DISTINCT g.qid, g.docid FROM audit_grades g
        JOIN labels l ON l.qid = g.qid AND l.docid = g.docid
        JOIN label_sets s ON s.label_set_id = l.label_set_id AND s.name = ?
        WHERE g.audit_id = ?
        """,
        [gold, audit_id],
    ).fetchall()
    return {(str(q), str(d)) for q, d in rows}


def last_live_grade(con: Connection, audit_id: int) -> dict[str, Any] | None:
    """The audit's newest grade given on a screen (timed: never one an import wrote) whose label
    event has not been undone and still sets its pair's gold grade."""
    cursor = con.execute(
        """
        SELECT g.qid, g.docid, g.label_event FROM audit_grades g
        JOIN audit_assessments a ON a.label_event = g.label_event AND a.seconds IS NOT NULL
        WHERE g.audit_id = ? AND NOT EXISTS (SELECT 1 FROM label_events u WHERE u.undoes = g.label_event)
          AND NOT EXISTS (SELECT 1 FROM audit_grades n
                          WHERE n.audit_id = g.audit_id AND n.qid = g.qid AND n.docid = g.docid
                            AND n.label_event > g.label_event)
        ORDER BY g.label_event DESC LIMIT 1
        """,
        [audit_id],
    )
    found = records(cursor)
    return found[0] if found else None


def pool(con: Connection, label_set: str) -> list[tuple[str, str, float]]:
    """(qid, docid, grade) of every pair the label set labels, in a fixed order."""
    rows = con.execute(
        "SELECT l.qid, l.docid, l.grade FROM labels l JOIN label_sets s USING (label_set_id)"
        " WHERE s.name = ? ORDER BY l.qid, l.docid",
        [label_set],
    ).fetchall()
    return [(str(q), str(d), float(g)) for q, d, g in rows]


def confidences(con: Connection, label_set: str) -> dict[tuple[str, str], float]:
    """The confidence of each pair's judgment in the label set's newest judge run (none: not judged)."""
    rows = con.execute(
        """
        WITH newest AS (SELECT max(r.judge_run_id) AS run FROM judge_runs r
                        JOIN label_sets s USING (label_set_id) WHERE s.name = ?)
        SELECT g.qid, g.docid, g.confidence FROM judgments g JOIN newest n ON g.judge_run_id = n.run
        WHERE g.docid_b IS NULL AND g.item_id IS NULL AND g.confidence IS NOT NULL
        """,
        [label_set],
    ).fetchall()
    return {(str(q), str(d)): float(c) for q, d, c in rows}


def audited_set_changes(con: Connection, audit: str) -> int:
    """How many label events the audited (LLM) set took after the audit was drawn (its sample's
    strata and inclusion probabilities come from the set as it was then)."""
    row = con.execute(
        "SELECT count(*) FROM audits a JOIN label_sets s ON s.name = a.label_set"
        " JOIN label_events e ON e.label_set_id = s.label_set_id AND e.created_at > a.created_at WHERE a.name = ?",
        [audit],
    ).fetchone()
    return int(row[0]) if row else 0


def unrecorded_gold_events(con: Connection, audit_id: int, gold: str) -> list[tuple[int, str, str, float | None]]:
    """(event, qid, docid, grade) of the label events of an audit's gold set that the audit never
    recorded (neither a gold grade nor an assessor's grade points at them) and that undo nothing:
    labels written around the audit."""
    also = (
        " AND e.event_id NOT IN (SELECT label_event FROM audit_assessments WHERE audit_id = $audit)"
        if schema_holds(con, v20_audit_assessors.VERSION)
        else ""
    )
    rows = con.execute(
        "SELECT e.event_id, e.qid, e.docid, e.grade FROM label_events e JOIN label_sets s USING (label_set_id)"
        " WHERE s.name = $gold AND e.origin <> 'undo'"
        " AND e.event_id NOT IN (SELECT label_event FROM audit_grades WHERE audit_id = $audit)"
        + also
        + " ORDER BY e.event_id",
        {"gold": gold, "audit": audit_id},
    ).fetchall()
    return [(int(e), str(q), str(d), None if g is None else float(g)) for e, q, d, g in rows]
