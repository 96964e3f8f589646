"""Publishing a project to a team's PostgreSQL database (the coordinator) and joining it (a member).

The coordinator's connection creates or migrates the `studio_team` schema, stores the project's
snapshot as the base and gives each member their privileges, all in one server transaction; the
project file notes its link only once the server committed. A member's join builds a new project
file from the base beside the target and renames it into place, then pulls what the team has done
since.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

from studio.domain.errors import TeamRefused, UsageError
from studio.domain.names import check_name
from studio.domain.team import Published
from studio.store import Database
from studio.store.team import local, server, snapshot
from studio.store.team.server_schema import LATEST_SERVER_VERSION


def publish(db: Database, conninfo: str, members: Sequence[str]) -> Published:
    """The project becomes the team's base on the server at `conninfo`; `members` (existing
    PostgreSQL roles) may join it. The connecting role is the coordinator."""
    conninfo = server.checked_conninfo(conninfo)
    names = [check_name(m.strip(), "member") for m in members if m.strip()]
    if not names:
        raise UsageError("a team needs members: give --members the PostgreSQL roles who join it (alice,bob,…)")
    if local.link(db.cursor()) is not None:
        raise UsageError("this project already belongs to a team: its events go to it with `studio sync`")
    files: list[str] = []

    def counted() -> Iterator[tuple[str, bytes]]:
        for name, data in snapshot.export_files(db.cursor()):
            files.append(name)
            yield name, data

    with server.connected(conninfo) as con:
        coordinator = server.current_role(con)
        unknown = [m for m in names if not server.role_exists(con, m)]
        if unknown:
            raise UsageError(
                f"no PostgreSQL role named {', '.join(unknown)}: create each member's role first"
                " (CREATE ROLE name LOGIN PASSWORD '…')"
            )
        if server.team_info(con) is not None:
            raise UsageError("this database already holds a team's project: publish to another database")
        version = server.migrate(con)
        base_event = local.newest_label_event(db.cursor())
        stored = server.publish(con, counted(), names, base_event=base_event, project_version=db.schema_version())
    with db.transaction() as tx:
        local.set_link(tx, coordinator, coordinator, conninfo, base_event)
    return Published(
        coordinator=coordinator,
        members=names,
        base_event=base_event,
        files=len(files),
        bytes=stored,
        server_schema=version,
    )


def fetch_base(target: Path, conninfo: str) -> tuple[str, server.TeamInfo]:
    """The published base written as a new project file at `target`; the connection's role and
    what was published."""
    conninfo = server.checked_conninfo(conninfo)
    if target.exists():
        raise UsageError(f"{target} exists: joining a team makes a new project file (give another --db)")
    with server.connected(conninfo) as con:
        me = server.current_role(con)
        info = server.team_info(con)
        if info is None:
            raise UsageError("nothing is published on that database (the coordinator runs `studio team publish`)")
        if me not in info.members and me != info.coordinator:
            raise UsageError(f"role {me!r} is not a member of this team (the coordinator adds members)")
        version = server.schema_version(con) or 0
        if version < LATEST_SERVER_VERSION and me != info.coordinator:
            raise TeamRefused(
                f"the team's server schema is version {version}, older than this studio's {LATEST_SERVER_VERSION}:"
                f" the coordinator ({info.coordinator}) syncs once with this studio to upgrade it, then join"
            )
        files = server.base_files(con)
    target.parent.mkdir(parents=True, exist_ok=True)
    snapshot.build_project(files, target)
    return me, info


def link_member(db: Database, member: str, info: server.TeamInfo, conninfo: str) -> None:
    with db.transaction() as tx:
        local.set_link(tx, member, info.coordinator, conninfo, info.base_event)
