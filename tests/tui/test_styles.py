"""Each screen and modal carries its own styles: the studio starts on Review with Review's styles
parsed and no other screen's (Textual parses every registered style again at each change of theme
and on the first screen's start), and a screen opened later brings its own."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from tui_helpers import Messages, drive, settle

from studio.tui.app import StudioApp
from studio.tui.screens.leaderboard import LeaderboardScreen
from studio.tui.screens.review import ReviewScreen


def styled(app: StudioApp) -> set[str]:
    """The classes whose styles the app's stylesheet holds (`ReviewScreen`, …), and the files it read."""
    return {str(where).removesuffix(".DEFAULT_CSS") or str(path) for path, where in app.stylesheet.source}


@pytest.mark.slow  # two screens built on the sample
def test_review_starts_with_its_own_styles_and_the_leaderboard_brings_its_own(sample: Path) -> None:
    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        assert isinstance(app.screen, ReviewScreen)
        assert "ReviewScreen" in styled(app)
        assert not styled(app) & {"LeaderboardScreen", "BankScreen", "JudgesScreen", "OverviewScreen"}
        assert not [path for path, where in app.stylesheet.source if not where]  # no app-wide file
        await pilot.press("f3")
        await settle(pilot, lambda: isinstance(app.screen, LeaderboardScreen))
        assert "LeaderboardScreen" in styled(app)
        # Its styles apply: the choices row is as tall as its contents, not the screen's half.
        assert str(app.screen.query_one("#choices").styles.height) == "auto"

    drive(sample, steps, screen="review", ready=lambda app: isinstance(app.screen, ReviewScreen) and app.screen.loaded)
