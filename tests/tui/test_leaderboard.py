"""The Leaderboard screen driven through Pilot; expectations from the Project API."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import DataTable, Select
from tui_helpers import Messages, drive, settle, text_of

from studio.tui.app import StudioApp
from studio.tui.messages import LeaderboardComputed
from studio.tui.screens.leaderboard import LeaderboardScreen


def places(board: dict[str, float]) -> dict[str, int]:
    """1-based places, best first, equal scores by run name."""
    return {run: n for n, run in enumerate(sorted(board, key=lambda r: (-board[r], r)), start=1)}


def computed(app: StudioApp) -> bool:
    return isinstance(app.screen, LeaderboardScreen) and app.screen.computed is not None


def test_the_leaderboard_shows_both_rankings_and_the_correlation(sample: Path) -> None:
    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        project = app.state.project
        corr = project.correlation("human", "umbrela-smol", "nDCG@10")
        view = messages.of(LeaderboardComputed)[-1].view
        assert (view.kendall_tau, view.swaps) == (corr["kendall_tau"], corr["swaps"])
        assert f"τ {corr['kendall_tau']:.3f}" in text_of(app, "#stats")
        ref, aud = places(project.leaderboard("human")), places(project.leaderboard("umbrela-smol"))
        table = app.screen.query_one("#runs", DataTable)
        rows = [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]
        assert [row[0] for row in rows] == sorted(ref, key=ref.__getitem__)
        assert all(int(row[2]) == ref[row[0]] and int(row[4]) == aud[row[0]] for row in rows)
        swapped = {pair[key] for pair in corr["swapped_pairs"] for key in ("above_in_ref", "below_in_ref")}
        assert {row.run for row in view.runs if row.swapped} == swapped

        app.screen.query_one("#measure", Select).value = "P@10"
        await settle(pilot, lambda: messages.of(LeaderboardComputed)[-1].view.measure == "P@10")
        assert app.state.selection.measure == "P@10"
        assert (
            messages.of(LeaderboardComputed)[-1].view.kendall_tau
            == project.correlation("human", "umbrela-smol", "P@10")["kendall_tau"]
        )

    drive(sample, steps, screen="leaderboard", ready=computed)


def test_choosing_another_audited_set_recomputes(simulated_sample: Path) -> None:
    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        select = app.screen.query_one("#qrels", Select)
        await settle(pilot, lambda: "sim" in [value for _, value in select._options])
        select.value = "sim"
        await settle(pilot, lambda: messages.of(LeaderboardComputed)[-1].view.qrels == "sim")
        assert app.state.selection.qrels == "sim"
        assert (
            messages.of(LeaderboardComputed)[-1].view.kendall_tau
            == app.state.project.correlation("human", "sim")["kendall_tau"]
        )

    drive(simulated_sample, steps, screen="leaderboard", ready=computed)
