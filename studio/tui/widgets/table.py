"""The studio's data table: Textual's DataTable, redrawn whole when new rows widen its columns.

DataTable renders and caches its cells before it measures newly added rows (it measures them
on the next Idle). Its caches are keyed by an update count that a Resize bumps, but a table
whose size does not change (as many rows as before, fixed width) gets no Resize when only its
columns widen: cells painted in between (the header first of all) stayed at the old widths,
so the header no longer lined up with the rows until something else redrew the table."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Generic, TypeVar

from textual.widgets import DataTable
from textual.widgets.data_table import RowKey

Cell = TypeVar("Cell")


class Table(DataTable[Cell], Generic[Cell]):
    def _update_dimensions(self, new_rows: Iterable[RowKey]) -> None:
        before = self._widths()
        super()._update_dimensions(new_rows)
        if self._widths() != before:
            self._clear_caches()
            self._update_count += 1
            self.refresh()

    def _widths(self) -> list[int]:
        return [column.get_render_width(self) for column in self.ordered_columns]
