"""The report's section on significance decisions: for each label set against the reference, which
run differences both call significant (paired t-test, Holm's correction, α 0.05, as `studio
significance` by default), how the audited set's decisions match the reference's, and a matrix of
every run pair's class."""

from __future__ import annotations

from studio.domain.frames import EVERY_TOPIC, TopicChoice
from studio.domain.report import Cell, Figure, Section, Table
from studio.domain.significance import DEFAULT_PLAN, TOP_K, Significance
from studio.domain.significance_matrix import CLASS_LETTERS, CLASS_MEANINGS, decision_grid
from studio.services.facade.core import ProjectCore
from studio.services.report.cells import FigureNames, statistic
from studio.services.report.figures import decision_matrix
from studio.services.report.summary_figures import MAX_SET_FIGURES
from studio.services.significance.pairs import significance

COUNTS = {"both": "both", "opposite": "opposite", "ref_only": "reference only", "qrels_only": "audited only"}


def _yes(value: bool) -> str:
    return "yes" if value else "no"


def decision_row(result: Significance, ks: list[int]) -> dict[str, Cell]:
    """One label set's row: the count of each class, precision, recall, top-k τ, the best run."""
    agreement = result.get("agreement")
    row: dict[str, Cell] = {"label set": result["qrels"]}
    if agreement is None:
        return row
    counts = {
        "both": agreement["both"],
        "opposite": agreement["opposite"],
        "ref_only": agreement["ref_only"],
        "qrels_only": agreement["qrels_only"],
    }
    row.update({title: counts[kind] for kind, title in COUNTS.items()})
    row["neither"] = agreement["neither"]
    row["precision"] = statistic(agreement["precision"])
    row["recall"] = statistic(agreement["recall"])
    taus = result.get("top_k_tau") or {}
    row.update({f"τ top {k}": statistic(taus.get(str(k))) for k in ks})
    best = result.get("best_run")
    row["best run"] = None if best is None else best["run"]
    row["beats all (reference / audited)"] = None if best is None else f"{_yes(best['ref'])} / {_yes(best['qrels'])}"
    return row


def significance_section(
    project: ProjectCore,
    reference: str,
    others: list[str],
    measure: str,
    names: FigureNames,
    topics: TopicChoice = EVERY_TOPIC,
) -> list[Section]:
    """One section when there are two runs or more and a label set to compare; none otherwise."""
    runs = len(project.leaderboard(reference, measure))
    if runs < 2 or not others:
        return []
    ks = [k for k in TOP_K if k <= runs]
    board = project.leaderboard(reference, measure)
    rows: list[dict[str, Cell]] = []
    figures: list[Figure] = []
    for name in others:
        result = significance(project.engine, name, measure, DEFAULT_PLAN, ref=reference, topics=topics)
        rows.append(decision_row(result, ks))
        if len(others) <= MAX_SET_FIGURES:  # hundreds of matrices would bury the table: it holds the counts
            caption = (
                f"{name} against {reference}: the class of each run pair's decisions ({measure}), runs in "
                f"{reference}'s order"
            )
            figures.append(
                decision_matrix(names("significance", name), caption, reference, name, decision_grid(result, board))
            )
    columns = [
        "label set",
        *COUNTS.values(),
        "neither",
        "precision",
        "recall",
        *(f"τ top {k}" for k in ks),
        "best run",
        "beats all (reference / audited)",
    ]
    legend = "; ".join(f"{CLASS_LETTERS[kind]}: {meaning}" for kind, meaning in CLASS_MEANINGS.items())
    return [
        Section(
            key="significance",
            title="Significance decisions",
            text=(
                f"Every pair of the {runs} runs is tested under {reference} and under each label set alike, on the "
                f"topics both label ({measure}; paired t-test, Holm's correction over the pairs, "
                f"α {DEFAULT_PLAN.alpha:g}). "
                "A pair's class compares the two decisions: significant under both with the same run ahead, "
                "with opposite runs ahead, under the reference only, under the audited set only, or under "
                "neither. Precision: the share of the audited set's significant pairs the reference supports "
                "in the same direction; recall: the share of the reference's it finds. τ top k: Kendall τ-b "
                f"over {reference}'s k best runs. Best run: {reference}'s, and whether it beats every other run "
                "significantly under each set."
            ),
            tables=[Table(f"Decisions against {reference}", columns, rows)],
            figures=figures,
            notes=[f"Matrix cells: {legend}."] if figures else [f"{len(others)} label sets: no matrix each."],
        )
    ]
