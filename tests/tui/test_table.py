"""The studio's Table keeps its header lined up with its rows when a new row widens a column and
the table's size stays the same (a paint may come before the table measures the row)."""

from __future__ import annotations

import asyncio
from typing import Any

from textual.app import App, ComposeResult
from textual.widgets import DataTable

from studio.tui.widgets.table import Table


class OneTable(App[None]):
    CSS = "DataTable { height: auto; max-height: 12; }"

    def __init__(self, kind: type[DataTable[Any]]) -> None:
        super().__init__()
        self.kind = kind

    def compose(self) -> ComposeResult:
        table = self.kind(id="t", cursor_type="row", show_cursor=False)
        table.add_columns("Label set", "Grade", "Confidence")
        yield table


def header_after_widening(kind: type[DataTable[Any]]) -> tuple[str, str]:
    """The header as painted once the table has measured a wider row, and as it should read."""

    async def main() -> tuple[str, str]:
        app = OneTable(kind)
        async with app.run_test(size=(80, 12)) as pilot:
            table = app.query_one(DataTable)
            table.add_row("short", "0", "0.27")
            await pilot.pause(0.1)
            table.clear()
            table.add_row("umbrela-smol", "0", "0.27")  # as many rows as before: no Resize
            table.render_line(0)  # a paint that comes before the table measures the new row
            for _ in range(3):
                await pilot.pause(0.05)
            painted = table.render_line(0).text
            table._clear_caches()
            return painted, table.render_line(0).text

    return asyncio.run(main())


def test_the_header_follows_a_widened_column() -> None:
    painted, expected = header_after_widening(Table)
    assert painted == expected
    assert painted.index("Grade") == len(" umbrela-smol  ")


def test_textuals_own_table_still_needs_it() -> None:
    """When this fails, Textual redraws widened columns itself and Table can go."""
    painted, expected = header_after_widening(DataTable)
    assert painted != expected
