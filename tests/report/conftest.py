"""The project every report test reads: the sample, two audited label sets, a rubric judge, edits
and a review."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers import judge_all

from studio import Project
from studio.domain.judging import JudgeConfig
from studio.services.review.session import ReviewSession
from studio.services.sensitivity.probes import run_probe

# Two topics are enough for the bank section and keep the rubric judge to a few seconds.
RUBRIC_TOPICS = ["1001", "1002"]


@pytest.fixture(scope="package")
def report_project_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample project (`human`, `umbrela-smol`) plus `sim` (simulated, κ 0.5), `exam-sim` (a
    simulated exam-question judge of the `questions` bank), a review of `sim` by ana (a grade, an
    accepted label, a skip, an undone grade and a flag) and a robustness probe of `sim`."""
    path = tmp_path_factory.mktemp("report-project") / "sample.duckdb"
    with Project.sample(path) as project:
        for config in (
            JudgeConfig(method="umbrela", backend="simulated", name="sim", kappa=0.5),
            JudgeConfig(
                method="exam-question",
                backend="simulated",
                name="exam-sim",
                bank="questions",
                kappa=0.5,
                topics=RUBRIC_TOPICS,
            ),
        ):
            judge_all(project.db, config)
        review = ReviewSession(project, "human", "sim", person="ana")
        review.load()
        review.set_grade(3.0)
        review.accept()
        review.skip()
        review.set_grade(0.0)
        review.undo()
        review.flag()
        for _ in run_probe(project.engine, "sim", ref="human", limit=10):
            pass
    return path


@pytest.fixture()
def report_project(report_project_template: Path, tmp_path: Path) -> Path:
    """A copy of the template in its own folder, for a test that writes to the project."""
    target = tmp_path / "project" / "sample.duckdb"
    target.parent.mkdir()
    shutil.copyfile(report_project_template, target)
    return target
