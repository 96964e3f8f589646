"""The Judges, Bank and Leaderboard screens driven through Pilot; expectations from the Project API."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Input, Select
from tui_helpers import drive, settle, text_of

from studio.judges.backend import ChatResult
from studio.services.judging.config import JudgeConfig
from studio.services.judging.run import run_judge
from studio.services.project import Project
from studio.tui.app import StudioApp
from studio.tui.screens.bank import BankScreen
from studio.tui.screens.judges import JudgesScreen
from studio.tui.screens.leaderboard import LeaderboardScreen, ranked_rows


@pytest.fixture(scope="module")
def template(sample_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample project plus `exam-sim`, a simulated exam-nugget judge of topic 1001."""
    path = tmp_path_factory.mktemp("screens") / "sample.duckdb"
    shutil.copyfile(sample_template, path)
    with Project.open(path) as project:
        config = JudgeConfig(method="exam-nugget", backend="simulated", name="exam-sim", bank="nuggets",
                             topics=["1001"])
        for _ in run_judge(project.db, config):
            pass
    return path


@pytest.fixture()
def sample(template: Path, tmp_path: Path) -> Path:
    path = tmp_path / "p.duckdb"
    shutil.copyfile(template, path)
    return path


# -- Judges ------------------------------------------------------------------------------------


def test_a_simulated_judge_runs_to_completion_from_the_judges_screen(sample: Path) -> None:
    async def steps(app: StudioApp, pilot: Pilot[Any]) -> None:
        assert isinstance(app.screen, JudgesScreen)
        name = app.screen.query_one("#name", Input)
        name.value = "sim-from-tui"
        await pilot.press("ctrl+s")
        await settle(pilot, lambda: "Done" in text_of(app, "#judge-status"))
        assert "Done: 280 pairs into sim-from-tui" in text_of(app, "#judge-status")
        rows = {row["name"]: row for row in app.project.label_sets()}
        assert rows["sim-from-tui"]["pairs"] == 280 and rows["sim-from-tui"]["kind"] == "simulated"
        runs = [r for r in app.project.judge_runs() if r["label_set"] == "sim-from-tui"]
        assert len(runs) == 1 and runs[0]["calls"] == 280 and runs[0]["failures"] == 0

    drive(sample, steps, screen="judges")


def test_cancel_keeps_what_was_judged_and_start_resumes_from_the_cache(sample: Path) -> None:
    async def steps(app: StudioApp, pilot: Pilot[Any]) -> None:
        app.screen.query_one("#name", Input).value = "resumed"
        await pilot.press("ctrl+s")
        await pilot.pause(0.3)
        await pilot.press("ctrl+x")
        await settle(pilot, lambda: "Cancelled" in text_of(app, "#judge-status"))
        saved = app.project.db.cursor().execute(
            "SELECT count(*) FROM judgments JOIN judge_runs USING (judge_run_id) JOIN label_sets USING"
            " (label_set_id) WHERE name = 'resumed'").fetchone()[0]
        assert 0 < saved < 280
        await pilot.press("ctrl+s")
        await settle(pilot, lambda: "Done" in text_of(app, "#judge-status"))
        assert f"{280 - saved} calls · {saved} cached" in text_of(app, "#judge-status")

    drive(sample, steps, screen="judges")


def test_a_judge_that_cannot_start_says_why(sample: Path) -> None:
    async def steps(app: StudioApp, pilot: Pilot[Any]) -> None:
        screen = app.screen
        screen.query_one("#method", Select).value = "exam-nugget"
        screen.query_one("#name", Input).value = "no-bank"  # a rubric method without a bank: refused
        await pilot.press("ctrl+s")
        await settle(pilot, lambda: "Failed" in text_of(app, "#judge-status"))
        assert "give --bank" in text_of(app, "#judge-status")
        assert "no-bank" not in {row["name"] for row in app.project.label_sets()}


def test_the_failures_table_shows_the_raw_output(sample: Path) -> None:
    with Project.open(sample) as project:
        scripted = JudgeConfig(method="umbrela", backend="scripted", name="wordy", topics=["1001"], limit=3)

        class Wordy:
            name, model = "scripted", "wordy"

            def params(self) -> dict[str, Any]:
                return {}

            def complete(self, requests: Any) -> Any:
                for index, _ in enumerate(requests):
                    yield index, ChatResult("I would say it is quite relevant.")

            def close(self) -> None:
                pass

        for _ in run_judge(project.db, scripted, backend=Wordy()):  # type: ignore[arg-type]
            pass

    async def steps(app: StudioApp, pilot: Pilot[Any]) -> None:
        screen = app.screen
        screen.query_one("#name", Input).value = "wordy"
        await pilot.press("ctrl+f")
        await settle(pilot)
        table = screen.query_one("#failures", DataTable)
        assert table.row_count == 3
        assert all(str(table.get_row_at(i)[3]) == "I would say it is quite relevant." for i in range(3))

    drive(sample, steps, screen="judges")

    drive(sample, steps, screen="judges")


# -- Bank --------------------------------------------------------------------------------------


def bank_ready(app: StudioApp) -> bool:
    return isinstance(app.screen, BankScreen) and app.screen.view is not None and app.screen.view["source"] is not None


def test_editing_a_nugget_marks_its_cells_stale_and_regrading_clears_them(sample: Path) -> None:
    async def steps(app: StudioApp, pilot: Pilot[Any]) -> None:
        await settle(pilot, lambda: bank_ready(app))
        screen = app.screen
        assert isinstance(screen, BankScreen)
        assert "graded by exam-sim" in text_of(app, "#bank-status") and "0 stale cells" in text_of(app, "#bank-status")
        first = screen.view["items"][0]  # type: ignore[index]
        screen.query_one("#items", DataTable).focus()
        await pilot.press("e")
        await pilot.pause()
        await pilot.press(*" at sea level", "enter")
        await settle(pilot, lambda: "28 stale cells" in text_of(app, "#bank-status"))
        stale = app.project.stale_cells("exam-sim")
        assert len(stale) == 28 and {c["item_id"] for c in stale} == {first["item_id"]}
        table = screen.query_one("#items", DataTable)
        assert str(table.get_row_at(0)[6]) == "28"
        await pilot.press("g")
        await settle(pilot, lambda: not screen.regrading and "0 stale cells" in text_of(app, "#bank-status"))
        assert app.project.stale_cells("exam-sim") == []
        tau = app.project.correlation("human", "exam-sim")["kendall_tau"]
        assert f"τ exam-sim {tau:.3f}" in text_of(app, "#bank-status")

    drive(sample, steps, screen="bank")


def test_add_weight_and_delete_are_bank_events(sample: Path) -> None:
    async def steps(app: StudioApp, pilot: Pilot[Any]) -> None:
        await settle(pilot, lambda: bank_ready(app))
        screen = app.screen
        assert isinstance(screen, BankScreen)
        count = len(screen.view["items"])  # type: ignore[index]
        screen.query_one("#items", DataTable).focus()
        await pilot.press("a")
        await pilot.pause()
        await pilot.press(*"Cooking takes longer", "enter")
        await settle(pilot, lambda: len(screen.view["items"]) == count + 1)  # type: ignore[index]
        await pilot.press("v")
        await settle(pilot)
        await pilot.press("d")
        await settle(pilot, lambda: len(screen.view["items"]) == count)  # type: ignore[index]
        ops = [op for (op,) in app.project.db.cursor().execute(
            "SELECT op FROM bank_events e JOIN banks b USING (bank_id) WHERE b.name = 'nuggets'"
            " AND e.origin = 'person' ORDER BY event_id").fetchall()]
        assert ops == ["add", "weight", "delete"]

    drive(sample, steps, screen="bank")


# -- Leaderboard -------------------------------------------------------------------------------


def test_the_leaderboard_shows_both_rankings_and_the_correlation(sample: Path) -> None:
    async def steps(app: StudioApp, pilot: Pilot[Any]) -> None:
        await settle(pilot, lambda: isinstance(app.screen, LeaderboardScreen) and app.screen.computed is not None)
        corr = app.project.correlation("human", "umbrela-smol", "nDCG@10")
        stats = text_of(app, "#stats")
        assert f"τ {corr['kendall_tau']:.3f}" in stats and f"{corr['swaps']} swapped pairs" in stats
        table = app.screen.query_one("#runs", DataTable)
        shown = [str(table.get_row_at(i)[0]) for i in range(table.row_count)]
        assert shown == [row[0] for row in ranked_rows(corr)]
        app.screen.query_one("#measure", Select).value = "P@10"
        await settle(pilot, lambda: "P@10" in str(app.screen.computed.correlation["measure"]))  # type: ignore[union-attr]
        assert app.selection.measure == "P@10"

    drive(sample, steps, screen="leaderboard")
