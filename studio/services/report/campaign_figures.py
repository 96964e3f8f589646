"""The figures of the campaign section: the passages per grade per topic beside the pairs each
condition dropped (Table 1 of the study it follows, drawn), and the confusion of the LLM's grade with
the campaign's per condition (its Fig. 5). Drawn as `figures.py` draws: Agg canvas, default style,
fixed size, no time stamp."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib import style

from studio.domain.campaign_report import ConditionReport
from studio.domain.report import Figure
from studio.services.report.figures import _canvas, _png

POOL_SIZE = (800, 320)
CONFUSION_SIZE = (800, 300)
GRADE_COLOURS = ("#c4453b", "#e8a33d", "#8fbf5a", "#3f8f3a")  # 0 (non-relevant) to 3 (perfectly relevant)
DROPPED = "#d5d9df"


def pool_bars(name: str, caption: str, conditions: Sequence[ConditionReport]) -> Figure:
    """One bar per condition: the campaign's grades per topic, stacked by grade, and the pairs it
    dropped per topic above them, hatched."""
    with style.context("default"):
        figure = _canvas(POOL_SIZE)
        ax = figure.add_axes((0.1, 0.15, 0.64, 0.75))
        labels = [c["condition"] for c in conditions]
        bottoms = np.zeros(len(conditions))
        for grade, colour in enumerate(GRADE_COLOURS):
            heights = np.array([sum(g["per_topic"] for g in c["grades"] if g["grade"] == grade) for c in conditions])
            ax.bar(labels, heights, bottom=bottoms, color=colour, label=f"grade {grade}")
            bottoms += heights
        dropped = np.array([(c["pool"] - c["shown"]) / c["topics"] if c["topics"] else 0.0 for c in conditions])
        ax.bar(labels, dropped, bottom=bottoms, color=DROPPED, hatch="//", edgecolor="#8a9099", label="dropped")
        for x, c in enumerate(conditions):
            if c["reduction"]:
                ax.annotate(f"−{c['reduction']:.0%}", (x, bottoms[x] + dropped[x]), ha="center", va="bottom")
        tops = bottoms + dropped
        ax.set_ylim(0, (float(tops.max()) if len(tops) else 1.0) * 1.12 or 1.0)
        ax.set_ylabel("passages per topic")
        ax.set_title("Passages per topic: graded, by grade, and dropped by the condition", fontsize=11)
        ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False, fontsize=9)
        ax.grid(True, axis="y", color="#e3e7ec")
        ax.set_axisbelow(True)
        return _png(figure, name, caption, POOL_SIZE)


def confusion_grids(name: str, caption: str, llm: str, conditions: Sequence[ConditionReport]) -> Figure:
    """Per condition, the pairs at each (campaign grade, LLM grade), counts written in the cells; the
    overlap pairs whose assessors differ are in the matrix tables, not here."""
    with style.context("default"):
        figure = _canvas(CONFUSION_SIZE)
        width = 0.8 / max(len(conditions), 1)
        for i, condition in enumerate(conditions):
            ax = figure.add_axes((0.07 + i * (width + 0.04), 0.2, width - 0.02, 0.62))
            matrix = condition["matrix"]  # the people's grades (rows) against the LLM's; differing pairs apart
            rows, columns = matrix["assessor_grades"], matrix["llm_grades"]
            grid = np.array(matrix["pairs"], dtype=np.float64)
            if grid.size:
                ax.imshow(grid, cmap="Blues", aspect="auto", origin="lower")
                for (r, k), value in np.ndenumerate(grid):
                    dark = value > grid.max() / 2
                    ax.text(k, r, f"{value:.0f}", ha="center", va="center", color="white" if dark else "black")
            ax.set_xticks(range(len(columns)), [f"{g:g}" for g in columns])
            ax.set_yticks(range(len(rows)), [f"{g:g}" for g in rows])
            ax.set_xlabel(f"{llm}'s grade")
            if i == 0:
                ax.set_ylabel("campaign's grade")
            ax.set_title(f"{condition['condition']} (↑{condition['upgrades']} ↓{condition['downgrades']})", fontsize=10)
        return _png(figure, name, caption, CONFUSION_SIZE)
