"""Fixtures shared across test folders."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from studio.services.judging import JudgeConfig, run_judge
from studio.services.sample_project import build_sample_project


@pytest.fixture(scope="session")
def simulated_sample_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample project plus `sim`, a simulated judge (κ 0.4) of every human pair; built once."""
    path = tmp_path_factory.mktemp("simulated-sample") / "sample.duckdb"
    with build_sample_project(path) as project:
        for _ in run_judge(project.db, JudgeConfig(method="umbrela", backend="simulated", name="sim", kappa=0.4)):
            pass
    return path


@pytest.fixture()
def simulated_sample(simulated_sample_template: Path, tmp_path: Path) -> Path:
    """A fresh copy of `simulated_sample_template` for one test to change."""
    target = tmp_path / "p.duckdb"
    shutil.copyfile(simulated_sample_template, target)
    return target
