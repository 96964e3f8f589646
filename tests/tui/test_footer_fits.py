"""At the studio's usual 120 columns the footer keeps the keys that leave and switch screens: the
five screens' keys share one entry ("f2 f3 f4 f5 f6 Screen"), so a screen with keys of its own
still shows `q Quit` after them (Review, the fullest, by a column)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers import copy_project
from textual.pilot import Pilot
from tui_helpers import Messages, drive, settle

from studio.tui.app import StudioApp
from studio.tui.widgets.footer import StudioFooter


@pytest.fixture(scope="module")
def sample_file(sample_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_project(sample_template, tmp_path_factory.mktemp("footer"), "sample.duckdb")


def visible_keys(app: StudioApp) -> dict[str, str]:
    """The footer's keys whose key and description lie wholly inside it, left of the command
    palette's key (drawn at the right edge, over what runs under it), by key."""
    return {key.key: key.description for key in app.screen.query_one(StudioFooter).shown_keys()}


@pytest.mark.parametrize("screen", ["overview", "leaderboard", "bank", "judges"])
def test_quit_and_every_screen_key_fit_in_120_columns(sample_file: Path, screen: str) -> None:
    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        await settle(pilot)
        shown = visible_keys(app)
        assert shown.get("q") == "Quit", shown
        assert {"f1", "f2", "f3", "f4", "f5", "f6"} <= set(shown), shown
        labels = [label.text for label in app.screen.query_one(StudioFooter).line.labels]
        assert "Screen" in labels

    drive(sample_file, steps, screen=screen)


def test_review_keeps_its_own_keys_and_the_screen_keys(sample_file: Path) -> None:
    """Review's footer is the fullest (grades, decisions, filter): its own keys, F1–F6 and `q Quit`
    all fit, with not a column to spare."""

    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        await settle(pilot)
        shown = visible_keys(app)
        assert {"0", "1", "2", "3", "a", "h", "s", "f", "n", "u", "slash"} <= set(shown), shown
        assert {"f1", "f2", "f3", "f4", "f5", "f6"} <= set(shown), shown
        assert shown.get("q") == "Quit", shown

    drive(sample_file, steps, screen="review")
