"""The report's section on the prompt-sensitivity study: present when label sets are linked to
prompts (`studio import qrels --prompt`, `studio import preferences`, `studio sensitivity run`).

Label sets that are not linked to a prompt and whose name holds `umbrela` are the reference rows
(UMBRELA's prompt, as in the thesis's Fig. 4.7).
"""

from __future__ import annotations

from studio.domain.prompt_study import StudyOptions, StudyReport
from studio.domain.report import Cell, Figure, Section, Table
from studio.services.facade.core import ProjectCore
from studio.services.report.cells import FigureNames, statistic
from studio.services.report.study_figures import alpha_bars, diversity_bars, prompt_bars
from studio.store import prompt_collections as prompt_store


def study_section(
    project: ProjectCore, reference: str, names: FigureNames, options: StudyOptions | None = None
) -> list[Section]:
    linked = {link["label_set"] for link in prompt_store.linked_label_sets(project.db.cursor())}
    if not linked:
        return []
    references = [
        row["name"]
        for row in project.label_sets()
        if "umbrela" in row["name"].lower() and row["name"] not in linked and row["name"] != reference
    ]
    chosen = options or StudyOptions()
    report = project.study_report(
        reference,
        references=references,
        ref_relevant=chosen.ref_relevant,
        relevant=chosen.relevant,
        variance=chosen.variance,
        binarise_ref=chosen.binarise_ref,
        pool_collections=chosen.pool_collections,
    )
    groups, cells = _group_rows(report), _cell_rows(report)
    text = (
        f"How far the labels move with the prompt's wording. Agreement with {reference}: Cohen's κ for binary "
        "(each side at its relevance level) and graded prompts, for pairwise the share of pairs ordered as the "
        f"reference in both orders (a tie when the orders disagree). Variance: {report['variance']}."
        + _options_text(report)
    )
    tables = [
        Table("Per model × group × method (Table 4.5)", list(groups[0]) if groups else ["model"], groups),
        Table("Per prompt", list(cells[0]), cells),
    ]
    return [Section("prompt-sensitivity", "Prompt sensitivity", text, tables, _figures(report, reference, names))]


def _options_text(report: StudyReport) -> str:
    """What the agreement was taken with, when it is not the default."""
    said = (
        f" Binary κ: the reference relevant at grade ≥ {report['ref_relevant']:g},"
        f" the judges at ≥ {report['relevant']:g}."
    )
    if report["binarise_ref"] is not None:
        said += f" Graded κ: the judge's grades against the reference binarised at {report['binarise_ref']:g}."
    if report["pool_collections"]:
        said += " Means and variances pool the test collections."
    return said


def _group_rows(report: StudyReport) -> list[dict[str, Cell]]:
    """Table 4.5 as the thesis prints it: a row per model × group (× collection), per method the mean
    agreement, its variance and the cells behind them."""
    rows: list[dict[str, Cell]] = []
    for row in report["table"]:
        line: dict[str, Cell] = {"model": row["model"], "group": row["group"], "collection": row["collection"]}
        for method in ("binary", "graded", "pairwise"):
            line[f"{method} mean"] = statistic(row[f"{method}_mean"])  # type: ignore[literal-required]
            line[f"{method} variance"] = statistic(row[f"{method}_variance"])  # type: ignore[literal-required]
            line[f"{method} prompts"] = row[f"{method}_cells"]  # type: ignore[literal-required]
        rows.append(line)
    return rows


def _cell_rows(report: StudyReport) -> list[dict[str, Cell]]:
    """One row per prompt × model × method × collection."""
    return [
        {
            "prompt": c["prompt"],
            "group": c["group"],
            "model": c["model"],
            "method": c["method"],
            "collection": c["collection"],
            "pairs": c["pairs"],
            "agreement": statistic(c["agreement"]),
            "τ": statistic(c["kendall_tau"]),
            "first shown wins": statistic(c["position_bias"]),
            "ties": statistic(c["tie_rate"]),
        }
        for c in report["cells"]
    ]


def _figures(report: StudyReport, reference: str, names: FigureNames) -> list[Figure]:
    """A bar per prompt for each model × method × collection (the reference rows beside them), α per
    group and the groups' lexical diversity."""
    figures = []
    panels = sorted({(c["model"], c["method"], c["collection"]) for c in report["cells"] if c["group"] != "reference"})
    for model, method, collection in panels:
        shown = [
            c
            for c in report["cells"]
            if (c["model"], c["method"], c["collection"]) == (model, method, collection)
            or (c["group"] == "reference" and c["method"] == method)
        ]
        figures.append(
            prompt_bars(
                names("prompts", f"{model}-{method}-{collection}"),
                f"Agreement with {reference} per prompt: {model}, {method}, {collection}; lines: the groups' means.",
                f"{model} · {method} · {collection}",
                shown,
            )
        )
    if report["alpha"]:
        figures.append(
            alpha_bars(names("prompt-alpha"), "Krippendorff's α between a group's prompts.", report["alpha"])
        )
    figures.append(
        diversity_bars(
            names("prompt-diversity"),
            "Mean pairwise Jaccard distance between the word sets of a group's messages.",
            report["lexical_diversity"],
        )
    )
    return figures
