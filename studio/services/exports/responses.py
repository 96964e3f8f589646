"""`studio export responses`: generated answers in the layouts `studio import responses` reads."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from studio.domain.errors import UsageError
from studio.domain.export_report import ExportReport
from studio.formats.responses import RESPONSE_LAYOUTS, write_responses
from studio.services.exports.delivery import deliver
from studio.store import Database, catalog


def export_responses(
    db: Database, path: str | Path, *, systems: Sequence[str] | None = None, layout: str = "jsonl"
) -> ExportReport:
    """The answers of `systems` (default: every system), by system then topic."""
    if layout not in RESPONSE_LAYOUTS:
        raise UsageError(f"--layout: choose one of {', '.join(RESPONSE_LAYOUTS)}")
    con = db.cursor()
    known = catalog.response_systems(con)
    missing = sorted(set(systems or ()) - known)
    if missing:
        raise UsageError(f"no answers of system {', '.join(missing)} (see `studio list responses`)")
    answers = catalog.responses_of(con, systems)
    if not answers:
        raise UsageError("the project holds no answers (see `studio import responses`)")
    chosen = sorted({a.system for a in answers})
    target = deliver(write_responses(answers, layout), path)
    warnings = []
    if layout == "rag24":
        warnings.append("each answer is written as one sentence citing all its references (sentences are not kept)")
    return ExportReport(
        "answers of", ", ".join(chosen), target, {"systems": len(chosen), "answers": len(answers)}, warnings
    )
