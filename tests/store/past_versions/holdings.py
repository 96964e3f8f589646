"""What a project file holds, read with DuckDB alone (no studio code), so that a file written by an
older studio can be described before the current one migrates it, and compared after.

Counts cover every table and view the file has of those below; digests (sha256 of the sorted rows,
timestamps left out) cover the contents a migration must carry over unchanged.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import duckdb

# Tables and views whose rows are counted, when the file has them (the newer ones arrived later).
COUNTED = (
    "batches",
    "topics",
    "documents",
    "runs",
    "run_rows",
    "responses",
    "label_sets",
    "labels",
    "label_events",
    "banks",
    "bank_items",
    "bank_events",
    "calls",
    "judge_runs",
    "judgments",
    "derivations",
    "review_decisions",
    "embeddings",
    "probes",
    "probe_results",
    "audits",
    "audit_units",
    "audit_grades",
    "calibrations",
    "ensembles",
    "label_spreads",
)

# Contents by name: a query whose rows are digested, and the tables it needs.
DIGESTED: dict[str, tuple[str, tuple[str, ...]]] = {
    "topics": ("SELECT qid, text FROM topics", ("topics",)),
    "documents": ("SELECT docid, title, text FROM documents", ("documents",)),
    "run_rows": (
        "SELECT r.name, x.qid, x.docid, x.rank, x.score FROM run_rows x JOIN runs r USING (run_id)",
        ("runs", "run_rows"),
    ),
    "labels": (
        "SELECT s.name, l.qid, l.docid, l.grade FROM labels l JOIN label_sets s USING (label_set_id)",
        ("labels", "label_sets"),
    ),
    "label_events": (
        "SELECT e.event_id, s.name, e.qid, e.docid, e.grade, e.previous, e.origin, e.source, e.note, e.undoes,"
        " e.batch_id FROM label_events e JOIN label_sets s USING (label_set_id)",
        ("label_events", "label_sets"),
    ),
    "bank_items": (
        "SELECT b.name, i.item_id, i.qid, i.kind, i.text, i.importance, i.gold_answers, i.position"
        " FROM bank_items i JOIN banks b USING (bank_id)",
        ("bank_items", "banks"),
    ),
    "judgments": (
        "SELECT judge_run_id, qid, docid, docid_b, call_key, label, parse_error FROM judgments",
        ("judgments",),
    ),
    "calls": ("SELECT key, backend, model, output, error FROM calls", ("calls",)),
}


def relations(con: duckdb.DuckDBPyConnection) -> set[str]:
    """The names of the file's tables and views."""
    return {row[0] for row in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}


def digest(rows: list[tuple[Any, ...]]) -> str:
    """sha256 of the rows in a canonical order (their JSON text sorted)."""
    lines = sorted(json.dumps(list(row), default=str, ensure_ascii=False) for row in rows)
    return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()


def holdings(con: duckdb.DuckDBPyConnection) -> dict[str, dict[str, Any]]:
    """{"counts": {relation: rows}, "digests": {name: sha256}} of what the file has."""
    present = relations(con)
    counts: dict[str, Any] = {}
    for name in COUNTED:
        if name in present:
            row = con.execute(f"SELECT count(*) FROM {name}").fetchone()
            counts[name] = int(row[0]) if row else 0
    digests: dict[str, Any] = {}
    for name, (query, needs) in DIGESTED.items():
        if present.issuperset(needs):
            digests[name] = digest(con.execute(query).fetchall())
    return {"counts": counts, "digests": digests}


def schema_versions(con: duckdb.DuckDBPyConnection) -> list[int]:
    """The versions recorded in the file's schema_version table, in order."""
    return [int(row[0]) for row in con.execute("SELECT version FROM schema_version ORDER BY version").fetchall()]
