"""The Overview screen driven through Textual's Pilot, plus one SVG snapshot.

Expectations come from the `Project` API, never from the widgets under test. Snapshots are
stored in __snapshots__/; after an intended change of the screen, regenerate them with
    .venv/bin/python -m pytest tests/tui --snapshot-update
and look at the new SVG before committing it.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from helpers import copy_project
from textual.pilot import Pilot
from textual.widgets import DataTable, Markdown, Static, TabbedContent
from tui_helpers import SIZE, Messages, drive, settle_picture, tables_settled

from studio.services.project import Project
from studio.tui.app import StudioApp
from studio.tui.screens.overview import OverviewScreen
from studio.tui.widgets.help import HelpScreen

# Table id -> (the Project listing it shows, the record key of its first column).
TABLES: dict[str, tuple[Callable[[Project], Sequence[Mapping[str, Any]]], str]] = {
    "label_sets": (Project.label_sets, "name"),
    "runs": (Project.runs, "name"),
    "topics": (Project.topics, "qid"),
    "banks": (Project.banks, "name"),
    "responses": (Project.responses, "system"),
}


@pytest.fixture(scope="module")
def sample_file(sample_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_project(sample_template, tmp_path_factory.mktemp("tui"), "sample.duckdb")


@pytest.fixture(scope="module")
def expected(sample_file: Path) -> dict[str, Any]:
    """What the tables must show, read through the Project API."""
    with Project.open(sample_file) as project:
        return {
            "counts": project.counts(),
            **{key: [str(r[first]) for r in listing(project)] for key, (listing, first) in TABLES.items()},
        }


def overview_shown(app: StudioApp) -> bool:
    """The Overview shows what its worker read (the screen mounts after the app)."""
    return isinstance(app.screen, OverviewScreen) and app.screen.shown is not None and tables_settled(app)


async def loaded(pilot: Pilot[Any]) -> None:
    assert isinstance(pilot.app, StudioApp)
    app = pilot.app
    await settle_picture(pilot, lambda: overview_shown(app))


def summary(app: StudioApp) -> str:
    return str(app.screen.query_one("#summary", Static).visual)


def first_cells(app: StudioApp, key: str) -> list[str]:
    table = app.screen.query_one(f"#table-{key}", DataTable)
    return [str(table.get_row_at(i)[0]) for i in range(table.row_count)]


def test_overview_is_the_first_screen_and_names_the_file(sample_file: Path) -> None:
    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        assert isinstance(app.screen, OverviewScreen)
        assert app.sub_title == "sample.duckdb"
        assert summary(app).startswith("sample.duckdb")

    drive(sample_file, steps, ready=overview_shown)


def test_summary_shows_the_counts(sample_file: Path, expected: dict[str, Any]) -> None:
    c = expected["counts"]

    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        text = summary(app)
        for part in (
            f"{c['topics']} topics",
            f"{c['documents']} documents",
            f"{c['runs']} runs",
            f"{c['label_sets']} label set",
            f"{c['banks']} banks",
            f"{c['responses']} answers",
            f"({c['run_rows']:,} rows)",
        ):
            assert part in text, (part, text)
        assert "10 topics · 280 documents · 6 runs" in text

    drive(sample_file, steps, ready=overview_shown)


@pytest.mark.parametrize("key", TABLES)
def test_each_table_lists_what_the_project_holds(key: str, sample_file: Path, expected: dict[str, Any]) -> None:
    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        assert first_cells(app, key) == expected[key]

    assert expected[key], "the sample project should fill every table"
    drive(sample_file, steps, ready=overview_shown)


def test_label_sets_table_shows_the_human_set(sample_file: Path) -> None:
    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        row = app.screen.query_one("#table-label_sets", DataTable).get_row_at(0)
        assert row[:4] == ["human", "human", "10", "280"]

    drive(sample_file, steps, ready=overview_shown)


def test_number_keys_switch_tabs_and_focus_the_table(sample_file: Path) -> None:
    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        tabs = app.screen.query_one(TabbedContent)
        assert tabs.active == "label_sets"
        for number, key in zip("23451", ["runs", "topics", "banks", "responses", "label_sets"], strict=True):
            await pilot.press(number)
            await pilot.pause()
            assert tabs.active == key
            assert app.focused is app.screen.query_one(f"#table-{key}", DataTable)

    drive(sample_file, steps, ready=overview_shown)


def test_7_lists_the_leaderboards_imported_from_other_tools(sample_file: Path, tmp_path: Path) -> None:
    path = tmp_path / "copy.duckdb"
    shutil.copy(sample_file, path)
    board = tmp_path / "bm25.trec_eval"  # trec_eval -q output of one run
    board.write_text("ndcg_cut_10\t1001\t0.5000\nndcg_cut_10\t1002\t0.2500\nndcg_cut_10\tall\t0.3750\n")
    with Project.open(path) as project:
        project.import_leaderboard(board, name="bm25-te", run="lexical-bm25")
        (listed,) = project.leaderboards()

    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        await pilot.press("7")
        await pilot.pause()
        assert app.screen.query_one(TabbedContent).active == "leaderboards"
        table = app.screen.query_one("#table-leaderboards", DataTable)
        row = [str(cell) for cell in table.get_row_at(0)]
        assert row[:6] == [listed["name"], "1", "1", "2", "3", "trec_eval"]

    drive(path, steps, ready=overview_shown)


def test_r_reads_the_project_again(sample_file: Path, tmp_path: Path) -> None:
    path = tmp_path / "copy.duckdb"
    shutil.copy(sample_file, path)
    extra = tmp_path / "extra.txt"
    extra.write_text("1001 0 p1001-01 3\n1002 0 p1002-01 0\n", encoding="utf-8")

    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        assert first_cells(app, "label_sets") == ["human", "umbrela-smol"]
        app.state.project.import_qrels(extra, name="extra")
        await pilot.pause()
        assert first_cells(app, "label_sets") == ["human", "umbrela-smol"]  # nothing changes on its own
        await pilot.press("r")
        await loaded(pilot)
        assert first_cells(app, "label_sets") == ["extra", "human", "umbrela-smol"]
        assert "3 label sets" in summary(app)

    drive(path, steps, ready=overview_shown)


def test_f1_opens_the_help_and_escape_closes_it(sample_file: Path) -> None:
    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        help_text = app.screen.query_one(Markdown).source
        assert help_text.startswith("# Overview")
        assert "| `r` | Refresh |" in help_text
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, OverviewScreen)

    drive(sample_file, steps, ready=overview_shown)


def test_q_quits_the_app(sample_file: Path) -> None:
    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        await pilot.press("q")
        await pilot.pause()
        assert not app.is_running

    app = drive(sample_file, steps, ready=overview_shown)
    assert app.return_code == 0


def test_overview_snapshot(snap_compare: Any) -> None:
    """The Overview of the sample project at 120x36: summary, tabs, label sets table, footer."""
    assert snap_compare("snapshot_app.py", terminal_size=SIZE, run_before=loaded)
