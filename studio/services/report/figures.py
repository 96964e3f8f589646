"""The report's figures as PNG bytes: alignment bars, τ scatter plots, topic-subsampling curves,
significance decision matrices.

Rendered with matplotlib's Agg canvas directly (no pyplot: no global figure state, safe off the
main thread) under the default style, so a user's matplotlibrc cannot change them. Sizes and
dpi are fixed and the PNG carries no software or time stamp: the same data gives the same bytes.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib import style
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure as MplFigure
from matplotlib.patches import Patch
from matplotlib.ticker import PercentFormatter

from studio.domain.comparisons import AlignmentBucket
from studio.domain.report import Figure
from studio.domain.significance_matrix import CLASS_COLOURS, CLASS_LETTERS, CLASS_MEANINGS, DecisionGrid

DPI = 100
ALIGNMENT_SIZE = (800, 260)
SCATTER_SIZE = (640, 520)
SUBSAMPLING_SIZE = (800, 440)

AGREE, TIE, DISAGREE = "#3f8f3a", "#b9bec6", "#c4453b"
# The order of Arabzadeh & Clarke: the widest gap between categories first.
CATEGORY_PAIRS = ("best_vs_unacceptable", "acceptable_vs_unacceptable", "best_vs_acceptable")


def _canvas(size: tuple[int, int]) -> MplFigure:
    figure = MplFigure(figsize=(size[0] / DPI, size[1] / DPI), dpi=DPI)
    FigureCanvasAgg(figure)
    return figure


def _png(figure: MplFigure, name: str, caption: str, size: tuple[int, int]) -> Figure:
    out = io.BytesIO()
    # No "Software" entry: the bytes depend on the data, not on which matplotlib drew them.
    figure.savefig(out, format="png", dpi=DPI, metadata={"Software": None})
    return Figure(name=name, caption=caption, png=out.getvalue(), width=size[0], height=size[1])


def _pair_label(key: str) -> str:
    return key.replace("_vs_", " vs ").replace("_", " ")


def alignment_bars(name: str, caption: str, label_set: str, alignment: Mapping[str, AlignmentBucket]) -> Figure:
    """Agree / tie / disagree shares of the cross-category pairs, one stacked bar per category pair."""
    keys = [k for k in CATEGORY_PAIRS if k in alignment] + sorted(set(alignment) - set(CATEGORY_PAIRS))
    with style.context("default"):
        figure = _canvas(ALIGNMENT_SIZE)
        ax = figure.add_axes((0.27, 0.2, 0.69, 0.64))
        for row, key in enumerate(reversed(keys)):
            bucket = alignment[key]
            left = 0.0
            parts = (
                ("agree", bucket["agree"], AGREE),
                ("tie", bucket["tie"], TIE),
                ("disagree", bucket["disagree"], DISAGREE),
            )
            for part, share, colour in parts:
                if share is None:
                    continue
                ax.barh(row, float(share), left=left, color=colour, height=0.6, label=part if row == 0 else None)
                if share >= 0.06:
                    ax.text(
                        left + float(share) / 2,
                        row,
                        f"{float(share):.0%}",
                        ha="center",
                        va="center",
                        fontsize=9,
                        color="white" if part != "tie" else "black",
                    )
                left += float(share)
            if bucket["agree"] is None:
                ax.text(0.01, row, "no pairs", va="center", fontsize=9, color="#5b6573")
        ax.set_yticks(
            range(len(keys)),
            [f"{_pair_label(k)}\n({int(alignment[k].get('pairs') or 0):,} pairs)" for k in reversed(keys)],
            fontsize=9,
        )
        ax.set_xlim(0, 1)
        ax.set_ylim(-0.5, len(keys) - 0.5)
        ax.xaxis.set_major_formatter(PercentFormatter(1.0))
        ax.set_title(f"{label_set}: order of the reference categories", fontsize=11)
        handles, labels = ax.get_legend_handles_labels()
        figure.legend(handles, labels, loc="lower center", ncols=3, frameon=False, fontsize=9)
        return _png(figure, name, caption, ALIGNMENT_SIZE)


def tau_scatter(
    name: str,
    caption: str,
    ref: str,
    label_set: str,
    measure: str,
    points: Sequence[tuple[str, float | None, float | None]],
    tau: float | None,
) -> Figure:
    """Each run at (score under `ref`, score under `label_set`), named; τ in the title."""
    shown = sorted((run, float(x), float(y)) for run, x, y in points if x is not None and y is not None)
    with style.context("default"):
        figure = _canvas(SCATTER_SIZE)
        ax = figure.add_axes((0.13, 0.11, 0.82, 0.8))
        xs = [p[1] for p in shown]
        ys = [p[2] for p in shown]
        ax.scatter(xs, ys, s=28, color="#2f6db3", zorder=3)
        if xs:
            span_x = (max(xs) - min(xs)) or 1.0
            span_y = (max(ys) - min(ys)) or 1.0
            # Names of the rightmost runs go to the left of their point, so the axis needs no room
            # past the data: a measure within [0, 1] never gets an axis running to 1.1.
            right_third = max(xs) - span_x / 3
            for run, x, y in zip((p[0] for p in shown), xs, ys, strict=True):
                left = x > right_third
                ax.annotate(
                    run,
                    (x, y),
                    xytext=(-5 if left else 5, 4),
                    textcoords="offset points",
                    fontsize=8,
                    horizontalalignment="right" if left else "left",
                )
            ax.set_xlim(*axis_limits(xs, span_x, 0.08, 0.08))
            ax.set_ylim(*axis_limits(ys, span_y, 0.08, 0.12))
        ax.grid(True, color="#e3e7ec", zorder=0)
        ax.set_xlabel(f"{measure} under {ref}")
        ax.set_ylabel(f"{measure} under {label_set}")
        tau_text = "undefined" if tau is None else f"{tau:.3f}"
        ax.set_title(f"{label_set} against {ref}: Kendall τ = {tau_text}", fontsize=11)
        return _png(figure, name, caption, SCATTER_SIZE)


def topic_run_scatter(
    name: str,
    caption: str,
    ref: str,
    label_set: str,
    measure: str,
    points: Sequence[tuple[float, float]],
    tau: float | None,
) -> Figure:
    """Every (topic, run) at (score under `ref`, score under `label_set`) on the topics both label;
    τ over those pairs in the title (UMBRELA at TREC RAG 2024, Fig. 3)."""
    with style.context("default"):
        figure = _canvas(SCATTER_SIZE)
        ax = figure.add_axes((0.13, 0.11, 0.82, 0.8))
        xs = [float(x) for x, _ in points]
        ys = [float(y) for _, y in points]
        # Thousands of points overlap: small and translucent, so density shows.
        ax.scatter(xs, ys, s=6, color="#2f6db3", alpha=0.35, linewidths=0, zorder=3)
        if xs:
            ax.set_xlim(*axis_limits(xs, (max(xs) - min(xs)) or 1.0, 0.04, 0.04))
            ax.set_ylim(*axis_limits(ys, (max(ys) - min(ys)) or 1.0, 0.04, 0.04))
        ax.grid(True, color="#e3e7ec", zorder=0)
        ax.set_xlabel(f"{measure} of a run on a topic under {ref}")
        ax.set_ylabel(f"{measure} of a run on a topic under {label_set}")
        tau_text = "undefined" if tau is None else f"{tau:.3f}"
        ax.set_title(f"{label_set} against {ref}, topic/run pairs: Kendall τ = {tau_text}", fontsize=11)
        return _png(figure, name, caption, SCATTER_SIZE)


def axis_limits(values: Sequence[float], span: float, below: float, above: float) -> tuple[float, float]:
    """An axis's range with a margin of `below`/`above` of the span, kept within [-0.02, 1.02]
    when every value lies in [0, 1] (a measure's own range)."""
    low, high = min(values) - below * span, max(values) + above * span
    if min(values) >= 0.0 and max(values) <= 1.0:
        return max(low, -0.02), min(high, 1.02)
    return low, high


def subsampling_curves(
    name: str, caption: str, ref: str, curves: Mapping[str, Sequence[tuple[float, float | None, float | None]]]
) -> Figure:
    """Mean Kendall τ (± one standard deviation) against the share of topics, one line per label set."""
    with style.context("default"):
        figure = _canvas(SUBSAMPLING_SIZE)
        ax = figure.add_axes((0.1, 0.12, 0.61, 0.78))
        for label_set in sorted(curves):
            points = [(f, float(m), float(s or 0.0)) for f, m, s in curves[label_set] if m is not None]
            fractions = [p[0] for p in points]
            means = [p[1] for p in points]
            stds = [p[2] for p in points]
            (line,) = ax.plot(fractions, means, marker="o", markersize=4, label=label_set)
            ax.fill_between(
                fractions,
                [m - s for m, s in zip(means, stds, strict=True)],
                [m + s for m, s in zip(means, stds, strict=True)],
                color=line.get_color(),
                alpha=0.15,
            )
        ax.set_xlim(0, 1.02)
        ax.set_ylim(-1.05, 1.05)
        ax.axhline(0, color="#b9bec6", linewidth=0.8)
        ax.grid(True, color="#e3e7ec")
        ax.xaxis.set_major_formatter(PercentFormatter(1.0))
        ax.set_xlabel("share of the topics the leaderboards are built on")
        ax.set_ylabel(f"Kendall τ against {ref}")
        ax.set_title("Topic subsampling: mean ± std over trials", fontsize=11)
        if curves:
            ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False, fontsize=9)
        return _png(figure, name, caption, SUBSAMPLING_SIZE)


def matrix_size(runs: int) -> tuple[int, int]:
    """A decision matrix's pixels: a square that grows with the runs, the legend to its right."""
    side = min(max(320 + 14 * runs, 520), 1100)
    return side + 300, side


def decision_matrix(name: str, caption: str, ref: str, label_set: str, grid: DecisionGrid) -> Figure:
    """Runs × runs (the reference's order), each pair's cell coloured by the class of the two label
    sets' decisions, lettered when the cells are large enough to read; a legend of the classes."""
    runs = grid.runs
    size = matrix_size(len(runs))
    side = size[1]
    classes = list(CLASS_COLOURS)
    with style.context("default"):
        figure = _canvas(size)
        ax = figure.add_axes((0.2 * side / size[0], 0.05, 0.72 * side / size[0], 0.82))
        cells = np.full((len(runs), len(runs)), np.nan)
        for row in range(len(runs)):
            for column in range(len(runs)):
                decision = grid.decision(row, column)
                if decision is not None:
                    cells[row, column] = classes.index(decision)
        colours = ListedColormap([CLASS_COLOURS[kind] for kind in classes])
        colours.set_bad("white")  # the diagonal: a run against itself
        ax.imshow(np.ma.masked_invalid(cells), cmap=colours, vmin=-0.5, vmax=len(classes) - 0.5, aspect="equal")
        small = 7 if len(runs) > 20 else 9
        ax.set_xticks(range(len(runs)), [str(n + 1) for n in range(len(runs))], fontsize=small)
        ax.set_yticks(range(len(runs)), [f"{run} {n + 1}" for n, run in enumerate(runs)], fontsize=small)
        ax.xaxis.tick_top()
        if len(runs) <= 25:
            for row in range(len(runs)):
                for column in range(len(runs)):
                    decision = grid.decision(row, column)
                    if decision is not None and decision != "neither":
                        colour = "black" if decision == "ref_only" else "white"
                        ax.text(
                            column, row, CLASS_LETTERS[decision], ha="center", va="center", fontsize=small, color=colour
                        )
        handles = [Patch(color=CLASS_COLOURS[kind]) for kind in classes]
        labels = [f"{CLASS_LETTERS[kind]}  {CLASS_MEANINGS[kind]}" for kind in classes]
        figure.legend(handles, labels, loc="center right", frameon=False, fontsize=8)
        ax.set_title(f"{label_set} against {ref}: each run pair's decisions", fontsize=11, pad=20)
        return _png(figure, name, caption, size)
