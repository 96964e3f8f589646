"""The report's sections on what a partial audit proves: per audit, its size and design and the
estimated leaderboard with intervals and settled run pairs; per calibrated label set, its
cross-fitted figures and calibration curve. Present only when the project has them."""

from __future__ import annotations

from typing import NamedTuple

from studio.domain.report import Cell, Interval, Section, Table
from studio.domain.rows import AuditRow
from studio.domain.views import EstimateView
from studio.services.facade.core import ProjectCore
from studio.services.report.cells import statistic
from studio.services.views.estimates import calibration_view, estimate_view

SETTLED_SHOWN = 20  # the settled run pairs listed, largest difference first


def estimate_sections(project: ProjectCore, measure: str) -> list[Section]:
    """One section for all audits (none when the project has none)."""
    audits = project.audits()
    if not audits:
        return []
    tables = [audits_table(audits)]
    notes: list[str] = []
    for audit in audits:
        found = audit_findings(project, audit, measure)
        notes.append(found.note)
        tables.extend(found.tables)
    return [
        Section(
            key="estimates",
            title="What the audits prove",
            text=(
                "Each audit is a random sample of its label set's pool with known inclusion "
                "probabilities (`studio audit plan`). From the sample's gold grades and the label "
                "set's grades, each run's score under full human judging of this project's topics and "
                "pools is estimated with a prediction-powered interval (`studio estimate`); a run "
                "ordering is settled when the interval of the difference excludes 0."
            ),
            tables=tables,
            notes=notes,
        )
    ]


class AuditFindings(NamedTuple):
    """What one audit adds to the section."""

    note: str  # its headline, or why it has no estimate
    tables: list[Table]  # its estimated leaderboard and settled orderings (none without an estimate)


def audits_table(audits: list[AuditRow]) -> Table:
    """Every audit's size and design."""
    rows: list[dict[str, Cell]] = [
        {
            "audit": a["audit"],
            "label set": a["qrels"],
            "design": a["design"],
            "strata": a["strata"] or "–",
            "sample": a["total"],
            "graded": a["done"],
            "population": a["population"],
            "seed": a["seed"],
        }
        for a in audits
    ]
    return Table(
        title="Audits",
        columns=["audit", "label set", "design", "strata", "sample", "graded", "population", "seed"],
        rows=rows,
    )


def audit_findings(project: ProjectCore, audit: AuditRow, measure: str) -> AuditFindings:
    """One audit's headline and tables, or a note saying why it estimates nothing."""
    design = "topics" if audit["design"].startswith("topics") else "pairs"
    view = estimate_view(project, audit["qrels"], audit["audit"], measure)
    if view.error is not None:
        return AuditFindings(f"{audit['audit']}: no estimate ({view.error})", [])
    return AuditFindings(
        f"{audit['audit']} ({design}): {view.headline()}",
        [estimated_runs_table(audit, view), settled_pairs_table(audit, view)],
    )


def estimated_runs_table(audit: AuditRow, view: EstimateView) -> Table:
    """Each run's estimate and interval beside the label set's own value and the gold-only interval."""
    return Table(
        title=f"{audit['audit']}: estimated {view.measure} under full human judging",
        columns=["run", "estimate", "interval", audit["qrels"], "gold alone"],
        rows=[
            {
                "run": r["run"],
                "estimate": statistic(r["estimate"]),
                "interval": Interval(statistic(r["low"]), statistic(r["high"])),
                audit["qrels"]: statistic(r["llm"]),
                "gold alone": Interval(statistic(r["gold_low"]), statistic(r["gold_high"])),
            }
            for r in view.runs
        ],
    )


def settled_pairs_table(audit: AuditRow, view: EstimateView) -> Table:
    """The settled run orderings, the largest difference first (at most SETTLED_SHOWN)."""
    settled = [p for p in view.run_pairs if p["settled"]][:SETTLED_SHOWN]
    return Table(
        title=f"{audit['audit']}: settled run orderings ({view.settled} of {view.pairs}; the "
        f"{min(view.settled, SETTLED_SHOWN)} largest shown)",
        columns=["above", "below", "difference", "interval"],
        rows=[
            {
                "above": p["run_a"],
                "below": p["run_b"],
                "difference": statistic(p["difference"]),
                "interval": Interval(statistic(p["low"]), statistic(p["high"])),
            }
            for p in settled
        ],
        empty="no run ordering is settled yet",
    )


def calibration_sections(project: ProjectCore) -> list[Section]:
    """One section for all calibrated label sets (none when the project has none)."""
    tables: list[Table] = []
    for made in project.calibrations():
        view = calibration_view(project, made["name"])
        if view is None:
            continue
        f = view.figures
        tables.append(
            Table(
                title=f"{view.name}: {view.source} calibrated to {view.gold} ({view.method}, held-out gold pairs)",
                columns=["figure", "raw", "calibrated"],
                rows=[
                    {
                        "figure": label,
                        "raw": statistic(f.get(f"{key}_raw")),
                        "calibrated": statistic(f.get(f"{key}_calibrated")),
                    }
                    for label, key in (
                        ("graded κ", "kappa"),
                        ("linear κ", "kappa_linear"),
                        ("leaderboard τ", "tau"),
                        ("mean grade", "mean"),
                    )
                ],
            )
        )
        tables.append(
            Table(
                title=f"{view.name}: calibration curve",
                columns=["LLM value", "pairs", "mean LLM", "mean people", "map"],
                rows=[
                    {
                        "LLM value": f"{b['low']:.2f}–{b['high']:.2f}",
                        "pairs": b["pairs"],
                        "mean LLM": statistic(b["mean_llm"]),
                        "mean people": statistic(b["mean_gold"]),
                        "map": statistic(b["fitted"]),
                    }
                    for b in view.curve
                ],
            )
        )
    if not tables:
        return []
    return [
        Section(
            key="calibration",
            title="Calibrated label sets",
            text=(
                "A calibrated label set maps an LLM's grades (its expected grade where the judge gave a "
                "label distribution) to people's (`studio calibrate`); κ and τ are cross-fitted: "
                "measured on gold pairs the map was not fitted on, beside the raw set's on the same "
                "pairs."
            ),
            tables=tables,
        )
    ]
