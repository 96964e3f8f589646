"""The sample project with a rubric judge of topic 1001 (`exam-sim`, simulated exam-nugget
grades of bank `nuggets`), built once; each test that changes it gets a copy."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers import copy_project, judge_all
from tui_helpers import GRADER

from studio.services.project import Project


@pytest.fixture(scope="session")
def graded_template(sample_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("graded") / "sample.duckdb"
    shutil.copyfile(sample_template, path)
    with Project.open(path) as project:
        judge_all(project.db, GRADER)
    return path


@pytest.fixture()
def graded(graded_template: Path, tmp_path: Path) -> Path:
    return copy_project(graded_template, tmp_path)
