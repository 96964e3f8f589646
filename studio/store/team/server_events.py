"""The shared events on the team's server: pushing a member's own (one identity, one content),
pulling the others', and the quarantine reports of events a copy's gates refused."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from studio.store.team.server_schema import SCHEMA

if TYPE_CHECKING:
    from studio.store.team.server import PgConnection


@dataclass(frozen=True)
class Outgoing:
    seq: int
    kind: str
    payload: str  # JSON
    made_at: str


@dataclass(frozen=True)
class Pushed:
    """What a push did: how many events were new on the server, and the sequence numbers the
    server already held under this member with another content (then nothing is kept)."""

    new: int
    differing: list[int]


@dataclass(frozen=True)
class _Seq:
    seq: int


@dataclass(frozen=True)
class _Count:
    count: int


def push(con: PgConnection, member: str, events: Sequence[Outgoing]) -> Pushed:
    """The events under `member` (the server's row-level security refuses any name but the
    connection's role). An identity already there with the same content is left as it is (a
    retry); with another content it is a second content for one identity, which the caller must
    refuse (roll back) — the server's unique key would refuse the row itself."""
    if not events:
        return Pushed(0, [])
    before = _count_of(con, member)
    with con.cursor() as cur:
        cur.executemany(
            f"INSERT INTO {SCHEMA}.events (member, seq, kind, payload, made_at)"
            " VALUES (%s, %s, %s, %s::jsonb, %s::timestamp) ON CONFLICT (member, seq) DO NOTHING",
            [(member, e.seq, e.kind, e.payload, e.made_at) for e in events],
        )
    new = _count_of(con, member) - before
    return Pushed(new, differing_content(con, member, events) if new < len(events) else [])


def differing_content(con: PgConnection, member: str, events: Sequence[Outgoing]) -> list[int]:
    """The sequence numbers of `events` the server holds under `member` with another kind,
    payload or time."""
    from psycopg.rows import class_row

    with con.cursor(row_factory=class_row(_Seq)) as cur:
        rows = cur.execute(
            f"""
            SELECT o.seq FROM unnest(%s::bigint[], %s::text[], %s::jsonb[], %s::timestamp[])
                AS o(seq, kind, payload, made_at)
            JOIN {SCHEMA}.events e ON e.member = %s AND e.seq = o.seq
            WHERE e.kind <> o.kind OR e.payload <> o.payload OR e.made_at <> o.made_at
            ORDER BY o.seq
            """,
            [
                [e.seq for e in events],
                [e.kind for e in events],
                [e.payload for e in events],
                [e.made_at for e in events],
                member,
            ],
        ).fetchall()
    return [row.seq for row in rows]


def _count_of(con: PgConnection, member: str) -> int:
    from psycopg.rows import class_row

    with con.cursor(row_factory=class_row(_Count)) as cur:
        row = cur.execute(f"SELECT count(*) AS count FROM {SCHEMA}.events WHERE member = %s", [member]).fetchone()
    return 0 if row is None else row.count


@dataclass(frozen=True)
class Incoming:
    member: str
    seq: int
    kind: str
    payload: str  # JSON, as the server keeps it


def pull(con: PgConnection, cursors: dict[str, int], limit: int = 100_000) -> list[Incoming]:
    """Every member's events after the newest this copy holds of theirs, in the server's order
    (each member's in the order they made them)."""
    from psycopg.rows import class_row

    names, seqs = list(cursors), [cursors[n] for n in cursors]
    with con.cursor(row_factory=class_row(Incoming)) as cur:
        return cur.execute(
            f"""
            SELECT e.member::text AS member, e.seq, e.kind, e.payload::text AS payload FROM {SCHEMA}.events e
            LEFT JOIN unnest(%s::text[], %s::bigint[]) AS c(member, seq) ON c.member = e.member
            WHERE e.seq > coalesce(c.seq, 0)
            ORDER BY e.id LIMIT %s
            """,
            [names, seqs, limit],
        ).fetchall()


@dataclass(frozen=True)
class MemberCount:
    member: str
    events: int


def event_counts(con: PgConnection) -> dict[str, int]:
    from psycopg.rows import class_row

    with con.cursor(row_factory=class_row(MemberCount)) as cur:
        rows = cur.execute(
            f"SELECT member::text AS member, count(*) AS events FROM {SCHEMA}.events GROUP BY member ORDER BY member"
        ).fetchall()
    return {row.member: row.events for row in rows}


@dataclass(frozen=True)
class Report:
    """One quarantined event as a copy reported it."""

    reporter: str
    member: str
    seq: int
    reason: str
    found_at: str


def report_quarantined(con: PgConnection, reports: Sequence[tuple[str, int, str]]) -> None:
    """(member, seq, reason) of events this copy's gates refused, reported under the connection's
    role (a report made twice is kept once)."""
    if not reports:
        return
    with con.cursor() as cur:
        cur.executemany(
            f"INSERT INTO {SCHEMA}.quarantine (member, seq, reason) VALUES (%s, %s, %s)"
            " ON CONFLICT (reporter, member, seq) DO NOTHING",
            list(reports),
        )


def quarantine_reports(con: PgConnection) -> list[Report]:
    """Every report on the server, by event then reporter."""
    from psycopg.rows import class_row

    with con.cursor(row_factory=class_row(Report)) as cur:
        return cur.execute(
            f"SELECT reporter::text AS reporter, member::text AS member, seq, reason,"
            f" to_char(found_at, 'YYYY-MM-DD HH24:MI:SS.US') AS found_at"
            f" FROM {SCHEMA}.quarantine ORDER BY member, seq, reporter"
        ).fetchall()
