"""The report's sections on leaderboards: every label set's leaderboard, the comparison table,
alignment bars, τ scatter plots and topic-subsampling curves."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from studio.domain.comparisons import MethodComparison
from studio.domain.frames import TopicChoice, frame_line
from studio.domain.report import Cell, Figure, Interval, Section, Spread, Table
from studio.metrics.correlation import pooled_tau, subsample_tau
from studio.services.evaluation.engine import EvaluationEngine, measure_of
from studio.services.meta.frame import aligned_matrices, comparison_frame, side_means
from studio.services.meta.label_agreement import finite as _finite
from studio.services.meta.rank_correlation import SUBSAMPLE_TRIALS
from studio.services.report.cells import FigureNames, statistic
from studio.services.report.figures import (
    CATEGORY_PAIRS,
    alignment_bars,
    subsampling_curves,
    tau_scatter,
    topic_run_scatter,
)
from studio.services.report.summary_figures import MAX_SET_FIGURES, alignment_spread
from studio.store import runs as run_store

SUBSAMPLING_FRACTIONS = tuple(i / 10 for i in range(1, 11))
SEED = 0


# -- 2. leaderboards --------------------------------------------------------------------------


def leaderboards(boards: Mapping[str, Mapping[str, float | None]], reference: str, measure: str) -> Section:
    ref_board = boards[reference]
    order = sorted(ref_board, key=lambda run: (ref_board[run] is None, -(ref_board[run] or 0.0), run))
    ref_column = f"{reference} (reference)"
    columns = ["rank", "run", ref_column, *(name for name in boards if name != reference)]
    rows: list[dict[str, Cell]] = []
    for rank, run in enumerate(order, 1):
        row: dict[str, Cell] = {"rank": rank, "run": run, ref_column: ref_board[run]}
        row.update({name: board.get(run) for name, board in boards.items() if name != reference})
        rows.append(row)
    return Section(
        "leaderboards",
        "Leaderboards",
        f"Every run's mean {measure} under each label set, ranked by the reference {reference}: a label "
        "set that can replace the reference keeps this order.",
        [Table(f"{measure} per run and label set", columns, rows, empty="no runs loaded")],
    )


# -- 3. comparison ----------------------------------------------------------------------------

COMPARISON_COLUMNS = [
    "label set",
    "topics",
    "pairs",
    "κ binary",
    "κ graded",
    "Krippendorff α",
    "Kendall τ",
    "τ 95% interval",
    "τ_AP",
    "τ_AP 95% interval",
    "Compat τ",
    "more lenient",
    "stricter",
]


def comparison_row(row: MethodComparison) -> dict[str, Cell]:
    return {
        "label set": row["qrels"],
        "topics": row.get("topics"),
        "pairs": row.get("pairs"),
        "κ binary": statistic(row.get("kappa_binary")),
        "κ graded": statistic(row.get("kappa_graded")),
        "Krippendorff α": statistic(row.get("krippendorff_alpha")),
        "Kendall τ": statistic(row.get("kendall_tau")),
        "τ 95% interval": Interval(statistic(row.get("kendall_tau_low")), statistic(row.get("kendall_tau_high"))),
        "τ_AP": statistic(row.get("tau_ap")),
        "τ_AP 95% interval": Interval(statistic(row.get("tau_ap_low")), statistic(row.get("tau_ap_high"))),
        "Compat τ": statistic(row.get("compat_tau")),
        "more lenient": statistic(row.get("more_lenient")),
        "stricter": statistic(row.get("stricter")),
    }


def comparison_table(
    comparisons: Mapping[str, MethodComparison], others: list[str], reference: str, measure: str, resamples: int
) -> Section:
    rows = [comparison_row(comparisons[name]) for name in others if name in comparisons]
    return Section(
        "comparison",
        "Comparison with the reference",
        f"How each label set agrees with {reference}: label agreement on the pairs both labelled (Cohen's κ at the "
        f"relevance threshold and on the grades, Krippendorff's ordinal α; the shares it grades higher or lower) "
        f"and how well its {measure} leaderboard reproduces the reference's (Kendall τ-b, τ_AP and τ of the "
        f"Compat leaderboards; intervals: bootstrap over topics, {resamples:,} resamples), both leaderboards on "
        "the topics the two label sets both label (`topics`).",
        [Table("Agreement and rank correlation", COMPARISON_COLUMNS, rows, empty="no other label set to compare")],
        notes=[f"{name}: {frame_line(comparisons[name]['frame'])}" for name in others if name in comparisons],
    )


# -- 4. alignment -----------------------------------------------------------------------------


def alignment_section(
    comparisons: Mapping[str, MethodComparison], others: list[str], reference: str, names: FigureNames
) -> Section:
    rows: list[dict[str, Cell]] = []
    figures: list[Figure] = []
    each = len(others) <= MAX_SET_FIGURES  # a figure per label set, else one over them all
    for name in others:
        alignment = comparisons[name]["alignment"] if name in comparisons else {}
        for pair in sorted(alignment, key=_pair_order):
            bucket = alignment[pair]
            rows.append(
                {
                    "label set": name,
                    "category pair": pair.replace("_vs_", " vs "),
                    "pairs": bucket.get("pairs"),
                    "agree": statistic(bucket.get("agree")),
                    "tie": statistic(bucket.get("tie")),
                    "disagree": statistic(bucket.get("disagree")),
                }
            )
        if alignment and each:
            figures.append(
                alignment_bars(
                    names("alignment", name),
                    f"{name}: agree / tie / disagree with the order of {reference}'s "
                    "Best, Acceptable and Unacceptable documents",
                    name,
                    alignment,
                )
            )
    if not each:
        figures = _alignment_overview(rows, reference, names)
    return Section(
        "alignment",
        "Alignment with the reference order",
        f"Per topic, {reference}'s grades sort documents into Best, Acceptable and Unacceptable; for every pair of "
        "documents from two categories, a label set agrees (orders them the same way), ties or disagrees.",
        [
            Table(
                "Agree / tie / disagree shares",
                ["label set", "category pair", "pairs", "agree", "tie", "disagree"],
                rows,
                empty="no other label set to compare",
            )
        ],
        figures,
    )


def _alignment_overview(rows: list[dict[str, Cell]], reference: str, names: FigureNames) -> list[Figure]:
    """Many label sets: one figure of every set's agree share per category pair."""
    agree: dict[str, list[float]] = {}
    for row in sorted(rows, key=lambda r: _pair_order(str(r["category pair"]).replace(" vs ", "_vs_"))):
        share = row["agree"]
        if isinstance(share, float):
            agree.setdefault(str(row["category pair"]).replace(" vs ", "_vs_"), []).append(share)
    if not agree:
        return []
    caption = f"Agree shares with the order of {reference}'s Best, Acceptable and Unacceptable documents, every set"
    return [alignment_spread(names("alignment"), caption, agree)]


def _pair_order(key: str) -> tuple[int, str]:
    known = CATEGORY_PAIRS
    return (known.index(key) if key in known else len(known), key)


# -- 5. τ scatter plots -----------------------------------------------------------------------


def scatter_section(
    engine: EvaluationEngine,
    comparisons: Mapping[str, MethodComparison],
    others: list[str],
    reference: str,
    measure: str,
    topics: TopicChoice,
    names: FigureNames,
) -> Section:
    """Per label set, its runs against the reference's on the topics both label, and every topic/run
    pair of those topics (UMBRELA at TREC RAG 2024, Fig. 3)."""
    m = measure_of(measure)
    figures = []
    lacking = _figures_lacking(engine, others)
    for name in others if lacking is None else []:
        frame = comparison_frame(engine, reference, name, topics)
        if not frame.runs:
            continue
        x, y = side_means(engine, frame, m, m)
        points = sorted(zip(frame.runs, x.tolist(), y.tolist(), strict=True))
        tau = statistic(comparisons[name]["kendall_tau"] if name in comparisons else None)
        figures.append(
            tau_scatter(
                names("tau", name),
                f"{measure} of each run under {reference} (x) and {name} (y), {frame.line()}",
                reference,
                name,
                measure,
                [(run, a, b) for run, a, b in points],
                tau,
            )
        )
        ref_matrix, matrix = aligned_matrices(engine.evaluator(reference), engine.evaluator(name), frame, m)
        both = ~np.isnan(ref_matrix) & ~np.isnan(matrix)
        figures.append(
            topic_run_scatter(
                names("tau-topic-run", name),
                f"{measure} of each run on each topic both {reference} and {name} label, under {reference} (x) "
                f"and {name} (y)",
                reference,
                name,
                measure,
                list(zip(ref_matrix[both].tolist(), matrix[both].tolist(), strict=True)),
                statistic(_finite(pooled_tau(ref_matrix, matrix))),
            )
        )
    notes = [lacking] if lacking else [] if others else ["There is no other label set to plot against the reference."]
    return Section(
        "scatter",
        "Run scores against the reference",
        f"Each run at its {measure} under {reference} and under the audited label set, both on the topics both "
        "label (the left plot; points on a rising line mean the same order, the title gives Kendall τ-b), and "
        "each run on each of those topics (the right plot: τ over every topic/run pair).",
        figures=figures,
        notes=notes,
    )


def _figures_lacking(engine: EvaluationEngine, others: list[str]) -> str | None:
    """Why a section of leaderboard plots per label set draws none (no run, or too many label sets
    for a figure each), or None when it draws them."""
    if not run_store.run_names(engine.db.cursor()):
        return "No run is loaded: there is no leaderboard to plot."
    if len(others) > MAX_SET_FIGURES:
        return (
            f"{len(others)} label sets: a plot each is drawn up to {MAX_SET_FIGURES} label sets; "
            "the comparison table gives each one's τ."
        )
    return None


# -- 6. topic subsampling ---------------------------------------------------------------------


def subsampling_section(
    engine: EvaluationEngine, others: list[str], reference: str, measure: str, topics: TopicChoice, names: FigureNames
) -> Section:
    m = measure_of(measure)
    percent = [f"{f:.0%}" for f in SUBSAMPLING_FRACTIONS]
    rows: list[dict[str, Cell]] = []
    curves: dict[str, list[tuple[float, float | None, float | None]]] = {}
    no_run = not run_store.run_names(engine.db.cursor())
    for name in [] if no_run else others:
        frame = comparison_frame(engine, reference, name, topics)
        ref_matrix, matrix = aligned_matrices(engine.evaluator(reference), engine.evaluator(name), frame, m)
        shared = int(ref_matrix.shape[0])
        spreads = []
        for fraction in SUBSAMPLING_FRACTIONS:
            if shared == 0:
                spreads.append(Spread(None, None))
                continue
            found = subsample_tau(ref_matrix, matrix, fraction, trials=SUBSAMPLE_TRIALS, seed=SEED)
            spreads.append(Spread(statistic(found["mean"]), statistic(found["std"])))
        if any(s.mean is not None for s in spreads):
            curves[name] = [(f, s.mean, s.std) for f, s in zip(SUBSAMPLING_FRACTIONS, spreads, strict=True)]
        rows.append({"label set": name, "topics": shared, **dict(zip(percent, spreads, strict=True))})
    figures = (
        [
            subsampling_curves(
                names("subsampling"),
                f"Kendall τ against {reference} on a random share of the topics (mean ± std over "
                f"{SUBSAMPLE_TRIALS} trials)",
                reference,
                curves,
            )
        ]
        if curves and len(curves) <= MAX_SET_FIGURES
        else []
    )
    return Section(
        "subsampling",
        "Topic subsampling",
        f"Kendall τ against {reference} when both {measure} leaderboards are built on a random share of the topics "
        f"both label sets labelled (mean ± standard deviation over {SUBSAMPLE_TRIALS} draws): how many topics a "
        "label set needs before its ranking settles.",
        [
            Table(
                "Kendall τ by share of the topics",
                ["label set", "topics", *percent],
                rows,
                empty="no run loaded: no leaderboard to subsample" if no_run else "no other label set to compare",
            )
        ],
        figures,
    )
