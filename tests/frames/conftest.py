"""A project of `frame_builders`' overlapping collection: `people` and `llm` as imported, and both
cut by hand to the topics both label (`people-cut`, `llm-cut`); built once, copied per test."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from evaluation_builders import Qrels, Run, write_qrels, write_run
from frames.frame_builders import COMMON, cut, overlapping_collection

from studio import Project

Collection = tuple[dict[str, Run], Qrels, Qrels]


@pytest.fixture(scope="session")
def overlapping() -> Collection:
    return overlapping_collection()


@pytest.fixture(scope="session")
def overlapping_template(tmp_path_factory: pytest.TempPathFactory, overlapping: Collection) -> Path:
    runs, people, llm = overlapping
    folder = tmp_path_factory.mktemp("frames")
    path = folder / "template.duckdb"
    with Project.open(path) as project:
        project.import_runs([write_run(folder / f"{name}.run", name, run) for name, run in runs.items()])
        project.import_qrels(write_qrels(folder / "people.txt", people), name="people")
        project.import_qrels(write_qrels(folder / "llm.txt", llm), name="llm", kind="llm")
        project.import_qrels(write_qrels(folder / "people-cut.txt", cut(people, COMMON)), name="people-cut")
        project.import_qrels(write_qrels(folder / "llm-cut.txt", cut(llm, COMMON)), name="llm-cut", kind="llm")
    return path


@pytest.fixture
def overlapping_db(overlapping_template: Path, tmp_path: Path) -> Path:
    path = tmp_path / "project.duckdb"
    shutil.copyfile(overlapping_template, path)
    return path


@pytest.fixture
def overlapping_project(overlapping_db: Path) -> Iterator[Project]:
    with Project.open(overlapping_db) as opened:
        yield opened
