"""The Leaderboard's estimated leaderboard (`e`) and calibration curve (`c`), driven through Pilot;
expectations from the Project API."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import DataTable, Markdown
from tui_helpers import Messages, drive, settle, text_of

from studio.domain.specs import CalibrationSpec, EstimateSpec
from studio.services.project import Project
from studio.tui.app import StudioApp
from studio.tui.messages import EstimateComputed
from studio.tui.screens.leaderboard import LeaderboardScreen
from studio.tui.widgets.calibration import CalibrationScreen

GOLD_TOPICS = 4  # of the sample project's 10
REPO = Path(__file__).resolve().parents[2]


def partial_gold(sample: Path, folder: Path) -> None:
    """`gold`: people's labels of the first few topics, as an audit of whole topics gives them."""
    lines = (REPO / "sample_data" / "qrels" / "human.txt").read_text().splitlines(keepends=True)
    chosen = sorted({line.split()[0] for line in lines})[:GOLD_TOPICS]
    gold = folder / "gold.txt"
    gold.write_text("".join(line for line in lines if line.split()[0] in chosen))
    with Project.open(sample) as project:
        project.import_qrels(gold, name="gold", kind="human")


def test_e_shows_the_estimated_leaderboard_with_intervals(sample: Path, tmp_path: Path) -> None:
    partial_gold(sample, tmp_path)

    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        expected = app.state.project.estimate(EstimateSpec("umbrela-smol", "gold", "nDCG@10"))
        await pilot.press("e")
        await settle(pilot, lambda: bool(messages.of(EstimateComputed)))
        view = messages.of(EstimateComputed)[-1].view
        assert view.error is None and view.gold_units == GOLD_TOPICS
        assert [row["run"] for row in view.runs] == [row["run"] for row in expected["runs"]]
        table = app.screen.query_one("#estimates", DataTable)
        assert table.display and not app.screen.query_one("#runs", DataTable).display
        first = [str(cell) for cell in table.get_row_at(0)]
        best = expected["runs"][0]
        assert first[0] == best["run"] and first[1] == f"{best['estimate']:.4f}"
        assert first[2] == f"[{best['low']:.4f}, {best['high']:.4f}]"
        settled = sum(pair["settled"] for pair in expected["pairs"])
        assert f"{settled} of {len(expected['pairs'])} run orderings settled" in text_of(app, "#stats")
        await pilot.press("e")  # back to the two leaderboards
        await settle(pilot)
        assert app.screen.query_one("#runs", DataTable).display

    drive(
        sample,
        steps,
        screen="leaderboard",
        ref="gold",
        qrels="umbrela-smol",
        ready=lambda app: isinstance(app.screen, LeaderboardScreen) and app.screen.computed is not None,
    )


def test_c_shows_the_calibration_curve_of_the_audited_set(sample: Path) -> None:
    with Project.open(sample) as project:
        figures = project.calibrate(CalibrationSpec("umbrela-smol", "human", "umbrela-cal"))

    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        await pilot.press("c")
        await settle(pilot)
        assert isinstance(app.screen, CalibrationScreen)
        shown = app.screen.query_one(Markdown).source
        assert "Calibration of umbrela-smol to human" in shown
        assert f"| graded κ | {figures['kappa_raw']:.3f} | {figures['kappa_calibrated']:.3f} |" in shown
        await pilot.press("escape")
        assert isinstance(app.screen, LeaderboardScreen)

    drive(
        sample,
        steps,
        screen="leaderboard",
        qrels="umbrela-smol",
        ready=lambda app: isinstance(app.screen, LeaderboardScreen) and app.screen.computed is not None,
    )
