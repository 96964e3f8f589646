"""The Bank screen driven through Pilot: a bank always lists its items; a rubric judge adds their
coverage; edits are audited bank events that make exactly their cells stale; `g` re-grades them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from helpers import cli
from textual.pilot import Pilot
from textual.widgets import DataTable, Select
from tui_helpers import Messages, drive, settle, text_of

from studio.tui.app import StudioApp
from studio.tui.messages import BankEdited, BankLoaded, JudgeFinished
from studio.tui.screens.bank import BankScreen

COLUMNS = ("mark", "item", "kind", "importance", "rel", "nonrel", "stale", "text")


def shown(app: StudioApp) -> list[dict[str, str]]:
    table = app.screen.query_one("#items", DataTable)
    return [dict(zip(COLUMNS, map(str, table.get_row_at(i)), strict=True)) for i in range(table.row_count)]


def loaded(app: StudioApp, grader: str | None = None) -> bool:
    screen = app.screen
    return isinstance(screen, BankScreen) and screen.view is not None and screen.view.source == grader


def test_a_bank_lists_its_items_before_any_rubric_judge_graded_it(sample: Path) -> None:
    listed = json.loads(cli(sample, "bank", "list", "nuggets", "--topic", "1001", "--format", "json").stdout)
    assert len(listed) == 10

    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        [view] = [m.view for m in messages.of(BankLoaded)]
        assert (view.bank, view.topic, view.source, view.problem) == ("nuggets", "1001", None, None)
        rows = shown(app)
        assert [row["text"] for row in rows] == [item["text"] for item in listed]
        assert [row["importance"] for row in rows] == [item["importance"] or "" for item in listed]
        assert all(row[column] == "" for row in rows for column in ("rel", "nonrel", "stale"))  # no grader yet
        status = text_of(app, "#bank-status")
        assert "10 items" in status and "no rubric judge has graded it yet" in status

    drive(sample, steps, screen="bank", ready=loaded, size=(160, 48))


def test_choosing_the_grader_adds_coverage_and_switching_topics_keeps_the_list(graded: Path) -> None:
    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        view = messages.of(BankLoaded)[-1].view
        assert view.source == "exam-sim" and view.problem is None  # the bank's one grader is chosen
        assert any(row["rel"] not in ("", "0") for row in shown(app))  # topic 1001 was graded
        app.screen.query_one("#topic", Select).value = "1002"  # graded only for 1001: items, no coverage
        await settle(pilot, lambda: messages.of(BankLoaded)[-1].view.topic == "1002")
        rows = shown(app)
        assert rows and all(row["rel"] == "0" and row["nonrel"] == "0" for row in rows)

    drive(graded, steps, screen="bank", ready=lambda app: loaded(app, "exam-sim"))


def test_editing_a_nugget_marks_its_cells_stale_and_regrading_clears_them(graded: Path) -> None:
    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        screen = app.screen
        assert isinstance(screen, BankScreen) and screen.view is not None
        assert screen.view.stale_cells == 0
        first = screen.view.items[0]
        screen.query_one("#items", DataTable).focus()
        await pilot.press("e")
        await pilot.pause()
        await pilot.press("end", *" at 1 atm", "enter")  # the prompt opens with the wording selected
        await settle(pilot, lambda: screen.view is not None and screen.view.stale_cells == 28)
        assert [m.what for m in messages.of(BankEdited)] == ["edit"]
        edited = json.loads(cli(graded, "bank", "list", "nuggets", "--topic", "1001", "--format", "json").stdout)[0]
        assert edited["text"] == f"{first.text} at 1 atm"
        stale = app.state.project.stale_cells("exam-sim")
        assert len(stale) == 28 and {c["item_id"] for c in stale} == {first.item_id}
        assert shown(app)[0]["stale"] == "28"
        await pilot.press("g")
        await settle(
            pilot,
            lambda: (
                bool(messages.of(JudgeFinished))
                and not screen.regrading
                and screen.view is not None
                and screen.view.stale_cells == 0
            ),
        )
        [finished] = messages.of(JudgeFinished)
        assert finished.summary is not None and finished.summary.stale_cells == 28
        assert app.state.project.stale_cells("exam-sim") == []
        tau = app.state.project.correlation("human", "exam-sim")["kendall_tau"]
        assert screen.view.taus["exam-sim"] == tau

    drive(graded, steps, screen="bank", ready=lambda app: loaded(app, "exam-sim"))


def test_add_weight_and_delete_are_bank_events(graded: Path) -> None:
    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        screen = app.screen
        assert isinstance(screen, BankScreen) and screen.view is not None
        count = len(screen.view.items)
        screen.query_one("#items", DataTable).focus()
        await pilot.press("a")
        await pilot.pause()
        await pilot.press(*"Cooking takes longer", "enter")
        await settle(pilot, lambda: screen.view is not None and len(screen.view.items) == count + 1)
        await pilot.press("v")
        await settle(pilot, lambda: len(messages.of(BankEdited)) == 2)
        await pilot.press("d")  # asks first: n keeps the item
        await pilot.pause()
        await pilot.press("n")
        await pilot.pause()
        assert screen.view is not None and len(screen.view.items) == count + 1
        await pilot.press("d")
        await pilot.pause()
        await pilot.press("y")
        await settle(pilot, lambda: screen.view is not None and len(screen.view.items) == count)
        assert [m.what for m in messages.of(BankEdited)] == ["add", "weight", "delete"]
        ops = [
            op
            for (op,) in app.state.project.db.cursor()
            .execute(
                "SELECT op FROM bank_events e JOIN banks b USING (bank_id) WHERE b.name = 'nuggets'"
                " AND e.origin = 'person' ORDER BY event_id"
            )
            .fetchall()
        ]
        assert ops == ["add", "weight", "delete"]

    drive(graded, steps, screen="bank", ready=lambda app: loaded(app, "exam-sim"))


def test_a_deleted_item_comes_back_with_u_and_two_quick_vs_undo_each_other(graded: Path) -> None:
    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        screen = app.screen
        assert isinstance(screen, BankScreen) and screen.view is not None
        before = {(item.item_id, item.text, item.importance) for item in screen.view.items}
        screen.query_one("#items", DataTable).focus()
        await pilot.press("v", "v")  # the second before the first is saved: both toggle what is stored
        await settle(pilot, lambda: len(messages.of(BankEdited)) == 2)
        await pilot.press("d")
        await pilot.pause()
        await pilot.press("y")
        await settle(pilot, lambda: screen.view is not None and len(screen.view.items) == len(before) - 1)
        await pilot.press("u")
        await settle(pilot, lambda: screen.view is not None and len(screen.view.items) == len(before))
        assert {(item.item_id, item.text, item.importance) for item in screen.view.items} == before
        assert [m.what for m in messages.of(BankEdited)] == ["weight", "weight", "delete", "restore"]

    drive(graded, steps, screen="bank", ready=lambda app: loaded(app, "exam-sim"))
