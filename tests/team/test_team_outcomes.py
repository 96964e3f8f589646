"""How a sync ended, told apart and kept: a server out of reach is "offline" (exit 0, the events
wait), a server that rejects the copy (a wrong password, pg_hba.conf, a member whose CONNECT was
revoked) is "rejected" with its reason (exit 1), in `studio sync`, `studio team status` and the
TUI's team line alike; `team status` counts what waits apart from what is shared and quarantined;
a member's adjudication is refused with the reason, the coordinator's goes to every copy."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import time
from typing import Any

import pytest
from helpers import cli
from team.team_helpers import AUDIT, COORDINATOR, Team, append_raw, audit_pair_of, grade_some
from terminal_helpers import STUDIO
from tui_helpers import SIZE, settle

from studio.domain.errors import UsageError
from studio.services.project import Project
from studio.store.team.server import forget_kept
from studio.tui.app import StudioApp


def studio(team: Team, role: str, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(STUDIO), "--db", str(team.path(role)), "--wait", "10", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )


def status(team: Team, role: str) -> dict[str, Any]:
    done = studio(team, role, "team", "status", "--format", "json")
    assert done.returncode == 0, done.stderr
    found: dict[str, Any] = json.loads(done.stdout)
    return found


def reject_in_pg_hba(team: Team, role: str) -> None:
    """A pg_hba.conf line that rejects `role` on this test's database alone (first lines win)."""
    hba = team.cluster.folder / "data" / "pg_hba.conf"
    hba.write_text(f"host {team.database} {role} 127.0.0.1/32 reject\n" + hba.read_text())  # in place: its owner stays
    reload = team.cluster._as_server("pg_ctl", "-D", str(team.cluster.folder / "data"), "reload")
    subprocess.run(reload, check=True, capture_output=True)
    import psycopg

    for _ in range(100):  # the server rereads the file when it gets to the signal: until it refuses
        try:
            psycopg.connect(team.conninfo(role)).close()
        except psycopg.OperationalError as error:
            if "pg_hba.conf" in str(error):
                return
        time.sleep(0.05)
    raise AssertionError("the server never took the new pg_hba.conf")


def test_a_wrong_password_is_rejected_not_offline(joined: Team) -> None:
    grade_some(joined.path("alice"), 2)
    done = studio(joined, "alice", "sync", env={"PGPASSWORD": "not-alices"})
    assert done.returncode == 1
    assert "rejected by the team's server: password authentication failed" in done.stderr
    assert "offline" not in done.stderr
    found = status(joined, "alice")
    assert found["outcome"] == "rejected" and "password authentication failed" in str(found["last_error"])
    assert found["waiting"] == 2
    table = studio(joined, "alice", "team", "status")
    assert "rejected by the server" in table.stdout and "password authentication failed" in table.stdout


def test_pg_hba_and_a_revoked_member_are_rejected(joined: Team) -> None:
    reject_in_pg_hba(joined, "alice")
    done = studio(joined, "alice", "sync")
    assert done.returncode == 1 and "rejected by the team's server: pg_hba.conf rejects connection" in done.stderr
    joined.cluster.admin_sql(f"REVOKE CONNECT ON DATABASE {joined.database} FROM bob")
    done = studio(joined, "bob", "sync")
    assert done.returncode == 1 and "permission denied for database" in done.stderr
    assert status(joined, "bob")["outcome"] == "rejected"


def test_a_server_out_of_reach_is_offline_and_the_reason_reads_apart(joined: Team) -> None:
    grade_some(joined.path("alice"), 1)
    joined.cluster.stop()
    try:
        done = studio(joined, "alice", "sync")
        assert done.returncode == 0 and "offline: the team's server cannot be reached" in done.stderr
        assert "cannot be reached" not in done.stdout  # the reason on stderr, never a table's cell
        assert max(len(line) for line in done.stdout.splitlines()) < 60
        found = status(joined, "alice")
        assert found["outcome"] == "offline" and "cannot be reached" in str(found["last_error"])
    finally:
        joined.cluster.start()
    done = studio(joined, "alice", "sync")
    assert done.returncode == 0, done.stderr
    found = status(joined, "alice")
    assert found["outcome"] == "synced" and found["last_error"] is None


def test_status_counts_waiting_shared_and_quarantined_apart(joined: Team) -> None:
    grade_some(joined.path("alice"), 3)
    found = status(joined, "alice")
    assert found["waiting"] == 3 and found["shared"] == {} and found["outcome"] is not None
    assert studio(joined, "alice", "sync").returncode == 0
    append_raw(joined, "bob", 1, "label", '{"qrels": "human", "qid": "1001", "docid": "x", "grade": "three"}')
    assert studio(joined, "alice", "sync").returncode == 0
    found = status(joined, "alice")
    assert found["waiting"] == 0 and found["shared"] == {"alice": 3}
    assert [(q["member"], q["seq"]) for q in found["quarantined"]] == [("bob", 1)]
    table = studio(joined, "alice", "team", "status").stdout
    assert "Quarantined events" in table and "payload lacks made_at" in table


def test_a_members_adjudication_is_refused_with_the_reason(joined: Team) -> None:
    qid, docid = audit_pair_of(joined, "alice")
    with Project.open(joined.path("alice")) as project, pytest.raises(UsageError) as refused:
        project.adjudicate(AUDIT, qid, docid, 2)
    assert f"only the coordinator ({COORDINATOR}) adjudicates" in str(refused.value)
    done = cli(joined.path("alice"), "audit", "adjudicate", AUDIT, qid, docid, "2")
    assert done.exit_code == 2 and "only the coordinator" in done.stderr
    found = status(joined, "alice")
    assert found["waiting"] == 0  # nothing was written to go up, nothing stays behind
    with Project.open(joined.path(COORDINATOR)) as project:
        assert project.adjudicate(AUDIT, qid, docid, 2)["grade"] == 2
        assert project.sync()["pushed"] == 1
    with Project.open(joined.path("alice")) as project:
        assert project.sync()["pulled"] == 1 and project.sync()["local_only"] == 0
        assert project.engine.evaluator(AUDIT).labels[qid].judged[docid] == 2.0


def test_the_team_line_says_rejected_not_offline(joined: Team, monkeypatch: pytest.MonkeyPatch) -> None:
    forget_kept()  # the join's connection would spare the login
    monkeypatch.setenv("PGPASSWORD", "not-alices")

    async def main() -> None:
        with Project.open(joined.path("alice")) as project:
            app = StudioApp(project)
            async with app.run_test(size=SIZE) as pilot:
                await settle(pilot, lambda: "rejected" in str(app.sub_title))
                line = str(app.sub_title)
                assert "team alice: rejected by the server: password authentication failed" in line
                assert "offline" not in line

    asyncio.run(main())
