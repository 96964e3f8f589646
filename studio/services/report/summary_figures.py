"""Figures for a project of many label sets (a prompt study links hundreds): one figure over all of
them where a figure per label set would bury the reader and bloat the file. Drawn as `figures.py`
draws: Agg canvas, default style, fixed size, no time stamp."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from matplotlib import style
from matplotlib.ticker import PercentFormatter

from studio.domain.report import Figure
from studio.services.report.figures import _canvas, _pair_label, _png

MAX_SET_FIGURES = 24  # beyond it, a section draws one figure over its label sets, not one each
SPREAD_SIZE = (800, 300)


def alignment_spread(name: str, caption: str, agree: Mapping[str, Sequence[float]]) -> Figure:
    """Per category pair, the agree shares of every label set: a box with each label set a dot."""
    keys = list(agree)
    with style.context("default"):
        figure = _canvas(SPREAD_SIZE)
        ax = figure.add_axes((0.27, 0.18, 0.69, 0.7))
        data = [list(agree[k]) for k in reversed(keys)]
        ax.boxplot(data, vert=False, widths=0.5, showfliers=False)
        for row, values in enumerate(data, 1):
            # Spread the dots a little in height so that hundreds of them stay visible, the same way every time.
            offsets = [((i * 7919) % 41 - 20) / 100 for i in range(len(values))]
            ax.scatter(values, [row + o for o in offsets], s=6, alpha=0.4, color="#3b6fb6")
        ax.set_yticks(range(1, len(keys) + 1), [f"{_pair_label(k)}\n({len(agree[k])} sets)" for k in reversed(keys)])
        ax.set_xlim(0, 1)
        ax.xaxis.set_major_formatter(PercentFormatter(1.0))
        ax.set_xlabel("share of the pairs ordered as the reference orders them (agree)")
        ax.set_title("Alignment with the reference order, every label set", fontsize=11)
        return _png(figure, name, caption, SPREAD_SIZE)
