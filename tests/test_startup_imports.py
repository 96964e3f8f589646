"""The studio starts without scipy (about a second of imports): the statistics that need it load it
when they are asked for."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.process
def test_opening_the_studio_imports_no_scipy() -> None:
    code = "import sys, studio.tui.app, studio.cli.app; print(sorted(m for m in sys.modules if m.startswith('scipy')))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert done.stdout.strip() == "[]"
