"""Review's sidebar draws only the decisions it has lines for, the cursor's row always among them:
decisions typed faster than they are saved pile up, and drawing them all slowed every key."""

from __future__ import annotations

import asyncio

from textual.app import App, ComposeResult

from studio.tui.widgets.review_history import HistoryList

HEIGHT = 12


class Sidebar(App[None]):
    CSS = f"HistoryList {{ height: {HEIGHT}; }}"

    def compose(self) -> ComposeResult:
        yield HistoryList(id="history")


def rows(count: int) -> list[tuple[str, str, str]]:
    return [(f"q{n} d{n}", f"grade {n % 4}", f"{n}|q{n}|d{n}") for n in range(count)]


def drawn_lines(history: HistoryList) -> list[str]:
    return str(history.render()).splitlines()


def test_a_long_history_draws_one_screenful() -> None:
    async def main() -> None:
        app = Sidebar()
        async with app.run_test(size=(60, 20)) as pilot:
            history = app.query_one(HistoryList)
            history.show(rows(100))
            await pilot.pause()
            lines = drawn_lines(history)
            assert len(lines) == HEIGHT
            assert lines[0].startswith("q0 d0")  # newest first, from the top

    asyncio.run(main())


def test_the_cursor_row_stays_drawn_when_it_moves_past_the_bottom() -> None:
    async def main() -> None:
        app = Sidebar()
        async with app.run_test(size=(60, 20)) as pilot:
            history = app.query_one(HistoryList)
            history.show(rows(100))
            history.focus()
            await pilot.pause()
            for _ in range(40):
                history.action_move(1)
            await pilot.pause()
            lines = drawn_lines(history)
            assert len(lines) == HEIGHT
            assert lines[-1].startswith("q40 d40")
            history.action_choose()
            assert history.rows[history.cursor][2] == "40|q40|d40"

    asyncio.run(main())


def test_a_short_history_draws_every_row() -> None:
    async def main() -> None:
        app = Sidebar()
        async with app.run_test(size=(60, 20)) as pilot:
            history = app.query_one(HistoryList)
            history.show(rows(3))
            await pilot.pause()
            assert [line.split()[0] for line in drawn_lines(history)] == ["q0", "q1", "q2"]

    asyncio.run(main())
