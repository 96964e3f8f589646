"""Projects made from tests/published/genir (the Gen-IR comparison's release layouts), built once per
test process and copied for each test that changes them."""

from __future__ import annotations

from pathlib import Path

import pytest
from answers.genir_project import build
from helpers import copy_project


@pytest.fixture(scope="session")
def genir_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Topics, passages, human grades, both systems' answers and every verdict file."""
    return build(tmp_path_factory.mktemp("genir") / "genir.duckdb")


@pytest.fixture(scope="session")
def genir_answers_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same without the verdicts: answers to judge."""
    return build(tmp_path_factory.mktemp("genir-answers") / "genir.duckdb", verdicts=False)


@pytest.fixture
def genir_db(genir_template: Path, tmp_path: Path) -> Path:
    copied: Path = copy_project(genir_template, tmp_path)
    return copied
