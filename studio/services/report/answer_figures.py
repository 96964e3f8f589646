"""The report's figures of generated answers: one bar chart per method (the Gen-IR comparison's
figures: systems in one order, 95% bootstrap intervals), and answers on the runs' scale (runs'
similarity against their measure, the systems' similarities as a band).

Drawn as the other figures are (`studio.services.report.figures`): matplotlib's Agg canvas, the
default style, fixed sizes, PNG without a software stamp.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib import style

from studio.domain.answer_results import ScaleRow
from studio.domain.report import Figure
from studio.services.report.figures import _canvas, _png, axis_limits

BARS_SIZE = (720, 380)
SCALE_SIZE = (720, 520)
BAR, RUN, SYSTEM = "#2f6db3", "#2f6db3", "#c4453b"


def method_bars(
    name: str,
    caption: str,
    title: str,
    axis: str,
    bars: Sequence[tuple[str, float | None, float | None, float | None]],
    baseline: float = 0.0,
) -> Figure:
    """One bar per (system, score, low, high), in the order given (None: no score), interval whiskers;
    bars rise or fall from `baseline` (an Elo rating's 1500)."""
    with style.context("default"):
        figure = _canvas(BARS_SIZE)
        ax = figure.add_axes((0.1, 0.24, 0.86, 0.66))
        xs = np.arange(len(bars))
        scores = [np.nan if s is None else s for _, s, _, _ in bars]
        heights = np.nan_to_num(np.array(scores, dtype=np.float64) - baseline)
        ax.bar(xs, heights, bottom=baseline, color=BAR, width=0.6, zorder=3)
        if baseline:
            ax.axhline(baseline, color="#5b6573", linewidth=0.8, zorder=2)
        for x, (_, score, low, high) in zip(xs, bars, strict=True):
            if score is not None and low is not None and high is not None:
                ax.errorbar(x, score, yerr=[[score - low], [high - score]], color="black", capsize=4, zorder=4)
            elif score is None:
                ax.text(float(x), baseline, "n/a", ha="center", va="bottom", fontsize=8, color="#5b6573")
        ax.set_xticks(xs, [system for system, *_ in bars], rotation=30, ha="right", fontsize=9)
        ax.set_ylabel(axis)
        ax.grid(True, axis="y", color="#e3e7ec", zorder=0)
        ax.set_title(title, fontsize=11)
        return _png(figure, name, caption, BARS_SIZE)


def runs_scale_scatter(name: str, caption: str, measure: str, rows: Sequence[ScaleRow], tau: float | None) -> Figure:
    """Runs at (measure, similarity), named; each system a horizontal line, their span a shaded band."""
    runs = [r for r in rows if r["kind"] == "run" and r["similarity"] is not None and r["measure"] is not None]
    systems = [r for r in rows if r["kind"] == "system" and r["similarity"] is not None]
    with style.context("default"):
        figure = _canvas(SCALE_SIZE)
        ax = figure.add_axes((0.12, 0.11, 0.68, 0.8))
        xs = [float(r["measure"] or 0.0) for r in runs]
        ys = [float(r["similarity"] or 0.0) for r in runs]
        ax.scatter(xs, ys, s=28, color=RUN, zorder=3, label="runs")
        for row, x, y in zip(runs, xs, ys, strict=True):
            ax.annotate(row["name"], (x, y), xytext=(5, 4), textcoords="offset points", fontsize=8)
        levels = [float(r["similarity"] or 0.0) for r in systems]
        if levels:
            ax.axhspan(min(levels), max(levels), color=SYSTEM, alpha=0.12, zorder=1, label="systems' band")
        for row, level in zip(systems, levels, strict=True):
            ax.axhline(level, color=SYSTEM, linewidth=1, linestyle="--", zorder=2)
            ax.annotate(
                row["name"],
                (1.0, level),
                xycoords=("axes fraction", "data"),
                xytext=(4, 0),
                textcoords="offset points",
                fontsize=8,
                va="center",
                color=SYSTEM,
            )
        every = ys + levels
        if xs:
            ax.set_xlim(*axis_limits(xs, (max(xs) - min(xs)) or 1.0, 0.08, 0.2))
        if every:
            ax.set_ylim(*axis_limits(every, (max(every) - min(every)) or 1.0, 0.1, 0.1))
        ax.grid(True, color="#e3e7ec", zorder=0)
        ax.set_xlabel(f"{measure} of the run")
        ax.set_ylabel("mean cosine to the top-grade passages")
        tau_text = "undefined" if tau is None else f"{tau:.3f}"
        ax.set_title(f"Answers on the runs' scale: runs' Kendall τ = {tau_text}", fontsize=11)
        ax.legend(loc="lower right", frameon=False, fontsize=8)
        return _png(figure, name, caption, SCALE_SIZE)
