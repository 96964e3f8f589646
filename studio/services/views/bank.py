"""What the Bank screen shows: a topic's items, always, and, once a rubric judge is chosen, their
coverage and stale cells and how well the leaderboards built from the bank's grades agree with
the reference."""

from __future__ import annotations

from studio.domain.errors import UsageError
from studio.domain.views import BankRow, BankView
from studio.services.facade.core import ProjectCore
from studio.services.meta.rank_correlation import correlation
from studio.services.rubric.diagnostics import bank_report
from studio.services.rubric.editing import BankEditor
from studio.store import derivations as derivation_store
from studio.store import judging as judge_store


def graders_of(project: ProjectCore, bank: str) -> list[str]:
    """Rubric label sets graded with `bank` (newest judge run), the sources of coverage."""
    return judge_store.label_sets_graded_with(project.db.cursor(), bank)


def bank_view(
    project: ProjectCore,
    bank: str,
    topic: str | None,
    source: str | None,
    *,
    ref: str = "human",
    measure: str = "nDCG@10",
) -> BankView:
    """Items of `bank` (one topic, or all); with a `source`, coverage counts from its grades,
    spurious items, uncovered relevant documents, stale cells per item and τ of the graded
    leaderboards. A grader that cannot be read leaves its columns blank and says why."""
    rows = [
        BankRow(item["qid"], item["item_id"], item["kind"], item["importance"], item["text"])
        for item in BankEditor(project.db, bank).items(topic)
    ]
    view = BankView(bank, topic, source, rows, graders=graders_of(project, bank))
    if source is None:
        return view
    problems = []
    try:
        _coverage(project, view, source, ref, measure)
    except UsageError as error:
        problems.append(str(error))
    try:  # imported grades have no judge configuration to find stale cells with
        _stale(project, view, source)
    except UsageError as error:
        problems.append(f"stale cells unknown: {error}")
    view.problem = "; ".join(problems) or None
    return view


def _coverage(project: ProjectCore, view: BankView, source: str, ref: str, measure: str) -> None:
    report = bank_report(
        project.engine, view.bank, source, ref=ref, measure=measure, topics=[view.topic] if view.topic else None
    )
    coverage = {row["item_id"]: row for row in report["items"]}
    spurious = {row["item_id"] for row in report["spurious"]}
    for row in view.items:
        found = coverage.get(row.item_id)
        row.covered_relevant = found["covered_relevant"] if found else None
        row.covered_nonrelevant = found["covered_nonrelevant"] if found else None
        row.spurious = row.item_id in spurious
    view.spurious, view.uncovered = report["spurious"], report["uncovered_relevant"]
    con = project.db.cursor()
    for name in [source, *(n for n, *_ in derivation_store.derivations_of(con, source))]:
        view.taus[name] = correlation(project.engine, ref, name, measure, details=False)["kendall_tau"]


def _stale(project: ProjectCore, view: BankView, source: str) -> None:
    view.stale = [c for c in project.stale_cells(source) if view.topic is None or c["qid"] == view.topic]
    counts: dict[str, int] = {}
    for cell in view.stale:
        counts[cell["item_id"]] = counts.get(cell["item_id"], 0) + 1
    for row in view.items:
        row.stale = counts.get(row.item_id, 0)
