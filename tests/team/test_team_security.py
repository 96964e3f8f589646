"""Who may do what is the server's to enforce: a member's own connection, used directly (not
through the studio), cannot append an event under another name, adjudicate, or change the base;
a role outside the team reads nothing; and no credential reaches a project file or an output."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest
from cli.cli_helpers import run_subprocess
from team.team_helpers import COORDINATOR, MEMBERS, OUTSIDER, Team

EVENT = "INSERT INTO studio_team.events (member, seq, kind, payload, made_at) VALUES (%s, %s, %s, '{}', now())"


def refused(conninfo: str, statement: str, params: list[object] | None = None) -> str:
    """The server's refusal of `statement` on the role's own connection (its SQLSTATE)."""
    with psycopg.connect(conninfo) as con, pytest.raises(psycopg.Error) as caught:
        con.execute(statement.encode(), params)
    assert caught.value.sqlstate is not None
    return caught.value.sqlstate


def test_a_member_appends_under_their_own_name_only(published: Team) -> None:
    alice = published.conninfo("alice")
    assert refused(alice, EVENT, ["bob", 1, "grade"]) == "42501"  # row-level security
    assert refused(alice, EVENT, ["alice", 1, "adjudication"]) == "42501"  # the coordinator's alone
    with psycopg.connect(alice) as con:
        con.execute(EVENT.encode(), ["alice", 1, "grade"])  # their own name: taken
    with psycopg.connect(published.conninfo(COORDINATOR)) as con:
        con.execute(EVENT.encode(), [COORDINATOR, 1, "adjudication"])


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE studio_team.base_files SET bytes = ''",
        "DELETE FROM studio_team.base_files",
        "INSERT INTO studio_team.base_files VALUES ('topics.parquet', 9, '')",
        "UPDATE studio_team.team SET coordinator = 'alice'",
        "INSERT INTO studio_team.members VALUES ('mallory')",
        "UPDATE studio_team.events SET payload = '{}'",
        "DELETE FROM studio_team.events",
        "TRUNCATE studio_team.events",
        "DROP TABLE studio_team.events",
        "CREATE TABLE studio_team.mine (x int)",
    ],
)
def test_a_member_cannot_change_the_base_or_the_events(published: Team, statement: str) -> None:
    assert refused(published.conninfo("bob"), statement) in {"42501", "42809"}


def test_a_role_outside_the_team_reads_nothing(published: Team) -> None:
    assert refused(published.conninfo(OUTSIDER), "SELECT count(*) FROM studio_team.events") == "42501"
    assert refused(published.conninfo(OUTSIDER), "SELECT count(*) FROM studio_team.base_files") == "42501"


def test_an_outsider_cannot_join(published: Team) -> None:
    done = run_subprocess(
        ["--db", str(published.path(OUTSIDER)), "team", "join", published.conninfo(OUTSIDER)],
        published.folder,
        published.cluster.env(),
    )
    assert done.code == 1 and "refused: permission denied for schema studio_team" in done.stderr
    assert not published.path(OUTSIDER).exists()


def test_a_password_in_the_connection_string_is_refused(published: Team) -> None:
    password = published.cluster.passwords["alice"]
    target = published.path("alice")
    done = run_subprocess(
        ["--db", str(target), "team", "join", f"{published.conninfo('alice')} password={password}"],
        published.folder,
        {},
    )
    assert done.code == 2 and "~/.pgpass" in done.stderr
    assert password not in done.stdout + done.stderr
    assert not target.exists()


def test_no_credential_in_a_project_file_or_an_output(published: Team) -> None:
    env = published.cluster.env()
    outputs = []
    for member in MEMBERS:
        path = published.path(member)
        for args in (["team", "join", published.conninfo(member)], ["sync"], ["team", "status"], ["doctor"]):
            done = run_subprocess(["--db", str(path), *args, "--format", "json"], published.folder, env)
            outputs.append(done.stdout + done.stderr)
    files = [p.read_bytes() for p in Path(published.folder).iterdir() if p.is_file()]
    for password in published.cluster.passwords.values():
        assert all(password.encode() not in data for data in files)
        assert all(password not in text for text in outputs)


@pytest.mark.parametrize(
    "secret",
    [
        "sslpassword=SECRETVALUE",
        "oauth_client_secret=SECRETVALUE",
        "scram_client_key=U0VDUkVUVkFMVUU=",
        "password=SECRETVALUE sslmode=disable",
    ],
)
def test_every_secret_bearing_libpq_option_is_refused(published: Team, secret: str) -> None:
    target = published.path("alice")
    done = run_subprocess(
        ["--db", str(target), "team", "join", f"{published.conninfo('alice')} {secret}"], published.folder, {}
    )
    assert done.code == 2, done.stderr
    assert secret.split("=")[0] in done.stderr and "SECRETVALUE" not in done.stdout + done.stderr
    assert "U0VDUkVU" not in done.stdout + done.stderr
    assert not target.exists()


def test_a_password_in_a_uri_is_refused(published: Team) -> None:
    uri = f"postgresql://alice:SECRETVALUE@127.0.0.1:{published.cluster.port}/{published.database}"
    done = run_subprocess(["--db", str(published.path("alice")), "team", "join", uri], published.folder, {})
    assert done.code == 2 and "password" in done.stderr and "SECRETVALUE" not in done.stdout + done.stderr


def test_the_secret_options_are_libpqs_own_list() -> None:
    from studio.store.team.conninfo import secret_options

    found = secret_options()
    assert {"password", "sslpassword", "oauth_client_secret", "scram_client_key", "scram_server_key"} <= found
    assert not found & {"host", "user", "dbname", "sslkey", "passfile", "service"}


def test_a_secret_kept_by_an_older_file_is_never_printed(joined: Team) -> None:
    import duckdb

    path = joined.path("alice")
    with duckdb.connect(str(path)) as con:
        con.execute("UPDATE team_link SET conninfo = conninfo || ' sslpassword=SECRETVALUE'")
    env = joined.cluster.env()
    for args in (["team", "status"], ["doctor"], ["team", "status", "--format", "json"]):
        done = run_subprocess(["--db", str(path), *args], joined.folder, env)
        assert "SECRETVALUE" not in done.stdout + done.stderr
