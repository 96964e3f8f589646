"""A project report as plain data: sections of prose, tables and figures.

Services fill it in, `studio.formats.report_writers` turns it into HTML and Markdown. Cells keep
their raw values (numbers, None for undefined) so that every writer formats them the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Interval:
    """A confidence interval, written `[low, high]`."""

    low: float | None
    high: float | None


@dataclass(frozen=True, slots=True)
class Spread:
    """A mean over trials with its standard deviation, written `mean ± std`."""

    mean: float | None
    std: float | None


Cell = str | int | float | Interval | Spread | None


@dataclass(frozen=True, slots=True)
class Table:
    """Rows keyed by the column headers; `empty` says what an empty table means."""

    title: str
    columns: list[str]
    rows: list[dict[str, Cell]]
    empty: str = "none"


@dataclass(frozen=True, slots=True)
class Figure:
    """A rendered PNG, saved as figures/NAME.png beside the Markdown and inlined in the HTML."""

    name: str
    caption: str
    png: bytes
    width: int
    height: int


@dataclass(frozen=True, slots=True)
class Section:
    key: str  # the HTML anchor
    title: str
    text: str
    tables: list[Table] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Report:
    title: str
    facts: list[tuple[str, str]]  # what the report was made from: project, reference, measure…
    sections: list[Section]

    def figures(self) -> list[Figure]:
        return [figure for section in self.sections for figure in section.figures]
