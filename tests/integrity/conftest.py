"""A healthy project with something of everything `studio check` looks at: a simulated judge,
audited label edits and an undo, bank edits, review decisions, a rubric judge and a derived label
set; built once, copied for each test."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers import copy_project, judge_all

from studio import Project
from studio.domain.judging import JudgeConfig
from studio.services.review.session import ReviewSession
from studio.services.rubric.editing import BankEditor


@pytest.fixture(scope="session")
def healthy_template(simulated_sample_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("healthy") / "healthy.duckdb"
    shutil.copyfile(simulated_sample_template, path)
    with Project.open(path) as project:
        project.set_label(
            "sim",
            "1001",
            sorted(project.engine.evaluator("sim").labels["1001"].judged)[0],
            3.0,
            note="checked",
            person="ana",
        )
        project.set_label("human", "1002", "p1002-01", None, person="ana")
        project.undo("human")
        editor = BankEditor(project.db, "nuggets", person="ana")
        first, second, *_ = editor.items("1003")
        editor.edit(first["item_id"], text="Jaguars run at up to 80 km/h")
        editor.weight(second["item_id"], "vital")
        added = editor.add("1003", "Jaguars are ambush hunters", importance="okay")
        editor.merge([added.item_id, second["item_id"]], text="Jaguars hunt by ambush, fast")
        review = ReviewSession(project, "human", "sim", person="ana")
        review.load()
        review.set_grade(2.0)
        review.accept()
        review.skip()
        review.undo()
        judge_all(
            project.db,
            JudgeConfig(
                method="exam-nugget", backend="simulated", name="exam-sim", bank="nuggets", topics=["1003", "1004"]
            ),
        )
        project.derive("exam-sim", "nuggets", "exam-binary", "exam-bin")
    return path


@pytest.fixture()
def healthy(healthy_template: Path, tmp_path: Path) -> Path:
    return copy_project(healthy_template, tmp_path)
