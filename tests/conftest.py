"""Fixtures shared across test folders: the sample project built once per test process and
copied for each test that changes it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers import judge_all

from studio.services.judging.config import JudgeConfig
from studio.services.sample_project import build_sample_project


def copy_project(template: Path, folder: Path, name: str = "p.duckdb") -> Path:
    """A fresh copy of a project file for one test to change."""
    target = folder / name
    shutil.copyfile(template, target)
    return target


@pytest.fixture(scope="session")
def sample_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample project as `studio demo` builds it; built once."""
    path = tmp_path_factory.mktemp("sample") / "sample.duckdb"
    build_sample_project(path).close()
    return path


@pytest.fixture()
def sample(sample_template: Path, tmp_path: Path) -> Path:
    return copy_project(sample_template, tmp_path)


@pytest.fixture(scope="session")
def simulated_sample_template(sample_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample project plus `sim`, a simulated judge (κ 0.4) of every human pair; built once."""
    path = copy_project(sample_template, tmp_path_factory.mktemp("simulated-sample"), "sample.duckdb")
    with build_sample_project(path) as project:
        judge_all(project.db, JudgeConfig(method="umbrela", backend="simulated", name="sim", kappa=0.4))
    return path


@pytest.fixture()
def simulated_sample(simulated_sample_template: Path, tmp_path: Path) -> Path:
    return copy_project(simulated_sample_template, tmp_path)
