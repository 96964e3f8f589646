"""Whether a project's team connection works, for `studio doctor`: the link read from the file,
one connection made, the role and the server's schema read; nothing written anywhere."""

from __future__ import annotations

from dataclasses import dataclass

from studio.domain.errors import StudioError
from studio.store import Database
from studio.store.team import local, server


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
    try:
        with server.connected(found.conninfo) as con:
            role = server.current_role(con)
            version = server.schema_version(con)
    except StudioError as error:
        return TeamProbe(found.member, found.conninfo, reached=False, problem=str(error))
    problem = None if role == found.member else f"logs in as {role!r}, but this copy is {found.member!r}'s"
    return TeamProbe(found.member, found.conninfo, reached=True, role=role, server_schema=version, problem=problem)
