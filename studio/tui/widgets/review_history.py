"""Review's sidebar: the decisions still being saved on top, then the last ones the log holds."""

from __future__ import annotations

from collections.abc import Sequence

from studio.domain.rows import Decision
from studio.domain.steps import ReviewStep

SAVING = "saving…"


def _grade(value: float | None) -> str:
    return f" {value:g}" if value is not None else ""


def history_rows(pending: Sequence[ReviewStep], logged: Sequence[Decision]) -> list[tuple[str, str, str]]:
    """(pair, decision, row key) per row, newest first; a row key is `id|qid|docid`."""
    rows: list[tuple[str, str, str]] = []
    for number, step in reversed(list(enumerate(pending))):
        pair = f"{step.qid} {step.docid}" if step.known else "the last decision"
        rows.append(
            (pair, f"{step.action}{_grade(step.grade)} · {SAVING}", f"pending-{number}|{step.qid}|{step.docid}")
        )
    for decision in logged:
        rows.append(
            (
                f"{decision['qid']} {decision['docid']}",
                f"{decision['action']}{_grade(decision['grade'])}",
                f"{decision['decision']}|{decision['qid']}|{decision['docid']}",
            )
        )
    return rows
