"""The sample project as `studio demo` builds it, for the CLI tests that only read it."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli.cli_helpers import run_clirunner


@pytest.fixture(scope="session")
def demo_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Built once, through `studio demo --no-tui` in-process, for the read-only listings (the
    real entry point's own demo is tests/cli/test_demo_and_list.py's)."""
    home = tmp_path_factory.mktemp("cli-home")
    path = home / "demo.duckdb"
    assert run_clirunner(["demo", "--no-tui", "--db", str(path)], home).code == 0
    return path
