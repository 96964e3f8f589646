"""Whether a project's team connection works, for `studio doctor`: the link read from the file,
one connection made, the role and the server's schema read; nothing written anywhere."""

from __future__ import annotations

from dataclasses import dataclass

from studio.domain.errors import StudioError
from studio.store import Database
from studio.store.team import local, server
from studio.store.team.conninfo import shown_conninfo
from studio.store.team.server_schema import LATEST_SERVER_VERSION, SCHEMA


@dataclass(frozen=True)
class TeamProbe:
    member: str
    conninfo: str  # never with a password
    reached: bool
    role: str | None = None  # the role the connection logged in as
    server_schema: int | None = None
    problem: str | None = None


def probe(db: Database) -> TeamProbe | None:
    """None when the project has no team."""
    found = local.link(db.cursor())
    if found is None:
        return None
    shown = shown_conninfo(found.conninfo)
    try:
        with server.connected(found.conninfo, check_schema=False) as con:
            role = server.current_role(con)
            version, problem = server.schema_state(con)
    except StudioError as error:
        return TeamProbe(found.member, shown, reached=False, problem=str(error))
    if problem is None and version is None:
        problem = f"the team's server holds no {SCHEMA} schema (was its database replaced?)"
    if problem is None and version is not None and version < LATEST_SERVER_VERSION and role != found.coordinator:
        problem = (
            f"the team's server schema is version {version}, older than this studio's {LATEST_SERVER_VERSION}:"
            f" the coordinator ({found.coordinator}) syncs once with this studio to upgrade it"
        )
    if role != found.member:
        problem = f"logs in as {role!r}, but this copy is {found.member!r}'s"
    return TeamProbe(found.member, shown, reached=True, role=role, server_schema=version, problem=problem)
