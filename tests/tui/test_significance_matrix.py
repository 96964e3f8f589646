"""The Leaderboard's significance matrix (`s`), driven through Pilot on a project whose two label
sets' decisions fall in every class; expectations from `Project.significance` and
`Project.decision_labels`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from decision_classes_project import MEASURE, build
from textual.coordinate import Coordinate
from textual.pilot import Pilot
from textual.widgets import DataTable
from tui_helpers import SIZE, Messages, drive, settle, settle_picture, tables_settled, text_of

from studio.domain.significance_matrix import CLASS_LETTERS
from studio.services.project import Project
from studio.tui.app import StudioApp
from studio.tui.screens.leaderboard import LeaderboardScreen
from studio.tui.screens.review import ReviewScreen
from studio.tui.screens.significance import SignificanceScreen


@pytest.fixture()
def classes_project(tmp_path: Path) -> Path:
    return build(tmp_path / "classes.duckdb")


def open_on_leaderboard(path: Path, steps: Any) -> StudioApp:
    return drive(
        path,
        steps,
        screen="leaderboard",
        ref="human",
        qrels="llm",
        measure=MEASURE,
        size=(160, 40),
        ready=lambda app: isinstance(app.screen, LeaderboardScreen) and app.screen.computed is not None,
    )


async def open_matrix(app: StudioApp, pilot: Pilot[Any]) -> SignificanceScreen:
    await pilot.press("s")
    await settle(pilot, lambda: isinstance(app.screen, SignificanceScreen) and app.screen.grid is not None)
    screen = app.screen
    assert isinstance(screen, SignificanceScreen)
    return screen


def test_s_shows_every_pairs_class_in_the_references_order(classes_project: Path) -> None:
    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        project = app.state.project
        expected = project.significance("llm", MEASURE, ref="human")
        board = project.leaderboard("human", MEASURE)
        screen = await open_matrix(app, pilot)
        assert screen.grid is not None
        runs = screen.grid.runs
        assert [board[run] for run in runs] == sorted(board.values(), reverse=True)
        table = screen.query_one("#matrix", DataTable)
        assert (table.row_count, len(table.columns)) == (len(runs), len(runs))
        classes = {frozenset((p["run_a"], p["run_b"])): p["decision"] for p in expected["pairs"]}
        assert set(classes.values()) == set(CLASS_LETTERS)  # the project holds every class
        for r, row_run in enumerate(runs):
            for c, column_run in enumerate(runs):
                shown = str(table.get_cell_at(Coordinate(r, c))).strip()
                want = "" if r == c else CLASS_LETTERS[classes[frozenset((row_run, column_run))]]
                assert shown == want, (row_run, column_run)
        agreement = expected["agreement"]
        counts = text_of(app, "#counts")
        assert f"both {agreement['both']} " in counts and f"opposite {agreement['opposite']} " in counts
        assert f"precision {agreement['precision']:.3f} · recall {agreement['recall']:.3f}" in counts
        assert "t test · holm correction · α 0.05" in text_of(app, "#plan")
        await pilot.press("escape")
        assert isinstance(app.screen, LeaderboardScreen)

    open_on_leaderboard(classes_project, steps)


def test_enter_on_a_cell_opens_review_on_the_labels_behind_that_decision(classes_project: Path) -> None:
    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        screen = await open_matrix(app, pilot)
        assert screen.grid is not None
        runs = screen.grid.runs
        row, column = runs.index("bravo"), runs.index("delta")  # an opposite decision
        assert screen.grid.decision(row, column) == "opposite"
        table = screen.query_one("#matrix", DataTable)
        table.move_cursor(row=row, column=column)
        await pilot.pause()
        assert "bravo vs delta" in text_of(app, "#cell") or "delta vs bravo" in text_of(app, "#cell")
        await pilot.press("enter")
        await settle(pilot, lambda: isinstance(app.screen, ReviewScreen) and app.screen.loaded)
        review = app.screen
        assert isinstance(review, ReviewScreen) and review.session is not None
        pair = review.session.filters.decision_pair
        assert pair is not None and set(pair) == {"bravo", "delta"}
        behind = app.state.project.decision_labels("human", "llm", pair[0], pair[1], MEASURE)["labels"]
        assert behind, "the audited set's labels that the reference grades otherwise"
        queued = [(p["qid"], p["docid"]) for p in review.session.queue]
        assert queued == [(label["qid"], label["docid"]) for label in behind]
        assert f"the labels behind {pair[0]} vs {pair[1]}" in text_of(app, "#status")
        await pilot.press("f3")  # the matrix is still where the auditor left it
        await settle(pilot)
        assert isinstance(app.screen, SignificanceScreen)
        await pilot.press("enter")
        await settle(pilot, lambda: isinstance(app.screen, ReviewScreen) and app.screen.loaded)
        await pilot.press("escape")  # back where the decision was chosen
        await settle(pilot, lambda: isinstance(app.screen, SignificanceScreen))
        assert isinstance(app.screen, SignificanceScreen)
        await pilot.press("f4", "escape")  # once: Review opened by F4 has nowhere to go back to
        await settle(pilot)
        assert isinstance(app.screen, ReviewScreen)
        await pilot.press("f3", "enter")  # sent to Review again, then away and back by F4
        await settle(pilot, lambda: isinstance(app.screen, ReviewScreen) and app.screen.loaded)
        await pilot.press("f2", "f4", "escape")
        await settle(pilot)
        assert isinstance(app.screen, ReviewScreen)

    open_on_leaderboard(classes_project, steps)


def test_t_and_c_change_the_test_and_the_correction(classes_project: Path) -> None:
    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        screen = await open_matrix(app, pilot)
        await pilot.press("c")
        await settle(pilot, lambda: screen.result is not None and screen.result["correction"] == "bh")
        assert "bh correction" in text_of(app, "#plan")
        for _ in range(3):  # t → randomization → bootstrap → tukey
            await pilot.press("t")
        await settle(pilot, lambda: screen.result is not None and screen.result["test"] == "tukey")
        assert screen.result is not None and screen.result["correction"] == "none"

    open_on_leaderboard(classes_project, steps)


def test_matrix_snapshot(classes_project: Path, snap_compare: Any) -> None:
    """The five runs' matrix: a letter and a colour per class, the counts above, the pair below."""

    async def run(pilot: Pilot[Any]) -> None:
        app = pilot.app
        assert isinstance(app, StudioApp)
        await settle_picture(pilot, lambda: isinstance(app.screen, LeaderboardScreen) and tables_settled(app))
        await pilot.press("s")
        await settle_picture(
            pilot,
            lambda: isinstance(app.screen, SignificanceScreen) and app.screen.grid is not None and tables_settled(app),
        )

    with Project.open(classes_project) as project:
        app = StudioApp(project, screen="leaderboard", ref="human", qrels="llm", measure=MEASURE)
        assert snap_compare(app, terminal_size=SIZE, run_before=run)
