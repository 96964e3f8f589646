"""A label set's current labels as TREC qrels, and its newest judge run as UMBRELA-style JSONL."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from studio.domain.errors import UsageError
from studio.domain.export_report import ExportReport
from studio.formats.judgments import write_judgments
from studio.formats.trec import write_qrels
from studio.services.exports.delivery import deliver
from studio.store import Database
from studio.store import judge_outputs as output_store
from studio.store import labels as label_store


def export_qrels(db: Database, label_set: str, path: str | Path) -> ExportReport:
    """The current labels as TREC qrels; integer grades as integers, fractions exactly (repr)."""
    con = db.cursor()
    set_id = label_store.label_set_id(con, label_set)
    if set_id is None:
        raise UsageError(f"no label set named {label_set!r} (see `studio list qrels`)")
    rows = label_store.current_labels(con, set_id)
    out = io.StringIO()
    write_qrels(rows, out)
    target = deliver(out.getvalue(), path)
    counts = {"labels": len(rows), "topics": len({row.qid for row in rows})}
    warnings = [] if rows else [f"label set {label_set!r} holds no labels: the file is empty"]
    return ExportReport("qrels", label_set, target, counts, warnings)


def export_judgments(db: Database, label_set: str, path: str | Path) -> ExportReport:
    """The newest judge run of a label set as UMBRELA-style judgment JSONL (prompt, raw output,
    judgment, result_status), one line per judged unit."""
    con = db.cursor()
    set_id = label_store.label_set_id(con, label_set)
    if set_id is None:
        raise UsageError(f"no label set named {label_set!r} (see `studio list qrels`)")
    rows = output_store.newest_run_judgments(con, set_id)
    if not rows:
        raise UsageError(f"label set {label_set!r} was not made by a judge")
    records = [judgment_record(row) for row in rows]
    target = deliver(write_judgments(records), path)
    failures = sum(1 for r in records if r["result_status"] == 0)
    return ExportReport("judgments", label_set, target, {"judgments": len(records), "failures": failures}, [])


def judgment_record(unit: output_store.JudgmentRecord) -> dict[str, Any]:
    """One JSON line of the judgment file: the unit, who judged it, the prompt, answer and grade."""
    # An imported run names the backend that made it in its configuration.
    made_by = (json.loads(unit.params).get("config") or {}).get("backend") or unit.backend
    record: dict[str, Any] = {"qid": unit.qid, "docid": unit.docid}
    if unit.docid_b is not None:
        record["docid_b"] = unit.docid_b
    if unit.item_id is not None:
        record["item_id"] = unit.item_id
    label = unit.label
    judgment = None if label is None else int(label) if float(label).is_integer() else label
    record |= {
        "model": unit.model,
        "backend": made_by,
        "method": unit.method,
        "prompt": json.loads(unit.messages) if unit.messages else None,
        "prediction": unit.output,
        "judgment": judgment,
        "result_status": 0 if label is None else 1,
    }
    if unit.parse_error:
        record["error"] = unit.parse_error
    if unit.confidence is not None:
        record |= {
            "confidence": unit.confidence,
            "expected": unit.expected,
            "label_probs": json.loads(unit.label_probs or "null"),
        }
    return record
