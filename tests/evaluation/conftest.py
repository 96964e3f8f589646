"""A project file holding the collection of `evaluation_builders`, built once, copied per test."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from evaluation_builders import Collection, make_collection, write_qrels, write_run

from studio import Project


@pytest.fixture(scope="session")
def collection() -> Collection:
    """(runs, human, llm) as plain dicts: what the oracles are given."""
    return make_collection()


@pytest.fixture(scope="session")
def template(tmp_path_factory: pytest.TempPathFactory, collection: Collection) -> Path:
    runs, human, llm = collection
    folder = tmp_path_factory.mktemp("evaluation")
    path = folder / "template.duckdb"
    with Project.open(path) as project:
        project.import_runs([write_run(folder / f"{name}.run", name, run) for name, run in runs.items()])
        project.import_qrels(write_qrels(folder / "human.txt", human), name="human")
        project.import_qrels(write_qrels(folder / "llm.txt", llm), name="llm", kind="llm")
    return path


@pytest.fixture
def db(template: Path, tmp_path: Path) -> Path:
    """This test's own copy of the project file."""
    path = tmp_path / "project.duckdb"
    shutil.copyfile(template, path)
    return path


@pytest.fixture
def project(db: Path) -> Iterator[Project]:
    with Project.open(db) as opened:
        yield opened
