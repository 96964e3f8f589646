"""What the Bank screen shows: a topic's items with their coverage and stale cells, and how well
the leaderboards built from the bank's grades agree with the reference."""

from __future__ import annotations

from typing import Any

from studio.domain.errors import UsageError
from studio.services.meta.comparison import correlation
from studio.services.project import Project
from studio.services.rubric.diagnostics import bank_report
from studio.services.rubric.editing import BankEditor
from studio.store import judging as judge_store
from studio.store import labels as label_store


def graders_of(project: Project, bank: str) -> list[str]:
    """Rubric label sets graded with `bank` (newest judge run), the sources of coverage."""
    return judge_store.label_sets_graded_with(project.db.cursor(), bank)


def bank_view(project: Project, bank: str, topic: str | None, source: str | None, *, ref: str = "human",
              measure: str = "nDCG@10") -> dict[str, Any]:
    """Items of `bank` (one topic, or all) with coverage counts from `source`'s grades, spurious
    items, uncovered relevant documents, stale cells per item and τ of the graded leaderboards."""
    items = BankEditor(project.db, bank).items(topic)
    view: dict[str, Any] = {"bank": bank, "topic": topic, "source": source, "items": items, "spurious": [],
                            "uncovered": [], "stale": [], "taus": {}}
    for item in items:
        item.update(covered_relevant=None, covered_nonrelevant=None, stale=0, spurious=False)
    if source is None:
        return view
    try:
        report = bank_report(project.engine, bank, source, ref=ref, measure=measure,
                             topics=[topic] if topic else None)
    except UsageError:
        report = None
    stale = [c for c in project.stale_cells(source) if topic is None or c["qid"] == topic]
    counts: dict[str, int] = {}
    for cell in stale:
        counts[cell["item_id"]] = counts.get(cell["item_id"], 0) + 1
    coverage = {row["item_id"]: row for row in (report or {}).get("items", [])}
    spurious = {row["item_id"] for row in (report or {}).get("spurious", [])}
    for item in items:
        found = coverage.get(item["item_id"], {})
        item.update(covered_relevant=found.get("covered_relevant"),
                    covered_nonrelevant=found.get("covered_nonrelevant"),
                    stale=counts.get(item["item_id"], 0), spurious=item["item_id"] in spurious)
    view.update(spurious=(report or {}).get("spurious", []), uncovered=(report or {}).get("uncovered_relevant", []),
                stale=stale)
    con = project.db.cursor()
    for name in [source, *(n for n, *_ in label_store.derivations_of(con, source))]:
        view["taus"][name] = correlation(project.engine, ref, name, measure, details=False)["kendall_tau"]
    return view
