"""An event's identity is its content too: a copy of a member's project restored from a backup (or
copied) and edited beside the original gives two contents to one (member, sequence). The copy that
finds its identity on the server with another content refuses to push, says why and how to
recover, and keeps its work; the server itself refuses a second row for one identity."""

from __future__ import annotations

import shutil

import psycopg
import pytest
from cli.cli_helpers import run_clirunner
from team.team_helpers import COORDINATOR, Team, append_raw, grade_some, identities, server_identities

from studio import Project


def test_a_restored_copy_edited_beside_the_original_refuses_to_push(joined: Team) -> None:
    alice = joined.path("alice")
    grade_some(alice, 2)
    with Project.open(alice) as project:
        assert project.sync()["pushed"] == 2
    backup = joined.folder / "alice-backup.duckdb"
    shutil.copy(alice, backup)
    grade_some(alice, 1, start=2)
    with Project.open(alice) as project:
        assert project.sync()["pushed"] == 1  # alice #3 on the server
    restored = joined.folder / "alice-restored.duckdb"
    shutil.copy(backup, restored)
    grade_some(restored, 2, start=1)  # the restored copy's own #3 and #4, another content
    done = run_clirunner(["--db", str(restored), "sync", "--format", "json"], joined.folder)
    assert done.code == 1
    assert "another copy of this project synced as alice" in done.stderr and "team join" in done.stderr
    assert "Traceback" not in done.stderr
    assert [i for i in server_identities(joined.conninfo(COORDINATOR)) if i[0] == "alice"] == [
        ("alice", 1),
        ("alice", 2),
        ("alice", 3),
    ]
    with Project.open(restored) as project:  # nothing lost here: the grades wait, the file works
        status = project.team_status()
        assert status is not None and status["waiting"] == 2
        assert project.check().ok


def test_a_restored_copy_with_nothing_of_its_own_catches_up(joined: Team) -> None:
    """Behind the server on its own member's events and with nothing waiting, a restored copy
    takes them as it takes the others': no identity has two contents."""
    alice = joined.path("alice")
    backup = joined.folder / "alice-backup.duckdb"
    shutil.copy(alice, backup)
    grade_some(alice, 2)
    with Project.open(alice) as project:
        assert project.sync()["pushed"] == 2
    with Project.open(backup) as project:
        done = project.sync()
        assert (done["pushed"], done["pulled"]) == (0, 2)
    assert identities(backup) == identities(alice)
    grade_some(backup, 1, start=2)  # and it goes on as alice #3
    with Project.open(backup) as project:
        assert project.sync()["pushed"] == 1
    assert [i for i in server_identities(joined.conninfo(COORDINATOR)) if i[0] == "alice"][-1] == ("alice", 3)


def test_a_push_retried_with_the_same_content_is_taken_once(joined: Team) -> None:
    alice = joined.path("alice")
    grade_some(alice, 2)
    with Project.open(alice) as project:
        project.sync()
        con = project.db.cursor()
        con.execute("UPDATE team_events SET pushed = false WHERE member = 'alice'")  # as after a kill
        done = project.sync()
    assert (done["pushed"], done["waiting"]) == (0, 0)


def test_the_server_refuses_a_second_content_for_one_identity(joined: Team) -> None:
    append_raw(joined, "alice", 1, "undo", '{"member": "bob", "seq": 1, "made_at": "2026-03-01 10:00:00"}')
    with pytest.raises(psycopg.errors.UniqueViolation):
        append_raw(joined, "alice", 1, "undo", '{"member": "bob", "seq": 2, "made_at": "2026-03-01 10:00:00"}')
