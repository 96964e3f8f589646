"""`studio export responses`: generated answers in the layouts `studio import responses` reads."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from studio.domain.choices import AnswerLayout
from studio.domain.errors import UsageError
from studio.domain.export_report import ExportReport
from studio.formats.responses import write_responses
from studio.services.exports.delivery import deliver
from studio.store import Database, catalog


def export_responses(
    db: Database, path: str | Path, *, systems: Sequence[str] | None = None, layout: AnswerLayout | str = "jsonl"
) -> ExportReport:
    """The answers of `systems` (default: every system), by system then topic."""
    try:
        chosen_layout = AnswerLayout(layout)
    except ValueError:
        raise UsageError(f"--as: choose one of {', '.join(AnswerLayout)}") from None
    con = db.cursor()
    known = catalog.response_systems(con)
    missing = sorted(set(systems or ()) - known)
    if missing:
        raise UsageError(f"no answers of system {', '.join(missing)} (see `studio list responses`)")
    answers = catalog.responses_of(con, systems)
    if not answers:
        raise UsageError("the project holds no answers (see `studio import responses`)")
    chosen = sorted({a.system for a in answers})
    target = deliver(write_responses(answers, chosen_layout), path)
    warnings = []
    if chosen_layout is AnswerLayout.rag24:
        warnings.append("each answer is written as one sentence citing all its references (sentences are not kept)")
    return ExportReport(
        "answers of", ", ".join(chosen), target, {"systems": len(chosen), "answers": len(answers)}, warnings
    )
