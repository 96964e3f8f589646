"""A leaderboard (the rows of `studio eval`) as JSON, TSV or CSV."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from studio.domain.choices import DEFAULT_MEASURES, TableFormat
from studio.domain.errors import UsageError
from studio.domain.export_report import ExportReport
from studio.services.evaluation.engine import EvaluationEngine
from studio.services.exports.delivery import deliver


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
    engine: EvaluationEngine,
    label_set: str,
    measures: Sequence[str] | None,
    path: str | Path,
    fmt: TableFormat | str | None = None,
    *,
    per_topic: bool = False,
    complete: bool = False,
) -> ExportReport:
    """The rows of `studio eval` under a label set; the format defaults to the file name's."""
    try:
        chosen = table_format_for_name(str(path)) if fmt is None else TableFormat(fmt)
    except ValueError:
        raise UsageError(f"unknown leaderboard format {fmt!r} (json, tsv or csv)") from None
    rows = engine.eval_rows(label_set, list(measures or DEFAULT_MEASURES), per_topic=per_topic, complete=complete)
    target = deliver(render_table(rows, chosen), path)
    counts = {"runs": len({row["run"] for row in rows}), "rows": len(rows)}
    return ExportReport("leaderboard under", label_set, target, counts)
