"""SVG snapshots of every screen on the sample project at 120x36, built through the same app
factory the CLI uses. After an intended change of a screen, regenerate with
    .venv/bin/python -m pytest tests/tui --snapshot-update
and look at the new SVGs (tests/tui/__snapshots__/) before committing them."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from tui_helpers import SIZE, settle

from studio.services.judging.config import JudgeConfig
from studio.services.judging.run import run_judge
from studio.services.project import Project
from studio.services.sample_project import build_sample_project
from studio.tui.app import StudioApp

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def project_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # A fixed file name and relative sample paths: the screens show both.
    path = tmp_path_factory.mktemp("snapshots") / "sample.duckdb"
    with contextlib.chdir(REPO), build_sample_project(path, source=Path("sample_data")) as project:
        config = JudgeConfig(method="exam-nugget", backend="simulated", name="exam-sim", bank="nuggets",
                             topics=["1001"])
        for _ in run_judge(project.db, config):
            pass
    return path


def ready(app: Any) -> bool:
    screen = app.screen
    return all(getattr(screen, flag, True) not in (False, None) for flag in ("loaded", "computed", "view"))


async def settled(pilot: Pilot[Any]) -> None:
    await settle(pilot, lambda: ready(pilot.app))


@pytest.mark.parametrize("screen", ["leaderboard", "review", "bank", "judges"])
def test_screen_snapshot(screen: str, project_file: Path, snap_compare: Any) -> None:
    with Project.open(project_file) as project:
        app = StudioApp(project, screen=screen, ref="human", qrels="umbrela-smol")
        assert snap_compare(app, terminal_size=SIZE, run_before=settled)
