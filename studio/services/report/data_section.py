"""The report's section on what the project holds: counts, label sets, runs, test banks,
generated answers and judge runs."""

from __future__ import annotations

from studio.domain.report import Section, Table
from studio.domain.rows import BankInfo, JudgeRunRow, LabelSetRow, ResponseRow, RunInfo
from studio.services.facade.core import ProjectCore
from studio.services.report.cells import source_name


def data_summary(project: ProjectCore, label_sets: list[LabelSetRow]) -> Section:
    """What the project holds, one table per kind of thing."""
    tables = [
        counts_table(project.counts()),
        label_sets_table(label_sets),
        runs_table(project.runs()),
        banks_table(project.banks()),
        answers_table(project.responses()),
        judge_runs_table(project.judge_runs()),
    ]
    return Section(
        "data",
        "Data summary",
        "What the project file holds: topics, documents, label sets, runs, test banks, generated "
        "answers and the judge runs that made LLM label sets.",
        tables,
    )


def counts_table(counts: dict[str, int]) -> Table:
    return Table("Counts", ["what", "count"], [{"what": k.replace("_", " "), "count": v} for k, v in counts.items()])


def label_sets_table(label_sets: list[LabelSetRow]) -> Table:
    return Table(
        "Label sets",
        ["label set", "kind", "topics", "pairs", "events", "source"],
        [
            {
                "label set": r["name"],
                "kind": r["kind"],
                "topics": r["topics"],
                "pairs": r["pairs"],
                "events": r["events"],
                "source": source_name(r["source"]),
            }
            for r in label_sets
        ],
    )


def runs_table(runs: list[RunInfo]) -> Table:
    return Table(
        "Runs",
        ["run", "topics", "rows"],
        [{"run": r["name"], "topics": r["topics"], "rows": r["rows"]} for r in runs],
        empty="no runs loaded",
    )


def banks_table(banks: list[BankInfo]) -> Table:
    return Table(
        "Test banks",
        ["bank", "topics", "items", "questions", "nuggets", "vital", "okay", "source"],
        [
            {
                "bank": r["name"],
                **{k: r[k] for k in ("topics", "items", "questions", "nuggets", "vital", "okay")},
                "source": source_name(r["source"]),
            }
            for r in banks
        ],
        empty="no test bank loaded",
    )


def answers_table(responses: list[ResponseRow]) -> Table:
    return Table(
        "Generated answers",
        ["system", "topics", "mean characters"],
        [{"system": r["system"], "topics": r["topics"], "mean characters": r["mean_chars"]} for r in responses],
        empty="no generated answers loaded",
    )


def judge_runs_table(judge_runs: list[JudgeRunRow]) -> Table:
    return Table(
        "Judge runs",
        [
            "run",
            "label set",
            "method",
            "backend",
            "model",
            "prompt",
            "pool",
            "pairs",
            "calls",
            "cache hits",
            "failures",
        ],
        [
            {
                "run": r["run"],
                "label set": r["label_set"],
                "method": r["method"],
                "backend": r["backend"],
                "model": r["model"],
                "prompt": r["prompt"],
                "pool": r["pool"],
                "pairs": r["pairs"],
                "calls": r["calls"],
                "cache hits": r["cache_hits"],
                "failures": r["failures"],
            }
            for r in judge_runs
        ],
        empty="no judge has run",
    )
