"""Review's sidebar: the decisions still being saved on top, then the last ones the log holds.

It is a line per decision with a cursor of its own, not a table or an option list: it is redrawn
on every key, and a DataTable (or an OptionList) drawing a dozen rows took a third of a keypress's
time. Each line is drawn from its decision's text once and kept: a key adds a row on top and
moves the others down a line, and laying the whole list out again as one text, on every key, was
most of a keypress's drawing."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.geometry import Region
from textual.message import Message
from textual.strip import Strip
from textual.widgets import Static

from studio.domain.rows import Decision
from studio.domain.steps import ReviewStep
from studio.tui.bindings import bindings_of

PAIR_WIDTH = 15  # "1004 p1004-16" and the like, so that the decisions line up

SAVING = "saving…"
STRIPS_KEPT = 500  # lines drawn and kept (a screenful of history, many times over)


def _grade(value: float | None) -> str:
    return f" {value:g}" if value is not None else ""


def history_rows(pending: Sequence[ReviewStep], logged: Sequence[Decision]) -> list[tuple[str, str, str]]:
    """(pair, decision, row key) per row, newest first; a row key is `id|qid|docid`."""
    rows: list[tuple[str, str, str]] = []
    for number, step in reversed(list(enumerate(pending))):
        pair = f"{step.qid} {step.docid}" if step.known else "the last decision"
        rows.append(
            (pair, f"{step.action}{_grade(step.grade)} · {SAVING}", f"pending-{number}|{step.qid}|{step.docid}")
        )
    for decision in logged:
        rows.append(
            (
                f"{decision['qid']} {decision['docid']}",
                f"{decision['action']}{_grade(decision['grade'])}",
                f"{decision['decision']}|{decision['qid']}|{decision['docid']}",
            )
        )
    return rows


class HistoryList(Static, can_focus=True):
    """The rows of `history_rows`, one line each, a cursor on one when focused; enter posts
    `Chosen` with the row key."""

    BINDINGS = bindings_of("history")

    @dataclass
    class Chosen(Message):
        key: str  # `id|qid|docid`

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.rows: list[tuple[str, str, str]] = []
        self.cursor = 0
        self.drawn: list[tuple[str, bool]] = []  # the lines shown: a row's text, and whether the cursor is on it
        self.strips: dict[tuple[str, bool, int, Style], Strip] = {}
        self._style: Style | None = None  # the lines' style in the drawing under way

    def show(self, rows: Sequence[tuple[str, str, str]]) -> None:
        self.rows = list(rows)
        self.cursor = min(self.cursor, max(len(self.rows) - 1, 0))
        self._draw()

    def row_texts(self) -> list[str]:
        """The lines shown, top first."""
        return [f"{pair:<{PAIR_WIDTH}} {decision}" for pair, decision, _ in self.rows]

    def action_move(self, step: int) -> None:
        if self.rows:
            self.cursor = min(max(self.cursor + step, 0), len(self.rows) - 1)
            self._draw()

    def action_choose(self) -> None:
        if self.rows:
            self.post_message(self.Chosen(self.rows[self.cursor][2]))

    def on_focus(self) -> None:
        self._draw()

    def on_blur(self) -> None:
        self._draw()

    def visible_rows(self) -> range:
        """The rows the sidebar has lines for, the cursor's among them. Decisions typed faster than
        they are saved pile up as "saving…" rows: drawing a hundred of them on every key, for the
        thirty lines shown, took more of a keypress than the rest of the screen."""
        lines = max(self.size.height, 1) if self.size.height else len(self.rows)
        first = max(0, min(self.cursor - lines + 1, len(self.rows) - lines))
        return range(first, min(first + lines, len(self.rows)))

    def _draw(self) -> None:
        texts = self.row_texts()
        self.drawn = [(texts[number], self.has_focus and number == self.cursor) for number in self.visible_rows()]
        self.refresh()  # the sidebar's size is fixed: its lines change, never its layout

    def render(self) -> Text:
        """The lines shown, as one text."""
        text = Text()
        for line, marked in self.drawn:
            text.append(line + "\n", style="reverse" if marked else "")
        text.rstrip()
        return text

    def render_lines(self, crop: Region) -> list[Strip]:
        # Textual's `rich_style` walks the widget's ancestors' styles: read once a drawing, not once
        # a line (thirty-odd lines, half of the sidebar's drawing on a key).
        self._style = self.rich_style
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        style = self._style if self._style is not None else self.rich_style
        width = self.size.width
        if y >= len(self.drawn):
            return Strip.blank(width, style)
        line, marked = self.drawn[y]
        key = (line, marked, width, style)
        strip = self.strips.get(key)
        if strip is None:
            if len(self.strips) > STRIPS_KEPT:
                self.strips.clear()
            shown = style + Style(reverse=True) if marked else style
            strip = self.strips[key] = Strip([Segment(line, shown)]).adjust_cell_length(width, style)
        return strip

    def on_resize(self) -> None:
        self._draw()
