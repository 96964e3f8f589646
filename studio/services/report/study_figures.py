"""The prompt-sensitivity study's figures (thesis Figs. 4.6–4.8): agreement per prompt with the
groups' means, α between a group's prompts, and the prompts' lexical diversity. Drawn as the
other figures are (figures.py): Agg canvas, default style, fixed size, no time stamp."""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib import style
from matplotlib.figure import Figure as MplFigure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from studio.domain.natural_order import natural_key
from studio.domain.prompt_study import LexicalDiversity, StudyAlpha, StudyCell
from studio.domain.report import Figure
from studio.services.report.figures import _canvas, _png

PROMPTS_SIZE = (1000, 420)
SMALL_SIZE = (640, 360)
GROUP_COLOURS = ("#3b6fb6", "#d08a2e", "#3f8f3a", "#8e5ba6", "#c4453b", "#5b6573")
REFERENCE_COLOUR = "#222222"


def colours(groups: Sequence[str]) -> dict[str, str]:
    return {g: GROUP_COLOURS[i % len(GROUP_COLOURS)] for i, g in enumerate(sorted(set(groups)))}


def prompt_bars(name: str, caption: str, title: str, cells: Sequence[StudyCell]) -> Figure:
    """One bar per prompt (coloured by author group), each group's mean a line, reference rows dashed."""
    prompts = [c for c in cells if c["group"] != "reference"]
    references = [c for c in cells if c["group"] == "reference"]
    palette = colours([c["group"] for c in prompts])
    with style.context("default"):
        figure = _canvas(PROMPTS_SIZE)
        ax = figure.add_axes((0.07, 0.3, 0.9, 0.6))
        ordered = sorted(prompts, key=lambda c: (natural_key(c["group"]), natural_key(c["prompt"])))
        values = [c["agreement"] if c["agreement"] is not None else 0.0 for c in ordered]
        ax.bar(range(len(ordered)), values, color=[palette[c["group"]] for c in ordered], width=0.7)
        handles: list[Patch | Line2D] = [Patch(color=palette[g], label=g) for g in palette]
        for group, colour in palette.items():
            found = [c["agreement"] for c in ordered if c["group"] == group and c["agreement"] is not None]
            if found:
                mean = sum(found) / len(found)
                ax.axhline(mean, color=colour, linewidth=1.5)
                handles.append(Line2D([], [], color=colour, label=f"{group} mean {mean:.2f}"))
        for reference in references:
            if reference["agreement"] is not None:
                ax.axhline(reference["agreement"], color=REFERENCE_COLOUR, linestyle="--", linewidth=1.2)
                handles.append(
                    Line2D([], [], color=REFERENCE_COLOUR, linestyle="--", label=f"{reference['prompt']} (reference)")
                )
        ax.set_xticks(range(len(ordered)), [c["prompt"] for c in ordered], rotation=60, ha="right", fontsize=8)
        ax.set_ylabel("agreement with the reference")
        ax.set_title(title, fontsize=11)
        figure.legend(handles=handles, loc="lower center", ncols=min(len(handles), 4), frameon=False, fontsize=8)
        return _png(figure, name, caption, PROMPTS_SIZE)


def alpha_bars(name: str, caption: str, rows: Sequence[StudyAlpha]) -> Figure:
    """Krippendorff's α between the prompts of each group: per model × method × collection a cluster
    of bars, one per group; the figure as wide as the clusters' labels need, so that no two overlap."""
    with style.context("default"):
        figure, size = alpha_figure(rows)
        return _png(figure, name, caption, size)


def alpha_figure(rows: Sequence[StudyAlpha]) -> tuple[MplFigure, tuple[int, int]]:
    """The α figure drawn, and its size in pixels (to be drawn under the default style)."""
    palette = colours([r["group"] for r in rows])
    keys = sorted(
        {(r["model"], r["method"], r["collection"]) for r in rows}, key=lambda k: tuple(natural_key(p) for p in k)
    )
    width = 0.8 / max(len(palette), 1)
    labels = [f"{model}\n{method}\n{collection}" for model, method, collection in keys]
    # Labels stay level, one word a line; each cluster as wide as its longest line at 8 pt (≤ 6 px a character).
    per_key = max(70, 6 * max((len(line) for label in labels for line in label.split("\n")), default=0) + 12)
    size = (max(SMALL_SIZE[0], 110 + per_key * len(keys)), 420)
    figure = _canvas(size)
    ax = figure.add_axes((80 / size[0], 0.25, 1 - 110 / size[0], 0.63))
    for g, (group, colour) in enumerate(palette.items()):
        found = {(r["model"], r["method"], r["collection"]): r["alpha"] for r in rows if r["group"] == group}
        shift = (g - (len(palette) - 1) / 2) * width
        placed = [(i + shift, found[k] or 0.0) for i, k in enumerate(keys) if k in found]
        ax.bar([x for x, _ in placed], [h for _, h in placed], width=width, color=colour, label=group)
    ax.set_xticks(range(len(keys)), labels, fontsize=8)
    ax.set_xlim(-0.6, len(keys) - 0.4)
    ax.axhline(0, color="#b9bec6", linewidth=0.8)
    ax.set_ylabel("Krippendorff's α")
    ax.set_title("Agreement between the prompts of a group", fontsize=11, loc="left")
    figure.legend(loc="upper right", ncols=len(palette), frameon=False, fontsize=8)
    return figure, size


def diversity_bars(name: str, caption: str, rows: Sequence[LexicalDiversity]) -> Figure:
    """Mean pairwise Jaccard distance of the prompts' words, per group × method, system and user."""
    with style.context("default"):
        figure = _canvas(SMALL_SIZE)
        ax = figure.add_axes((0.1, 0.3, 0.85, 0.6))
        keys = sorted({(r["group"], r["method"]) for r in rows})
        for offset, message, colour in ((-0.2, "system", "#8e5ba6"), (0.2, "user", "#3b6fb6")):
            found = {(r["group"], r["method"]): r["jaccard_distance"] for r in rows if r["message"] == message}
            heights = [found.get(k) or 0.0 for k in keys]
            ax.bar([i + offset for i in range(len(keys))], heights, width=0.4, color=colour, label=message)
        ax.set_xticks(range(len(keys)), [f"{g}\n{m}" for g, m in keys], fontsize=8)
        ax.set_ylim(0, 1)
        ax.set_ylabel("mean Jaccard distance")
        ax.set_title("Lexical diversity of the prompts", fontsize=11)
        ax.legend(frameon=False, fontsize=8)
        return _png(figure, name, caption, SMALL_SIZE)
