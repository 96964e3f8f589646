"""The sample project as `studio demo` builds it, for the CLI tests that only read it."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli.cli_helpers import run_subprocess


@pytest.fixture(scope="session")
def demo_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Built once, through `python -m studio demo --no-tui`, for the read-only listings."""
    home = tmp_path_factory.mktemp("cli-home")
    path = home / "demo.duckdb"
    assert run_subprocess(["demo", "--no-tui", "--db", str(path)], home).code == 0
    return path
