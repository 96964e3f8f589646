"""Exports: a label set as TREC qrels, a test bank in its three formats, a leaderboard as a table.

Each export reads the project's current state and writes one file atomically (a temporary file
in the same folder, renamed into place), so a reader of the output never sees half of it and
an interrupted export leaves any earlier file untouched. The target `-` means stdout.
"""

from __future__ import annotations

import csv
import io
import json
import os
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from studio.domain.errors import UsageError
from studio.formats.bank_writers import BankFormat, encode, format_for_name, losses, render_bank
from studio.formats.trec import write_qrels
from studio.services.evaluation import DEFAULT_MEASURES
from studio.services.project import Project
from studio.store import Database
from studio.store import banks as bank_store
from studio.store import labels as label_store
from studio.store.pools import topic_texts

STDOUT = "-"


class TableFormat(StrEnum):
    json = "json"
    tsv = "tsv"
    csv = "csv"


@dataclass
class ExportReport:
    """What was written where, and what the format could not carry."""

    what: str
    name: str
    target: str
    counts: dict[str, int] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def summary(self) -> str:
        counted = ", ".join(f"{value:,} {key}" for key, value in self.counts.items())
        return f"exported {self.what} {self.name} to {self.target}: {counted}"


def deliver(text: str, target: str | Path) -> str:
    """Write `text` to stdout or, atomically, to a file (gzipped when its name ends in .gz)."""
    if str(target) == STDOUT:
        sys.stdout.write(text)
        sys.stdout.flush()
        return "<stdout>"
    path = Path(target)
    data = encode(text, path.name.lower().endswith(".gz"))
    try:
        mode = path.stat().st_mode & 0o777 if path.exists() else _default_mode()
        handle, partial = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".partial")
    except OSError as error:
        raise UsageError(f"cannot write {path}: {error.strerror or error}") from error
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(partial, mode)
        os.replace(partial, path)
    except BaseException as error:
        Path(partial).unlink(missing_ok=True)
        if isinstance(error, OSError):
            raise UsageError(f"cannot write {path}: {error.strerror or error}") from error
        raise
    return str(path)


def _default_mode() -> int:
    """What `open()` would give a new file: 0o666 less the umask (mkstemp makes 0o600)."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


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


def export_bank(db: Database, name: str, path: str | Path, fmt: BankFormat | str | None = None) -> ExportReport:
    """A test bank's current items; the format defaults to the file name's (.tsv, else rubric)."""
    con = db.cursor()
    bank = bank_store.bank_id(con, name)
    if bank is None:
        raise UsageError(f"no bank named {name!r} (see `studio list banks`)")
    try:
        chosen = format_for_name(str(path)) if fmt is None else BankFormat(fmt)
    except ValueError:
        raise UsageError(f"unknown bank format {fmt!r} (rubric, nuggetizer or tsv)") from None
    items = bank_store.current_items(con, bank)
    texts = topic_texts(con, sorted({item.qid for item in items}))
    text = render_bank(items, chosen, texts, test_collection=name)
    warnings = losses(items, chosen) + ([] if items else [f"bank {name!r} holds no items: the file is empty"])
    target = deliver(text, path)
    counts = {"topics": len({item.qid for item in items}), "items": len(items)}
    return ExportReport("bank", f"{name} as {chosen}", target, counts, warnings)


def table_format_for_name(name: str) -> TableFormat:
    stem = name.lower().removesuffix(".gz")
    return next((f for f in (TableFormat.tsv, TableFormat.csv) if stem.endswith(f".{f}")), TableFormat.json)


def render_table(rows: Sequence[dict[str, Any]], fmt: TableFormat) -> str:
    """JSON exactly as `studio eval --format json` prints it; TSV/CSV with full-precision values."""
    if fmt is TableFormat.json:
        return json.dumps(list(rows), ensure_ascii=False, indent=2) + "\n"
    out = io.StringIO()
    writer = csv.writer(out, delimiter="\t" if fmt is TableFormat.tsv else ",", lineterminator="\n")
    columns = list(rows[0]) if rows else ["run", "measure", "value", "topics"]
    writer.writerow(columns)
    writer.writerows([[_cell(row.get(c)) for c in columns] for row in rows])
    return out.getvalue()


def _cell(value: Any) -> str:
    # repr keeps every bit of a float, so a spreadsheet and the JSON agree exactly.
    return "" if value is None else repr(value) if isinstance(value, float) else str(value)


def export_leaderboard(
    source: Project | Database,
    label_set: str,
    measures: Sequence[str] | None,
    path: str | Path,
    fmt: TableFormat | str | None = None,
    *,
    per_topic: bool = False,
    complete: bool = False,
) -> ExportReport:
    """The rows of `studio eval` under a label set; the format defaults to the file name's."""
    project = source if isinstance(source, Project) else Project(source)
    try:
        chosen = table_format_for_name(str(path)) if fmt is None else TableFormat(fmt)
    except ValueError:
        raise UsageError(f"unknown leaderboard format {fmt!r} (json, tsv or csv)") from None
    rows = project.evaluate(label_set, list(measures or DEFAULT_MEASURES), per_topic=per_topic, complete=complete)
    target = deliver(render_table(rows, chosen), path)
    counts = {"runs": len({row["run"] for row in rows}), "rows": len(rows)}
    return ExportReport("leaderboard under", label_set, target, counts)


def export_judgments(db: Database, label_set: str, path: str | Path) -> ExportReport:
    """The newest judge run of a label set as UMBRELA-style judgment JSONL (prompt, raw output,
    judgment, result_status), one line per judged unit."""
    from studio.formats.judgments import write_judgments

    con = db.cursor()
    set_id = label_store.label_set_id(con, label_set)
    if set_id is None:
        raise UsageError(f"no label set named {label_set!r} (see `studio list qrels`)")
    rows = con.execute(
        """
        SELECT g.qid, g.docid, g.docid_b, g.item_id, g.label, g.parse_error, c.messages, c.output,
               r.method, r.model, g.confidence, g.expected, c.label_probs, r.backend, r.params
        FROM judgments g JOIN judge_runs r USING (judge_run_id) LEFT JOIN calls c ON c.key = g.call_key
        WHERE g.judge_run_id = (SELECT max(judge_run_id) FROM judge_runs WHERE label_set_id = ?)
        ORDER BY g.qid, g.docid, g.docid_b, g.item_id
        """,
        [set_id],
    ).fetchall()
    if not rows:
        raise UsageError(f"label set {label_set!r} was not made by a judge")
    records = []
    for qid, docid, docid_b, item_id, label, error, messages, output, method, model, confidence, expected, \
            probs, backend, params in rows:
        # An imported run names the backend that made it in its configuration.
        made_by = (json.loads(params).get("config") or {}).get("backend") or backend
        record: dict[str, Any] = {"qid": qid, "docid": docid}
        if docid_b is not None:
            record["docid_b"] = docid_b
        if item_id is not None:
            record["item_id"] = item_id
        judgment = None if label is None else int(label) if float(label).is_integer() else label
        record |= {"model": model, "backend": made_by, "method": method,
                   "prompt": json.loads(messages) if messages else None,
                   "prediction": output, "judgment": judgment, "result_status": 0 if label is None else 1}
        if error:
            record["error"] = error
        if confidence is not None:
            record |= {"confidence": confidence, "expected": expected, "label_probs": json.loads(probs or "null")}
        records.append(record)
    target = deliver(write_judgments(records), path)
    failures = sum(1 for r in records if r["result_status"] == 0)
    return ExportReport("judgments", label_set, target, {"judgments": len(records), "failures": failures}, [])
