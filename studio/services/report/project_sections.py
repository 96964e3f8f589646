"""The report's sections on the project itself: its test banks, robustness probes, embedding
distances and the audit history (what it holds: `data_section`)."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from studio.domain.bank_results import BankReport
from studio.domain.errors import UsageError
from studio.domain.report import Cell, Section, Table
from studio.domain.rows import BankInfo
from studio.judges.embedder import Embedder, TextEmbedder
from studio.metrics.correlation import kendall_tau_b
from studio.services.facade.core import ProjectCore
from studio.services.report.cells import cell, grade_text, statistic
from studio.services.rubric.diagnostics import bank_report
from studio.services.sensitivity.probes import probe_summary
from studio.services.views.bank import graders_of
from studio.store import report as report_store

TOP_SPURIOUS = 5
LATEST_EDITS = 20
FD_DEPTH = 10
# The review log's actions (review_decisions.action) and how the report heads their columns.
REVIEW_ACTIONS = {
    "grade": "graded",
    "accept": "accepted",
    "reference": "kept reference",
    "skip": "skipped",
    "flag": "flagged",
    "note": "noted",
    "undo": "undone",
}


# -- 7. test banks ----------------------------------------------------------------------------


def bank_section(project: ProjectCore, reference: str, measure: str) -> Section:
    """Each test bank's diagnostics under every rubric judge that graded with it."""
    summary: list[dict[str, Cell]] = []
    spurious: list[dict[str, Cell]] = []
    for bank in project.banks():
        found = bank_diagnostics(project, bank, reference, measure)
        summary.extend(found.summary)
        spurious.extend(found.spurious)
    return Section(
        "banks",
        "Test-bank diagnostics",
        f"For each test bank and each rubric judge that graded with it: items, spurious items (covered mostly by "
        f"documents {reference} finds non-relevant), relevant documents no item covers, cells that bank edits made "
        f"stale, and Kendall τ of the Exam-Binary {measure} leaderboard.",
        [
            Table(
                "Banks and their rubric judges",
                [
                    "bank",
                    "rubric label set",
                    "items",
                    "spurious items",
                    "uncovered relevant",
                    "stale cells",
                    "Exam-Binary τ",
                ],
                summary,
                empty="no test bank loaded",
            ),
            Table(
                f"Most spurious items (up to {TOP_SPURIOUS} per bank and judge)",
                ["bank", "rubric label set", "topic", "item", "covered", "non-relevant covered"],
                spurious,
                empty="no spurious item",
            ),
        ],
    )


class BankDiagnostics(NamedTuple):
    """One bank's rows in the section's two tables."""

    summary: list[dict[str, Cell]]  # one per rubric judge (or one saying there is none, or why it failed)
    spurious: list[dict[str, Cell]]  # its most spurious items under each judge


def bank_diagnostics(project: ProjectCore, bank: BankInfo, reference: str, measure: str) -> BankDiagnostics:
    """The bank's summary under each rubric judge that graded with it, and its most spurious items."""
    found = BankDiagnostics([], [])
    graders = graders_of(project, bank["name"])
    if not graders:
        found.summary.append({"bank": bank["name"], "rubric label set": "no rubric judge yet", "items": bank["items"]})
    for source in graders:
        try:
            report = bank_report(project.engine, bank["name"], source, ref=reference, measure=measure)
        except UsageError as error:
            found.summary.append(
                {"bank": bank["name"], "rubric label set": f"{source}: {error}", "items": bank["items"]}
            )
            continue
        found.summary.append(
            {
                "bank": bank["name"],
                "rubric label set": source,
                "items": len(report["items"]),
                "spurious items": len(report["spurious"]),
                "uncovered relevant": len(report["uncovered_relevant"]),
                "stale cells": _stale_cells(project, source),
                "Exam-Binary τ": statistic(report["tau_all_items"]),
            }
        )
        found.spurious.extend(spurious_rows(bank["name"], source, report))
    return found


def spurious_rows(bank: str, source: str, report: BankReport) -> list[dict[str, Cell]]:
    """The bank's TOP_SPURIOUS most spurious items under one rubric judge."""
    return [
        {
            "bank": bank,
            "rubric label set": source,
            "topic": item["qid"],
            "item": item["text"],
            "covered": item["covered"],
            "non-relevant covered": item["covered_nonrelevant"],
        }
        for item in report["spurious"][:TOP_SPURIOUS]
    ]


def _stale_cells(project: ProjectCore, source: str) -> int | None:
    try:
        return len(project.stale_cells(source))
    except UsageError:  # imported grades: no judge configuration to compare the bank against
        return None


# -- 8. robustness probes ---------------------------------------------------------------------

PROBE_COLUMNS = {
    "label set": "label_set",
    "method": "method",
    "model": "model",
    "documents": "documents",
    "failures": "failures",
    "mean original": "mean_original",
    "mean perturbed": "mean_perturbed",
    "mean shift": "mean_shift",
    "share moved up": "moved_up",
    "share became relevant": "became_relevant",
}


def probe_section(project: ProjectCore) -> Section:
    rows = [{column: cell(row.get(key)) for column, key in PROBE_COLUMNS.items()} for row in probe_summary(project.db)]
    rows.sort(key=lambda r: tuple(str(r[c] or "") for c in ("label set", "method", "model")))
    return Section(
        "probes",
        "Robustness probes",
        "How far each judge's labels move when a passage the reference finds non-relevant is stuffed with the "
        "query's words and a claim of relevance: mean label before and after, and the shares of documents that "
        "moved up or became relevant (newest probe per label set).",
        [Table("Probe results", list(PROBE_COLUMNS), rows, empty="no robustness probe has run yet")],
    )


# -- 9. embeddings ----------------------------------------------------------------------------


def embedding_section(
    project: ProjectCore, label_sets: list[str], reference: str, measure: str, embedder: TextEmbedder | None = None
) -> Section:
    model = embedder or Embedder()  # one model for every label set (torch loads on its first encode)
    boards = {
        name: project.fd_leaderboard(name, k=FD_DEPTH, embedder=model, ref_measure=measure) for name in label_sets
    }
    ref_scores = project.leaderboard(reference, measure)
    values = {name: {row["run"]: statistic(row["value"]) for row in board["rows"]} for name, board in boards.items()}
    ref_fd = values[reference]
    # Closest to the reference's relevant documents first, as a leaderboard reads.
    runs = sorted(ref_scores, key=lambda run: (ref_fd.get(run) is None, ref_fd.get(run) or 0.0, run))
    rows: list[dict[str, Cell]] = [{"run": run, **{name: values[name].get(run) for name in label_sets}} for run in runs]
    taus: list[dict[str, Cell]] = []
    for name, board in boards.items():
        defined = [run for run in runs if values[name].get(run) is not None]
        # Lower FD is better: −FD ranks runs the way the measure does.
        against_ref = kendall_tau_b(
            np.array([ref_scores[run] for run in defined]),
            -np.array([values[name][run] for run in defined], dtype=np.float64),
        )
        taus.append(
            {
                "label set": name,
                "relevant documents": board["relevant_documents"],
                f"τ against its own {measure}": statistic(board["kendall_tau"]),
                f"τ against {reference}'s {measure}": statistic(against_ref),
            }
        )
    model_name = next(iter(boards.values()))["model"] if boards else model.name
    return Section(
        "embeddings",
        f"Fréchet distance FD@{FD_DEPTH}",
        f"The Fréchet distance between the embeddings ({model_name}) of each run's top {FD_DEPTH} documents and "
        "those of the documents a label set finds relevant (lower is closer): an evaluation that needs no label "
        "on the retrieved documents themselves.",
        [
            Table(f"FD@{FD_DEPTH} per run and label set", ["run", *label_sets], rows, empty="no runs loaded"),
            Table(
                "Kendall τ of the FD leaderboards (runs ordered by −FD)",
                [
                    "label set",
                    "relevant documents",
                    f"τ against its own {measure}",
                    f"τ against {reference}'s {measure}",
                ],
                taus,
            ),
        ],
    )


# -- 10. audit history ------------------------------------------------------------------------


def audit_section(project: ProjectCore) -> Section:
    con = project.db.cursor()
    per_person: list[dict[str, Cell]] = [
        {
            "person": r["person"],
            "label set": r["qrels"],
            "edits": r["edits"],
            "undos": r["undos"],
            "pairs": r["pairs"],
            "first": r["first"],
            "last": r["last"],
        }
        for r in report_store.label_edit_counts(con)
    ]
    latest: list[dict[str, Cell]] = [
        {
            "time": r["time"],
            "label set": r["qrels"],
            "topic": r["qid"],
            "document": r["docid"],
            "previous": grade_text(r["previous"]),
            "grade": grade_text(r["grade"]),
            "origin": r["origin"],
            "person": r["source"],
            "note": r["note"],
        }
        for r in project.label_history(None, LATEST_EDITS)
    ]
    return Section(
        "audit",
        "Audit history",
        "Who changed which labels: audited edits and undos per person and label set, the newest edits, and the "
        "review log (every decision of the Review screen, skips, flags and notes included).",
        [
            Table(
                "Edits per person",
                ["person", "label set", "edits", "undos", "pairs", "first", "last"],
                per_person,
                empty="no label has been edited",
            ),
            Table(
                f"Latest edits (newest first, up to {LATEST_EDITS})",
                ["time", "label set", "topic", "document", "previous", "grade", "origin", "person", "note"],
                latest,
                empty="no label has been edited",
            ),
            review_table(report_store.review_action_counts(con)),
        ],
    )


def review_table(counts: list[dict[str, Any]]) -> Table:
    """The review log pivoted: one row per (reference, audited set, person), a column per action."""
    actions = [*REVIEW_ACTIONS, *sorted({r["action"] for r in counts} - set(REVIEW_ACTIONS))]
    headers = {action: REVIEW_ACTIONS.get(action, action) for action in actions}
    rows: dict[tuple[str, str, str | None], dict[str, Cell]] = {}
    totals: dict[tuple[str, str, str | None], int] = {}
    for r in counts:
        key = (r["ref"], r["qrels"], r["person"])
        row = rows.setdefault(
            key,
            {
                "reference set": r["ref"],
                "audited set": r["qrels"],
                "person": r["person"],
                **dict.fromkeys(headers.values(), 0),
            },
        )
        row[headers[r["action"]]] = int(r["decisions"])
        totals[key] = totals.get(key, 0) + int(r["decisions"])
        row["total"] = totals[key]
    return Table(
        "Review log: decisions per review and person",
        ["reference set", "audited set", "person", *headers.values(), "total"],
        list(rows.values()),
        empty="no review decision yet",
    )
