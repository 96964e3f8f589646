"""The team's PostgreSQL server, through psycopg 3: connecting with libpq's own means, checking the
`studio_team` schema on every new connection, the published base.

psycopg is the `[team]` extra: it is imported when a team command runs, never when the studio
starts, and its absence is said as a usage error naming the extra. Every row read comes back as a
typed value (`psycopg.rows.class_row`), never as a bare tuple.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from studio.domain.errors import StudioError, TeamRefused, TeamUnreachable
from studio.store.team.client import INSTALL_TEAM as INSTALL_TEAM
from studio.store.team.client import client_version as client_version
from studio.store.team.client import require_client
from studio.store.team.conninfo import checked_conninfo as checked_conninfo  # re-exported: one door
from studio.store.team.server_schema import LATEST_SERVER_VERSION, SCHEMA, SERVER_MIGRATIONS, grants, schema_problem

if TYPE_CHECKING:
    from typing import TypeAlias

    import psycopg
    from psycopg.rows import TupleRow

    PgConnection: TypeAlias = psycopg.Connection[TupleRow]

CONNECT_SECONDS = 5
PART_BYTES = 32 * 1024 * 1024  # one snapshot file is stored in values of at most this size


def reason(error: Exception) -> str:
    """The first line of a driver's message: what a person needs, without its context lines."""
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__


# libpq says "connection to server at … failed: WHY"; WHY is the server's own refusal ("FATAL:  …")
# when the server answered, a refusal of libpq's when the server's terms cannot be met, and the
# network's words when nothing answered. A server that answers "not now" (starting, stopping, full)
# is as good as offline: a later sync gets in unchanged.
_SERVER_SAID = re.compile(r"\b(?:FATAL|ERROR|PANIC):\s+")
_NOT_NOW = ("starting up", "shutting down", "in recovery mode", "too many clients", "connection slots are reserved")
_TERMS = ("SSL was required", "does not support SSL", "no password supplied", "SCRAM", "authentication method")


def login_refusal(error: Exception) -> str | None:
    """The server's (or libpq's) refusal of a login, told apart from a server out of reach: the
    words a person needs (None: nothing answered, or the server said "not now": offline)."""
    text = str(error).strip()
    why = text.rsplit(" failed: ", 1)[-1]
    said = _SERVER_SAID.search(why)
    if said is not None and not any(words in why for words in _NOT_NOW):
        lines = [line.strip() for line in why[said.end() :].splitlines() if line.strip()]
        detail = next((line.removeprefix("DETAIL:").strip() for line in lines[1:] if line.startswith("DETAIL:")), None)
        return lines[0] + (f" ({detail})" if detail else "") if lines else None
    if any(words in why for words in _TERMS):
        return why.splitlines()[0].strip()
    return None


# Connections kept between syncs, by connection string: a login (SCRAM, TLS) costs more than the
# sync it serves. One user at a time: a connection is taken out while in use. A kept connection's
# schema was checked when it was made.
_KEPT: dict[str, PgConnection] = {}
_KEPT_LOCK = threading.Lock()


def _connect(conninfo: str) -> PgConnection:
    require_client()
    import psycopg

    timeout = {} if "connect_timeout" in conninfo else {"connect_timeout": CONNECT_SECONDS}
    try:
        return psycopg.connect(conninfo, **timeout)  # type: ignore[arg-type]  # connect_timeout is a libpq keyword
    except psycopg.OperationalError as error:
        refused = login_refusal(error)
        if refused is not None:
            raise TeamRefused(f"rejected by the team's server: {refused}") from None
        raise TeamUnreachable(f"the team's server cannot be reached: {reason(error)}") from None


def _kept(conninfo: str) -> PgConnection | None:
    """A kept connection that still answers (a restarted server broke the others), or None."""
    import psycopg

    with _KEPT_LOCK:
        con = _KEPT.pop(conninfo, None)
    if con is None:
        return None
    try:
        con.execute("SELECT 1")
        con.rollback()
    except psycopg.Error:
        con.close()
        return None
    return con


def _keep(conninfo: str, con: PgConnection) -> None:
    with _KEPT_LOCK:
        extra = _KEPT.pop(conninfo, None)
        _KEPT[conninfo] = con
    if extra is not None:
        extra.close()


def forget_kept() -> None:
    """Close every kept connection (a test's server going away, a process ending)."""
    with _KEPT_LOCK:
        kept = list(_KEPT.values())
        _KEPT.clear()
    for con in kept:
        con.close()


def refusal(error: Exception) -> StudioError:
    """What a driver's error means for a person: the server gone (`TeamUnreachable`), or its
    refusal or error with the server's own first line (`TeamRefused`)."""
    import psycopg

    if isinstance(error, psycopg.OperationalError):
        return TeamUnreachable(f"the team's server went away: {reason(error)}")
    if isinstance(error, psycopg.errors.InsufficientPrivilege):
        return TeamRefused(f"the team's server refused: {reason(error)}")
    return TeamRefused(f"the team's server answered with an error: {reason(error)}")


def open_connection(conninfo: str, *, autocommit: bool = False) -> PgConnection:
    """A new connection whose schema is checked (the caller closes it)."""
    con = _connect(conninfo)
    _checked(con)
    con.autocommit = autocommit
    return con


@contextmanager
def connected(conninfo: str, *, reuse: bool = False, check_schema: bool = True) -> Iterator[PgConnection]:
    """A connection as libpq makes it from `conninfo`, service files, ~/.pgpass and the PG*
    environment (with `reuse`, the one a previous call kept, while it answers), committed at the
    end. A new connection's schema is checked first (`check_schema`): a newer or damaged one is
    refused. A server out of reach raises `TeamUnreachable`; a refusal or any other error the
    server answers, `TeamRefused` with its reason (never a driver traceback)."""
    require_client()
    import psycopg

    con = _kept(conninfo) if reuse else None
    if con is None:
        con = _connect(conninfo)
        if check_schema:
            _checked(con)
    try:
        yield con
        con.commit()
    except psycopg.Error as error:
        con.close()
        raise refusal(error) from None
    except BaseException:
        con.close()
        raise
    if reuse:
        _keep(conninfo, con)
    else:
        con.close()


def schema_state(con: PgConnection) -> tuple[int | None, str | None]:
    """The server's schema version (None: it has none) and what makes it unusable by this studio
    (None: nothing)."""
    version = schema_version(con)
    return version, schema_problem(version, _schema_columns(con))


def _checked(con: PgConnection) -> None:
    """Refuse a server whose schema this studio cannot work with (closing the connection)."""
    import psycopg

    try:
        _, problem = schema_state(con)
        con.rollback()
    except psycopg.Error as error:
        con.close()
        raise refusal(error) from None
    if problem is not None:
        con.close()
        raise TeamRefused(problem)


@dataclass(frozen=True)
class _Value:
    value: object


def _one(con: PgConnection, query: str, params: Sequence[object] = ()) -> object:
    """The single value of a one-row query (None when it returns no row)."""
    from psycopg.rows import class_row

    with con.cursor(row_factory=class_row(_Value)) as cur:
        found = cur.execute(query, params).fetchone()
    return None if found is None else found.value


def current_role(con: PgConnection) -> str:
    return str(_one(con, "SELECT current_user AS value"))


def schema_version(con: PgConnection) -> int | None:
    """The version of the studio's schema on the server, None when it has none."""
    if _one(con, "SELECT to_regclass(%s) AS value", [f"{SCHEMA}.schema_version"]) is None:
        return None
    found = _one(con, f"SELECT max(version) AS value FROM {SCHEMA}.schema_version")
    return None if found is None else int(str(found))


@dataclass(frozen=True)
class _Column:
    table_name: str
    column_name: str


def _schema_columns(con: PgConnection) -> set[tuple[str, str]]:
    """(table, column) of every column of the studio's schema the connection may see."""
    from psycopg.rows import class_row

    with con.cursor(row_factory=class_row(_Column)) as cur:
        rows = cur.execute(
            "SELECT table_name::text AS table_name, column_name::text AS column_name"
            " FROM information_schema.columns WHERE table_schema = %s",
            [SCHEMA],
        ).fetchall()
    return {(row.table_name, row.column_name) for row in rows}


def migrate(con: PgConnection) -> int:
    """Create or bring the studio's schema up to date (the coordinator's connection); its version."""
    current = schema_version(con) or 0
    if current > LATEST_SERVER_VERSION:
        raise TeamRefused(
            f"the server's {SCHEMA} schema is version {current}, newer than this studio's {LATEST_SERVER_VERSION}:"
            " update the studio"
        )
    for version, statements in SERVER_MIGRATIONS:
        if version > current:
            con.execute(statements)
            con.execute(f"INSERT INTO {SCHEMA}.schema_version (version) VALUES (%s)", [version])
    return LATEST_SERVER_VERSION


def role_exists(con: PgConnection, role: str) -> bool:
    return _one(con, "SELECT 1 AS value FROM pg_roles WHERE rolname = %s", [role]) is not None


@dataclass(frozen=True)
class TeamInfo:
    coordinator: str
    base_event: int
    project_version: int
    published_at: str
    members: list[str]


@dataclass(frozen=True)
class _TeamRow:
    coordinator: str
    base_event: int
    project_version: int
    published_at: str


@dataclass(frozen=True)
class _Member:
    member: str


def team_members(con: PgConnection) -> list[str]:
    from psycopg.rows import class_row

    with con.cursor(row_factory=class_row(_Member)) as cur:
        rows = cur.execute(f"SELECT member::text AS member FROM {SCHEMA}.members ORDER BY member").fetchall()
    return [row.member for row in rows]


def team_info(con: PgConnection) -> TeamInfo | None:
    """What the coordinator published, None when nothing is."""
    from psycopg.rows import class_row

    if schema_version(con) is None:
        return None
    with con.cursor(row_factory=class_row(_TeamRow)) as cur:
        row = cur.execute(
            f"SELECT coordinator::text AS coordinator, base_event, project_version, published_at::text AS published_at"
            f" FROM {SCHEMA}.team"
        ).fetchone()
    if row is None:
        return None
    return TeamInfo(row.coordinator, row.base_event, row.project_version, row.published_at, team_members(con))


def publish(
    con: PgConnection,
    files: Iterator[tuple[str, bytes]],
    members: Sequence[str],
    *,
    base_event: int,
    project_version: int,
) -> int:
    """The base (its snapshot files), the team's record and its members' privileges, in the
    connection's transaction; the bytes stored."""
    con.execute(
        f"INSERT INTO {SCHEMA}.team (coordinator, base_event, project_version) VALUES (current_user, %s, %s)",
        [base_event, project_version],
    )
    stored = 0
    with con.cursor() as cur:
        for name, data in files:
            for part, start in enumerate(range(0, max(len(data), 1), PART_BYTES)):
                cur.execute(
                    f"INSERT INTO {SCHEMA}.base_files (name, part, bytes) VALUES (%s, %s, %s)",
                    [name, part, data[start : start + PART_BYTES]],
                )
            stored += len(data)
    add_members(con, members)
    return stored


def add_members(con: PgConnection, members: Sequence[str]) -> None:
    for member in members:
        con.execute(f"INSERT INTO {SCHEMA}.members (member) VALUES (%s) ON CONFLICT DO NOTHING", [member])
        grant_member(con, member)


def grant_member(con: PgConnection, member: str) -> None:
    """What a member may do on the current schema (again after a migration adds a table)."""
    from psycopg import sql

    role = sql.Identifier(member)
    for statement in grants():
        con.execute(sql.SQL(statement).format(role=role))


@dataclass(frozen=True)
class _FilePart:
    name: str
    bytes: bytes


def base_files(con: PgConnection) -> dict[str, bytes]:
    from psycopg.rows import class_row

    found: dict[str, bytes] = {}
    with con.cursor(row_factory=class_row(_FilePart)) as cur:
        for part in cur.execute(f"SELECT name, bytes FROM {SCHEMA}.base_files ORDER BY name, part"):
            found[part.name] = found.get(part.name, b"") + bytes(part.bytes)
    return found
