"""Fixtures shared across test folders: the sample project built once per test process and
copied for each test that changes it, and one PostgreSQL server per test process for every test
that needs one (each such test makes a database of its own on it, so tests stay independent)."""

from __future__ import annotations

import importlib.util
import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import copy_project, judge_all
from pg_roles import PG_COORDINATOR, PG_MEMBERS, PG_OUTSIDER
from terminal_helpers import Terminal

from benchmarks.pg_cluster import Cluster, server_bin, start_cluster
from studio import Project
from studio.domain.judging import JudgeConfig


@pytest.fixture(scope="session")
def sample_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample project as `studio demo` builds it; built once."""
    path = tmp_path_factory.mktemp("sample") / "sample.duckdb"
    Project.sample(path).close()
    return path


@pytest.fixture()
def sample(sample_template: Path, tmp_path: Path) -> Path:
    return copy_project(sample_template, tmp_path)


@pytest.fixture(scope="session")
def simulated_sample_template(sample_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample project plus `sim`, a simulated judge (κ 0.4) of every human pair; built once."""
    path = copy_project(sample_template, tmp_path_factory.mktemp("simulated-sample"), "sample.duckdb")
    with Project.sample(path) as project:
        judge_all(project.db, JudgeConfig(method="umbrela", backend="simulated", name="sim", kappa=0.4))
    return path


@pytest.fixture()
def simulated_sample(simulated_sample_template: Path, tmp_path: Path) -> Path:
    return copy_project(simulated_sample_template, tmp_path)


@pytest.fixture
def terminal(tmp_path: Path) -> Iterator[Terminal]:
    """A real terminal (tmux) whose programs see a private home folder."""
    unset = {"TMUX", "STUDIO_DB", "STUDIO_SAMPLE_DATA", "COLUMNS", "LINES"}
    env = {k: v for k, v in os.environ.items() if k not in unset}
    env.update(HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path / "data"))
    session = Terminal(f"studio-test-{uuid.uuid4().hex[:10]}", env)
    try:
        yield session
    finally:
        session.kill()


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Cluster]:
    """A PostgreSQL server started once per test process as Debian's `postgres` user in a temporary
    folder on a free loopback port; the roles' passwords live in its passfile (PGPASSFILE), never
    in a connection string. Without the server binaries or psycopg, the tests that need it skip and
    say why."""
    if server_bin() is None:
        pytest.skip("no PostgreSQL server binaries in /usr/lib/postgresql/*/bin (apt-get install postgresql-15)")
    if importlib.util.find_spec("psycopg") is None:
        pytest.skip("psycopg is not installed (pip install -e '.[team]')")
    cluster = start_cluster(PG_COORDINATOR, [*PG_MEMBERS, PG_OUTSIDER])
    try:
        yield cluster
    finally:
        from studio.store.team.server import forget_kept

        forget_kept()  # the connections kept between syncs, before their server goes
        cluster.remove()
