"""The project file's side of a team: its link to the server, the global identity of each shared
event, and the local events still to be given one (the outbox)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from studio.store.database import Connection, records
from studio.store.label_events import EventNote, add_event_notes, event_source_id
from studio.store.migrations import schema_holds, v24_team_sync, v26_team_gates, v27_team_outcome


class Link(NamedTuple):
    member: str
    coordinator: str
    conninfo: str
    base_event: int
    last_sync: str | None
    last_attempt: str | None
    last_outcome: str | None = None  # synced | offline | rejected (None: no attempt, or a file before v27)
    last_error: str | None = None  # why the last attempt did not sync


class Shared(NamedTuple):
    """One shared event: its global identity, what it is and the local label event behind it."""

    member: str
    seq: int
    kind: str
    payload: str  # JSON
    label_event: int | None
    made_at: str  # when its member made it (their clock)


def has_team_tables(con: Connection) -> bool:
    """Whether the file has the team's tables (a read-only file of an older schema may not)."""
    return schema_holds(con, v24_team_sync.VERSION)


def has_outcome(con: Connection) -> bool:
    """Whether the file keeps the last attempt's outcome (schema 27; a read-only older file may not)."""
    return schema_holds(con, v27_team_outcome.VERSION)


def link(con: Connection) -> Link | None:
    if not has_team_tables(con):
        return None
    outcome = ", last_outcome, last_error" if has_outcome(con) else ", NULL, NULL"
    row = con.execute(
        "SELECT member, coordinator, conninfo, base_event, strftime(last_sync, '%Y-%m-%d %H:%M:%S.%f'),"
        f" strftime(last_attempt, '%Y-%m-%d %H:%M:%S.%f'){outcome} FROM team_link"
    ).fetchone()
    if row is None:
        return None
    return Link(str(row[0]), str(row[1]), str(row[2]), int(row[3]), row[4], row[5], row[6], row[7])


def set_link(con: Connection, member: str, coordinator: str, conninfo: str, base_event: int) -> None:
    """This copy belongs to a team from now on (any earlier link, shared and quarantined events
    forgotten: a joined member's file starts from the coordinator's, whose are not its own)."""
    con.execute("DELETE FROM team_link")
    con.execute("DELETE FROM team_events")
    if has_quarantine(con):
        con.execute("DELETE FROM team_quarantine")
    con.execute(
        "INSERT INTO team_link (member, coordinator, conninfo, base_event, published_at)"
        " VALUES (?, ?, ?, ?, current_timestamp)",
        [member, coordinator, conninfo, base_event],
    )


def newest_label_event(con: Connection) -> int:
    row = con.execute("SELECT coalesce(max(event_id), 0) FROM label_events").fetchone()
    return int(row[0]) if row else 0


def note_attempt(con: Connection, outcome: str, error: str | None = None) -> None:
    """A sync was tried now and ended as `outcome` (synced, offline or rejected, with `error`)."""
    synced = ", last_sync = current_timestamp" if outcome == "synced" else ""
    con.execute(
        f"UPDATE team_link SET last_attempt = current_timestamp{synced}, last_outcome = ?, last_error = ?",
        [outcome, error],
    )


# The label events since the base a team may share (a person's edits and undos, an audit's
# assessments) that no shared event stands for yet: an anti-join that finds few, however long the
# team's history and however many events imports and judges wrote since.
_FRESH = """
    SELECT e.event_id FROM label_events e
    WHERE e.event_id > $base
      AND (e.origin IN ('person', 'undo') OR e.event_id IN (SELECT label_event FROM audit_assessments))
      AND NOT EXISTS (SELECT 1 FROM team_events t WHERE t.label_event = e.event_id)
"""
# Those events read in full, with what an audit recorded with them (an assessor's grade or an
# adjudication), oldest first.
_UNSHARED = """
    SELECT e.event_id, s.name AS label_set, e.qid, e.docid, e.grade, e.previous, e.origin, e.note, e.undoes,
           a.kind AS assessment, a.assessor, a.grade AS assessor_grade, a.seconds, au.name AS audit,
           strftime(e.created_at, '%Y-%m-%d %H:%M:%S.%f') AS made_at,
           (SELECT max(p.event_id) FROM label_events p
            WHERE p.label_set_id = e.label_set_id AND p.qid = e.qid AND p.docid = e.docid
              AND p.event_id < e.event_id) AS parent_event
    FROM label_events e
    JOIN label_sets s USING (label_set_id)
    LEFT JOIN audit_assessments a ON a.label_event = e.event_id
    LEFT JOIN audits au ON au.audit_id = a.audit_id
    WHERE e.event_id IN (SELECT unnest($fresh::BIGINT[]))
    ORDER BY e.event_id
"""


def unshared_events(con: Connection, base_event: int) -> list[dict[str, Any]]:
    fresh = [int(row[0]) for row in con.execute(_FRESH, {"base": base_event}).fetchall()]
    if not fresh:
        return []
    return records(con.execute(_UNSHARED, {"fresh": fresh}))


def local_only_count(con: Connection, base_event: int) -> int:
    """Label events since the base that no shared event stands for (imports, judges, derived sets):
    every one since the base, less those a shared event stands for (all of them since the base)."""
    row = con.execute(
        "SELECT (SELECT count(*) FROM label_events WHERE event_id > $base)"
        " - (SELECT count(*) FROM team_events WHERE label_event > $base)",
        {"base": base_event},
    ).fetchone()
    return int(row[0]) if row else 0


def next_seq(con: Connection, member: str) -> int:
    row = con.execute("SELECT coalesce(max(seq), 0) + 1 FROM team_events WHERE member = ?", [member]).fetchone()
    return int(row[0]) if row else 1


def add_shared(con: Connection, events: Sequence[Shared], *, pushed: bool) -> None:
    """Record shared events (one statement, however many: a pull brings thousands)."""
    if not events:
        return
    con.execute(
        """
        INSERT INTO team_events (member, seq, kind, payload, label_event, pushed, made_at)
        SELECT unnest(?::VARCHAR[]), unnest(?::BIGINT[]), unnest(?::VARCHAR[]), unnest(?::VARCHAR[]),
               unnest(?::BIGINT[]), ?, unnest(?::VARCHAR[])::TIMESTAMP
        """,
        [
            [e.member for e in events],
            [e.seq for e in events],
            [e.kind for e in events],
            [e.payload for e in events],
            [e.label_event for e in events],
            pushed,
            [e.made_at for e in events],
        ],
    )


def waiting(con: Connection, member: str) -> list[Shared]:
    """This member's events the server has not acknowledged, in order."""
    rows = con.execute(
        "SELECT member, seq, kind, payload, label_event, strftime(made_at, '%Y-%m-%d %H:%M:%S.%f')"
        " FROM team_events WHERE member = ? AND NOT pushed ORDER BY seq",
        [member],
    ).fetchall()
    return [Shared(str(m), int(s), str(k), str(p), None if e is None else int(e), str(t)) for m, s, k, p, e, t in rows]


def waiting_count(con: Connection, member: str) -> int:
    row = con.execute("SELECT count(*) FROM team_events WHERE member = ? AND NOT pushed", [member]).fetchone()
    return int(row[0]) if row else 0


def mark_pushed(con: Connection, member: str, up_to: int) -> None:
    con.execute("UPDATE team_events SET pushed = true WHERE member = ? AND seq <= ? AND NOT pushed", [member, up_to])


def cursors(con: Connection) -> dict[str, int]:
    """Per member, the newest of their events this copy holds (its own: the newest made here)."""
    rows = con.execute("SELECT member, max(seq) FROM team_events GROUP BY member").fetchall()
    return {str(m): int(s) for m, s in rows}


def holds(con: Connection, member: str, seq: int) -> bool:
    """Whether this copy holds the shared event (member, seq): applied, or quarantined."""
    row = con.execute("SELECT 1 FROM team_events WHERE member = ? AND seq = ?", [member, seq]).fetchone()
    return row is not None


def label_event_of(con: Connection, member: str, seq: int) -> int | None:
    """The local label event that made or applied the shared event (member, seq)."""
    row = con.execute("SELECT label_event FROM team_events WHERE member = ? AND seq = ?", [member, seq]).fetchone()
    return None if row is None or row[0] is None else int(row[0])


def identity_of(con: Connection, label_event: int) -> tuple[str, int] | None:
    """The global identity of the shared event a local label event stands for."""
    row = con.execute("SELECT member, seq FROM team_events WHERE label_event = ?", [label_event]).fetchone()
    return None if row is None else (str(row[0]), int(row[1]))


def shared_counts(con: Connection) -> dict[str, int]:
    """How many shared events of each member this copy holds that the server has too: neither
    this member's own events still waiting to go up nor the quarantined ones (never applied)."""
    held_aside = (
        " AND NOT EXISTS (SELECT 1 FROM team_quarantine q WHERE q.member = t.member AND q.seq = t.seq)"
        if has_quarantine(con)
        else ""
    )
    rows = con.execute(
        f"SELECT member, count(*) FROM team_events t WHERE pushed{held_aside} GROUP BY member ORDER BY member"
    ).fetchall()
    return {str(m): int(n) for m, n in rows}


def shared_identities(con: Connection) -> list[tuple[str, int]]:
    rows = con.execute("SELECT member, seq FROM team_events ORDER BY member, seq").fetchall()
    return [(str(m), int(s)) for m, s in rows]


class Standing(NamedTuple):
    """The event that sets a pair's label now: its grade, when it was made, and its global
    identity (None: it came with the base or is not shared)."""

    grade: float | None
    made_at: str
    identity: tuple[str, int] | None


PairStanding = dict[tuple[str, str], Standing]


def pairs_standing(con: Connection, label_set: int, pairs: Sequence[tuple[str, str]]) -> PairStanding:
    """`pair_standing` of many pairs of one label set in one query."""
    if not pairs:
        return {}
    qids, docids = [q for q, _ in pairs], [d for _, d in pairs]
    rows = con.execute(
        """
        WITH wanted AS (SELECT DISTINCT unnest(?::VARCHAR[]) AS qid, unnest(?::VARCHAR[]) AS docid),
        newest AS (
            SELECT e.qid, e.docid, max(e.event_id) AS event_id
            FROM label_events e JOIN wanted w ON w.qid = e.qid AND w.docid = e.docid
            WHERE e.label_set_id = ? GROUP BY e.qid, e.docid
        )
        SELECT n.qid, n.docid, e.grade, strftime(coalesce(t.made_at, e.created_at), '%Y-%m-%d %H:%M:%S.%f'),
               t.member, t.seq
        FROM newest n JOIN label_events e ON e.event_id = n.event_id
        LEFT JOIN team_events t ON t.label_event = e.event_id
        """,
        [qids, docids, label_set],
    ).fetchall()
    return {
        (str(q), str(d)): Standing(None if g is None else float(g), str(t), None if m is None else (str(m), int(s)))
        for q, d, g, t, m, s in rows
    }


class PulledLabel(NamedTuple):
    qid: str
    docid: str
    grade: float | None
    previous: float | None
    member: str
    note: str | None


def append_pulled_labels(con: Connection, label_set: int, rows: Sequence[PulledLabel], batch_id: int) -> list[int]:
    """Others' label edits as person events of this copy, in order, each with the grade it
    replaces (given: the caller knows the pairs' grades); their event ids, in the same order."""
    if not rows:
        return []
    # The ids drawn first and given in order: a sequence in a set-wise insert numbers rows in no set order.
    drawn = con.execute("SELECT nextval('label_event_ids') FROM range(?)", [len(rows)]).fetchall()
    ids = sorted(int(row[0]) for row in drawn)
    # Schema 25: each member's (origin, source) once, the notes beside (`studio.store.label_events`).
    sources = {member: event_source_id(con, "person", member) for member in {r.member for r in rows}}
    con.execute(
        """
        INSERT INTO label_event_rows (event_id, label_set_id, qid, docid, grade, previous, source_id, batch_id)
        SELECT unnest(?::BIGINT[]), ?, unnest(?::VARCHAR[]), unnest(?::VARCHAR[]), unnest(?::DOUBLE[]),
               unnest(?::DOUBLE[]), unnest(?::INTEGER[]), ?
        """,
        [
            ids,
            label_set,
            [r.qid for r in rows],
            [r.docid for r in rows],
            [r.grade for r in rows],
            [r.previous for r in rows],
            [sources[r.member] for r in rows],
            batch_id,
        ],
    )
    add_event_notes(con, [EventNote(event, r.note, None) for event, r in zip(ids, rows, strict=True)])
    return ids


def has_quarantine(con: Connection) -> bool:
    """Whether the file has the quarantine's table (a read-only file of an older schema may not)."""
    return schema_holds(con, v26_team_gates.VERSION)


class Quarantined(NamedTuple):
    """A pulled event the gates refused: never applied, kept aside with the reason."""

    member: str
    seq: int
    kind: str
    payload: str  # as the server kept it
    reason: str
    found_at: str


def quarantine(con: Connection, events: Sequence[Quarantined]) -> None:
    """Keep refused events aside; their identities stand in `team_events` too (without a label
    event), so that they are pulled once and never hold up the events after them."""
    if not events:
        return
    con.executemany(
        "INSERT INTO team_quarantine (member, seq, kind, payload, reason, found_at)"
        " VALUES (?, ?, ?, ?, ?, ?::TIMESTAMP)",
        [(e.member, e.seq, e.kind, e.payload, e.reason, e.found_at) for e in events],
    )
    add_shared(con, [Shared(e.member, e.seq, e.kind, e.payload, None, e.found_at) for e in events], pushed=True)


def quarantined(con: Connection) -> list[Quarantined]:
    """Every quarantined event of this copy, by member and sequence."""
    if not has_quarantine(con):
        return []
    rows = con.execute(
        "SELECT member, seq, kind, payload, reason, strftime(found_at, '%Y-%m-%d %H:%M:%S.%f')"
        " FROM team_quarantine ORDER BY member, seq"
    ).fetchall()
    return [Quarantined(str(m), int(s), str(k), str(p), str(r), str(t)) for m, s, k, p, r, t in rows]


def unreported(con: Connection) -> list[Quarantined]:
    """Quarantined events the server has not heard of from this copy."""
    return [q for q in quarantined(con) if (q.member, q.seq) in _unreported_keys(con)]


def _unreported_keys(con: Connection) -> set[tuple[str, int]]:
    rows = con.execute("SELECT member, seq FROM team_quarantine WHERE NOT reported").fetchall()
    return {(str(m), int(s)) for m, s in rows}


def mark_reported(con: Connection, keys: Sequence[tuple[str, int]]) -> None:
    con.executemany("UPDATE team_quarantine SET reported = true WHERE member = ? AND seq = ?", list(keys))
