"""The team tests' fixtures: a database of its own for each test on the test process's one
PostgreSQL server (`pg_cluster`, tests/conftest.py), the audit project, published and joined."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import copy_project
from team.team_helpers import AUDIT, COORDINATOR, MEMBERS, OUTSIDER, Team

from benchmarks.pg_cluster import Cluster
from studio import Project
from studio.domain.specs import AuditDrawSpec


@pytest.fixture()
def team_db(pg_cluster: Cluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Team]:
    name = f"team_{uuid.uuid4().hex[:12]}"
    pg_cluster.admin_sql(f"CREATE DATABASE {name} OWNER {COORDINATOR}", f"REVOKE ALL ON DATABASE {name} FROM PUBLIC")
    pg_cluster.admin_sql(f"GRANT CONNECT ON DATABASE {name} TO {COORDINATOR}, {', '.join(MEMBERS)}, {OUTSIDER}")
    for key, value in pg_cluster.env().items():
        monkeypatch.setenv(key, value)
    yield Team(pg_cluster, name, tmp_path)
    # The server is the test process's for every team test: a test's kept connections, listeners
    # and those of the processes it started must not outlive it (they once took every slot, and
    # the tests after them could not connect).
    import psycopg

    from studio.store.team.server import forget_kept

    forget_kept()
    with contextlib.suppress(psycopg.OperationalError):  # a test that left the server stopped holds no slot
        pg_cluster.admin_sql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture(scope="session")
def audit_template(sample_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample project with an audit of 60 pairs split among the three members, a share of
    them given to two."""
    path = copy_project(sample_template, tmp_path_factory.mktemp("team-audit"), "coordinator.duckdb")
    with Project.open(path) as project:
        project.plan_audit(AuditDrawSpec("umbrela-smol", name=AUDIT, budget=60, design="pairs", seed=3))
        project.assign_audit(AUDIT, list(MEMBERS), overlap=0.5, seed=1)
    return path


@pytest.fixture()
def published(team_db: Team, audit_template: Path) -> Team:
    """The audit project published by the coordinator; no member has joined yet."""
    copy_project(audit_template, team_db.folder, "coordinator.duckdb")
    with Project.open(team_db.path(COORDINATOR)) as project:
        project.publish_team(team_db.conninfo(COORDINATOR), list(MEMBERS))
    return team_db


@pytest.fixture()
def joined(published: Team) -> Team:
    """…and every member joined."""
    for member in MEMBERS:
        Project.join_team(published.path(member), published.conninfo(member))
    return published
