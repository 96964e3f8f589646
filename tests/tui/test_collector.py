"""What the studio holds once its first screen is drawn is left out of the collector's full passes
for the session (`gc.freeze`): a full pass walks what came after, not the tens of thousands of
objects of the modules and the screen, which delayed a key's repaint now and then. Once the app is
gone they are collectable again."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from tui_helpers import Messages, drive

from studio.tui.app import StudioApp
from studio.tui.screens.review import ReviewScreen


@pytest.mark.slow  # the sample's Review started
def test_the_first_screens_objects_are_frozen_for_the_session_and_freed_after(sample: Path) -> None:
    seen: dict[str, int] = {}

    async def steps(app: StudioApp, pilot: Pilot[Any], messages: Messages) -> None:
        seen["frozen"], seen["tracked"] = gc.get_freeze_count(), len(gc.get_objects())

    drive(sample, steps, screen="review", ready=lambda app: isinstance(app.screen, ReviewScreen) and app.screen.loaded)
    assert seen["frozen"] > seen["tracked"]  # most of what the running studio holds is frozen
    assert gc.get_freeze_count() == 0  # and given back to the collector when it ended
