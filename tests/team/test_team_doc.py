"""docs/team.md walked as written, on a fresh PostgreSQL server: the commands of its "Setting up a
team" block are read from the page itself and run in order — the superuser's `psql` lines against
the server, the coordinator's in the coordinator's folder, each member's in their own — with only
the server's address put in for `db.lab:5432` and each role's password (kept in a passfile, as the
page says) for `…`. The TUI's line is left to the TUI's tests; the grades it would make are made
through the same session meanwhile. Every copy then holds every member's grades."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from team.team_helpers import grade_some
from terminal_helpers import STUDIO

from benchmarks.pg_cluster import Cluster, server_bin, start_cluster
from studio.services.project import Project

DOC = Path(__file__).resolve().parents[2] / "docs" / "team.md"
ROLE_PASSWORD = re.compile(r"CREATE ROLE (\w+) LOGIN PASSWORD '…'")


def setup_block() -> str:
    """The first sh block after the heading "Setting up a team"."""
    text = DOC.read_text(encoding="utf-8")
    after = text[text.index("## Setting up a team") :]
    found = re.search(r"```sh\n(.*?)```", after, re.S)
    assert found is not None
    return found.group(1)


def steps(block: str) -> dict[int, list[list[str]]]:
    """The block's commands by numbered step ("# 1. …"), each split as the shell would (comments gone)."""
    numbered: dict[int, list[list[str]]] = {}
    step = 0
    for line in block.splitlines():
        heading = re.match(r"#\s*(\d+)\.", line)
        if heading is not None:
            step = int(heading.group(1))
            numbered[step] = []
        elif line.strip():
            numbered[step].append(shlex.split(line, comments=True))
    return numbered


@pytest.fixture()
def fresh_server() -> Iterator[Cluster]:
    """A PostgreSQL server of this test's own (no role nor database of the page's on it yet)."""
    if server_bin() is None:
        pytest.skip("no PostgreSQL server binaries in /usr/lib/postgresql/*/bin (apt-get install postgresql-15)")
    if shutil.which("psql", path=str(server_bin())) is None:
        pytest.skip("no psql beside the server binaries")
    cluster = start_cluster("bootstrap", [])
    try:
        yield cluster
    finally:
        from studio.store.team.server import forget_kept

        forget_kept()
        cluster.remove()


def as_run(args: list[str], cluster: Cluster) -> list[str]:
    """The page's words for this server: its address for db.lab:5432, each role's password for `…`."""
    port = str(cluster.port)
    done = [a.replace("host=db.lab", "host=127.0.0.1").replace("port=5432", f"port={port}") for a in args]
    return [
        ROLE_PASSWORD.sub(lambda m: f"CREATE ROLE {m[1]} LOGIN PASSWORD '{cluster.passwords[m[1]]}'", a) for a in done
    ]


def run(args: list[str], folder: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    program = str(STUDIO) if args[0] == "studio" else args[0]
    done = subprocess.run([program, *args[1:]], cwd=folder, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done


@pytest.mark.postgres
def test_the_page_walked_as_written_sets_up_a_team(
    fresh_server: Cluster, sample_template: Path, tmp_path: Path
) -> None:
    block = setup_block()
    numbered = steps(block)
    assert sorted(numbered) == [1, 2, 3, 4]
    studio_lines = [args for commands in numbered.values() for args in commands if args[0] == "studio"]
    assert all("--db" in args for args in studio_lines)  # every step names its project file
    conninfos = [a for args in studio_lines for a in args if "host=" in a]
    assert conninfos and all("port=" in a for a in conninfos) and "sslmode=require" not in block

    # The roles' passwords, made up here, where libpq finds them: one passfile, as ~/.pgpass.
    for args in numbered[1]:
        for role in ROLE_PASSWORD.findall(" ".join(args)):
            fresh_server.passwords[role] = os.urandom(9).hex()
    fresh_server._write_passfile()
    env = {**os.environ, **fresh_server.env()}
    env |= {"PATH": f"{server_bin()}:{env['PATH']}", "PGHOST": "127.0.0.1", "PGPORT": str(fresh_server.port)}
    env |= {"PGUSER": "postgres", "PGDATABASE": "postgres"}
    for args in numbered[1]:
        run(as_run(args, fresh_server), tmp_path, env)

    laptops = {role: tmp_path / role for role in ("coord", "alice", "bob")}
    for folder in laptops.values():
        folder.mkdir()
    shutil.copyfile(sample_template, laptops["coord"] / "trec.duckdb")  # the collection, loaded
    member_env = {k: v for k, v in env.items() if k not in ("PGUSER", "PGDATABASE", "PGHOST", "PGPORT")}
    for args in numbered[2]:
        run(as_run(args, fresh_server), laptops["coord"], member_env)
    for member in ("alice", "bob"):  # the page's member is alice; bob does the same as bob
        for args in numbered[3]:
            if "tui" in args:
                assert args[args.index("tui") + 1 :] == ["--audit", "gold"]
                continue
            mine = [a.replace("user=alice", f"user={member}") for a in as_run(args, fresh_server)]
            run(mine, laptops[member], member_env)
        assert grade_some(laptops[member] / "trec.duckdb", 3) == 3  # what the TUI's keys would do

    for role in ("alice", "bob", "coord", "alice", "bob"):  # everyone syncs, the coordinator too
        for args in numbered[4]:
            run(as_run(args, fresh_server), laptops[role], member_env)
    for role, folder in laptops.items():
        status = run(["studio", "--db", "trec.duckdb", "team", "status", "--format", "json"], folder, member_env)
        found = json.loads(status.stdout)
        assert found["outcome"] == "synced" and found["waiting"] == 0, role
        assert found["shared"] == {"alice": 3, "bob": 3}, role
    with Project.open(laptops["coord"] / "trec.duckdb") as project:
        assert set(project.audit_agreement("gold")["assessors"]) == {"alice", "bob"}
