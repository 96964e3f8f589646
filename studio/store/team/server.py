"""The team's PostgreSQL server, through psycopg 3: connecting with libpq's own means, the
`studio_team` schema, the published base and the shared events.

psycopg is the `[team]` extra: it is imported when a team command runs, never when the studio
starts, and its absence is said as a usage error naming the extra.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, NamedTuple

from studio.domain.errors import TeamRefused, TeamUnreachable, UsageError
from studio.store.team.server_schema import LATEST_SERVER_VERSION, SCHEMA, SERVER_MIGRATIONS, grants

if TYPE_CHECKING:
    import psycopg

INSTALL_TEAM = "pip install 'relevance-assessment-studio[team]'  (psycopg 3)"
CONNECT_SECONDS = 5
PART_BYTES = 32 * 1024 * 1024  # one snapshot file is stored in values of at most this size


def _psycopg() -> Any:
    try:
        import psycopg
    except ImportError as error:
        raise UsageError(f"team work needs the PostgreSQL client: {INSTALL_TEAM}") from error
    return psycopg


def client_version() -> str | None:
    """psycopg's version, None when the [team] extra is not installed."""
    try:
        import psycopg
    except ImportError:
        return None
    return str(psycopg.__version__)


def checked_conninfo(conninfo: str) -> str:
    """The connection string as given, refused when it holds a password (the studio keeps the
    string in the project file: the password belongs in ~/.pgpass, a service file or PGPASSWORD)."""
    psycopg = _psycopg()
    try:
        parts = psycopg.conninfo.conninfo_to_dict(conninfo)
    except psycopg.ProgrammingError as error:
        raise UsageError(f"not a libpq connection string: {error}") from None
    if parts.get("password"):
        raise UsageError(
            "the connection string holds a password, which the project file would keep: put it in ~/.pgpass,"
            " a service file (service=NAME) or PGPASSWORD, and give the string without it"
        )
    return str(conninfo)


def _reason(error: Exception) -> str:
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__


# Connections kept between syncs, by connection string: a login (SCRAM, TLS) costs more than the
# sync it serves. One user at a time: a connection is taken out while in use.
_KEPT: dict[str, Any] = {}
_KEPT_LOCK = threading.Lock()


def _connect(conninfo: str) -> Any:
    psycopg = _psycopg()
    timeout = {} if "connect_timeout" in conninfo else {"connect_timeout": CONNECT_SECONDS}
    try:
        return psycopg.connect(conninfo, **timeout)
    except psycopg.OperationalError as error:
        raise TeamUnreachable(f"the team's server cannot be reached: {_reason(error)}") from None


def _kept(conninfo: str) -> Any | None:
    """A kept connection that still answers (a restarted server broke the others), or None."""
    psycopg = _psycopg()
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


def _keep(conninfo: str, con: Any) -> None:
    with _KEPT_LOCK:
        extra = _KEPT.pop(conninfo, None)
        _KEPT[conninfo] = con
    if extra is not None:
        extra.close()


@contextmanager
def connected(conninfo: str, *, reuse: bool = False) -> Iterator[psycopg.Connection[Any]]:
    """A connection as libpq makes it from `conninfo`, service files, ~/.pgpass and the PG*
    environment (with `reuse`, the one a previous call kept, while it answers), committed at the
    end; a server out of reach raises `TeamUnreachable`, a refusal `TeamRefused`."""
    psycopg = _psycopg()
    con = (_kept(conninfo) if reuse else None) or _connect(conninfo)
    try:
        yield con
        con.commit()
    except psycopg.errors.InsufficientPrivilege as error:
        con.close()
        raise TeamRefused(f"the team's server refused: {_reason(error)}") from None
    except psycopg.OperationalError as error:
        con.close()
        raise TeamUnreachable(f"the team's server went away: {_reason(error)}") from None
    except BaseException:
        con.close()
        raise
    if reuse:
        _keep(conninfo, con)
    else:
        con.close()


def current_role(con: psycopg.Connection[Any]) -> str:
    row = con.execute("SELECT current_user").fetchone()
    assert row is not None
    return str(row[0])


def schema_version(con: psycopg.Connection[Any]) -> int | None:
    """The version of the studio's schema on the server, None when it has none."""
    row = con.execute("SELECT to_regclass(%s)", [f"{SCHEMA}.schema_version"]).fetchone()
    if row is None or row[0] is None:
        return None
    found = con.execute(f"SELECT max(version) FROM {SCHEMA}.schema_version").fetchone()
    return None if found is None or found[0] is None else int(found[0])


def migrate(con: psycopg.Connection[Any]) -> int:
    """Create or bring the studio's schema up to date (the coordinator's connection); its version."""
    current = schema_version(con) or 0
    if current > LATEST_SERVER_VERSION:
        raise TeamRefused(f"the server's {SCHEMA} schema is version {current}, newer than this studio's")
    for version, statements in SERVER_MIGRATIONS:
        if version > current:
            con.execute(statements)
            con.execute(f"INSERT INTO {SCHEMA}.schema_version (version) VALUES (%s)", [version])
    return LATEST_SERVER_VERSION


def role_exists(con: psycopg.Connection[Any], role: str) -> bool:
    return con.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [role]).fetchone() is not None


class TeamInfo(NamedTuple):
    coordinator: str
    base_event: int
    project_version: int
    published_at: str
    members: list[str]


def team_info(con: psycopg.Connection[Any]) -> TeamInfo | None:
    """What the coordinator published, None when nothing is."""
    if schema_version(con) is None:
        return None
    row = con.execute(
        f"SELECT coordinator, base_event, project_version, published_at::text FROM {SCHEMA}.team"
    ).fetchone()
    if row is None:
        return None
    members = [str(r[0]) for r in con.execute(f"SELECT member FROM {SCHEMA}.members ORDER BY member").fetchall()]
    return TeamInfo(str(row[0]), int(row[1]), int(row[2]), str(row[3]), members)


def publish(
    con: psycopg.Connection[Any],
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


def add_members(con: psycopg.Connection[Any], members: Sequence[str]) -> None:
    psycopg = _psycopg()
    for member in members:
        con.execute(f"INSERT INTO {SCHEMA}.members (member) VALUES (%s) ON CONFLICT DO NOTHING", [member])
        role = psycopg.sql.Identifier(member)
        for statement in grants():
            con.execute(psycopg.sql.SQL(statement).format(role=role))


def base_files(con: psycopg.Connection[Any]) -> dict[str, bytes]:
    found: dict[str, bytes] = {}
    rows = con.execute(f"SELECT name, bytes FROM {SCHEMA}.base_files ORDER BY name, part")
    for name, data in rows:
        found[str(name)] = found.get(str(name), b"") + bytes(data)
    return found


class Outgoing(NamedTuple):
    seq: int
    kind: str
    payload: str  # JSON
    made_at: str


def push(con: psycopg.Connection[Any], member: str, events: Sequence[Outgoing]) -> int:
    """The events under `member` (the server's row-level security refuses any name but the
    connection's role); one already there is left as it is. How many were new."""
    if not events:
        return 0
    before = _count_of(con, member)
    with con.cursor() as cur:
        cur.executemany(
            f"INSERT INTO {SCHEMA}.events (member, seq, kind, payload, made_at)"
            " VALUES (%s, %s, %s, %s::jsonb, %s::timestamp) ON CONFLICT (member, seq) DO NOTHING",
            [(member, e.seq, e.kind, e.payload, e.made_at) for e in events],
        )
    return _count_of(con, member) - before


def _count_of(con: psycopg.Connection[Any], member: str) -> int:
    row = con.execute(f"SELECT count(*) FROM {SCHEMA}.events WHERE member = %s", [member]).fetchone()
    return int(row[0]) if row else 0


class Incoming(NamedTuple):
    member: str
    seq: int
    kind: str
    payload: str  # JSON


def pull(con: psycopg.Connection[Any], cursors: dict[str, int], limit: int = 100_000) -> list[Incoming]:
    """Every member's events after the newest this copy holds of theirs, in the server's order
    (each member's in the order they made them)."""
    names, seqs = list(cursors), [cursors[n] for n in cursors]
    rows = con.execute(
        f"""
        SELECT e.member, e.seq, e.kind, e.payload::text FROM {SCHEMA}.events e
        LEFT JOIN unnest(%s::text[], %s::bigint[]) AS c(member, seq) ON c.member = e.member
        WHERE e.seq > coalesce(c.seq, 0)
        ORDER BY e.id LIMIT %s
        """,
        [names, seqs, limit],
    ).fetchall()
    return [Incoming(str(m), int(s), str(k), str(p)) for m, s, k, p in rows]


def event_counts(con: psycopg.Connection[Any]) -> dict[str, int]:
    rows = con.execute(f"SELECT member, count(*) FROM {SCHEMA}.events GROUP BY member ORDER BY member").fetchall()
    return {str(m): int(n) for m, n in rows}
