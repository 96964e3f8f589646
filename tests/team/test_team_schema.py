"""The server's schema is checked on every connect: a version newer than the studio's is refused
with both version numbers and "update the studio"; a damaged one is refused naming what is
missing; an older one is upgraded by the coordinator's sync and refused to a member meanwhile; and
`doctor` says which, never "schema None", never a driver's traceback."""

from __future__ import annotations

import json

import pytest
from cli.cli_helpers import run_clirunner, run_subprocess
from team.team_helpers import COORDINATOR, Team, coordinator_sql, grade_some

from studio import Project
from studio.store.team.server_schema import LATEST_SERVER_VERSION


def sync_cli(team: Team, role: str) -> tuple[int, str]:
    done = run_subprocess(["--db", str(team.path(role)), "sync"], team.folder, team.cluster.env())
    assert "Traceback" not in done.stderr
    return done.code, done.stderr


def doctor_team(team: Team, role: str) -> dict[str, object]:
    done = run_clirunner(["--db", str(team.path(role)), "doctor", "--format", "json"], team.folder)
    section = next(s for s in json.loads(done.stdout)["sections"] if s["name"] == "team")
    assert isinstance(section, dict)
    return section


def test_a_newer_server_schema_is_refused_with_both_versions(joined: Team) -> None:
    coordinator_sql(joined, "INSERT INTO studio_team.schema_version (version) VALUES (99)")
    code, stderr = sync_cli(joined, "alice")
    assert code == 1 and "version 99" in stderr and f"this studio's {LATEST_SERVER_VERSION}" in stderr
    assert "update the studio" in stderr
    section = doctor_team(joined, "alice")
    assert section["status"] == "fail" and "update the studio" in str(section["summary"])
    assert "None" not in str(section["summary"])


@pytest.mark.parametrize(
    ("damage", "named"),
    [
        ("DROP TABLE studio_team.quarantine", "table studio_team.quarantine"),
        ("ALTER TABLE studio_team.events DROP COLUMN received_at", "column studio_team.events.received_at"),
        ("DROP TABLE studio_team.schema_version", "table schema_version is missing"),
    ],
)
def test_a_damaged_server_schema_is_refused_naming_what_is_missing(joined: Team, damage: str, named: str) -> None:
    grade_some(joined.path("alice"), 1)
    coordinator_sql(joined, damage)
    code, stderr = sync_cli(joined, "alice")
    assert code == 1 and named in stderr and "damaged" in stderr
    with Project.open(joined.path("alice")) as project:
        status = project.team_status()
        assert status is not None and status["waiting"] == 1  # nothing lost: it waits
    section = doctor_team(joined, "alice")
    assert section["status"] == "fail" and named in str(section["summary"])


def test_no_schema_at_all_is_said_as_such(joined: Team) -> None:
    coordinator_sql(joined, "DROP SCHEMA studio_team CASCADE")
    code, stderr = sync_cli(joined, "bob")
    assert code == 1 and "holds no studio_team schema" in stderr
    section = doctor_team(joined, "bob")
    assert section["status"] == "fail" and "holds no studio_team schema" in str(section["summary"])


def test_an_older_schema_waits_for_the_coordinators_sync(joined: Team) -> None:
    coordinator_sql(
        joined,
        "DROP TABLE studio_team.quarantine",
        "DROP TRIGGER events_arrived ON studio_team.events",
        "DROP FUNCTION studio_team.events_arrived()",
        "DELETE FROM studio_team.schema_version WHERE version > 1",
    )
    code, stderr = sync_cli(joined, "carol")
    assert code == 1 and "version 1, older" in stderr and "coordinator" in stderr
    assert doctor_team(joined, "carol")["status"] == "fail"
    with Project.open(joined.path(COORDINATOR)) as project:
        assert not project.sync()["offline"]
    code, stderr = sync_cli(joined, "carol")
    assert code == 0, stderr
    assert doctor_team(joined, "carol")["status"] == "ok"
