"""Printing results: stdout carries data only (table, JSON, CSV or TSV); stderr the rest."""

from __future__ import annotations

import csv
import json
import sys
from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import Any

from rich.console import Console
from rich.table import Table


class OutputFormat(StrEnum):
    table = "table"
    json = "json"
    csv = "csv"
    tsv = "tsv"


def stderr_console() -> Console:
    return Console(stderr=True, highlight=False, soft_wrap=True)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.4f}" if not value.is_integer() else str(int(value))
    if isinstance(value, list | tuple):
        return ", ".join(map(str, value))
    return str(value)


def emit_records(
    records: Sequence[Mapping[str, Any]],
    fmt: OutputFormat,
    *,
    title: str | None = None,
    columns: Sequence[str] | None = None,
) -> None:
    """Print rows of a result in the chosen format (columns default to the first row's keys)."""
    names = list(columns) if columns is not None else (list(records[0]) if records else [])
    if fmt is OutputFormat.json:
        sys.stdout.write(json.dumps(list(records), ensure_ascii=False, indent=2) + "\n")
    elif fmt in (OutputFormat.csv, OutputFormat.tsv):
        writer = csv.writer(sys.stdout, delimiter="," if fmt is OutputFormat.csv else "\t",
                            lineterminator="\n")
        writer.writerow(names)
        writer.writerows([[_cell(r.get(n)) for n in names] for r in records])
    else:
        table = Table(title=title, title_justify="left", show_edge=False)
        for name in names:
            table.add_column(name, overflow="ellipsis", no_wrap=True)
        for record in records:
            table.add_row(*(_cell(record.get(n)) for n in names))
        Console(highlight=False, soft_wrap=False).print(table)


def emit_object(value: Mapping[str, Any], fmt: OutputFormat, *, title: str | None = None) -> None:
    """Print one result object: key/value rows as a table, the object itself as JSON."""
    if fmt is OutputFormat.json:
        sys.stdout.write(json.dumps(value, ensure_ascii=False, indent=2) + "\n")
    else:
        emit_records([{"key": k, "value": _cell(v)} for k, v in value.items()], fmt, title=title)
