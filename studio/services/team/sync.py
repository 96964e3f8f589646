"""`studio sync`: this member's new events up to the team's server, in the order they were made,
and the others' down, each applied once through the one write path.

Every event is first given its global identity (member, seq) in the project file; only then is it
sent. The server keeps one row per identity, so a push that dies after the server committed and
before the project file noted it simply sends the same identities again. Without the server the
sync says offline and changes nothing but the time of its attempt: the events wait, in order.
"""

from __future__ import annotations

import json

from studio.domain.errors import TeamRefused, TeamUnreachable, UsageError
from studio.domain.team import SyncResult, TeamStatus
from studio.services.team.pulled_labels import apply_labels
from studio.services.team.sharing import Applied, apply, outgoing
from studio.services.writes.label_writes import LabelWrites
from studio.store import Database
from studio.store.team import local, server
from studio.store.team.local import Link, Shared

NO_TEAM = "this project belongs to no team (`studio team publish --to …` or `studio --db LOCAL team join CONNINFO`)"


def team_link(db: Database) -> Link:
    found = local.link(db.cursor())
    if found is None:
        raise UsageError(NO_TEAM)
    return found


def stamp(db: Database, link: Link) -> int:
    """Give each local event a team shares, not yet given one, its global identity; how many."""
    con = db.cursor()
    seq = local.next_seq(con, link.member)
    given: list[Shared] = []
    pending: dict[int, tuple[str, int]] = {}
    for row in local.unshared_events(con, link.base_event):
        found = outgoing(con, row, link.member, link.coordinator, pending)
        if found is None:
            continue
        kind, payload = found
        event = int(row["event_id"])
        given.append(Shared(link.member, seq, kind, json.dumps(payload), event, str(row["made_at"])))
        pending[event] = (link.member, seq)
        seq += 1
    if given:
        with db.transaction() as tx:
            local.add_shared(tx, given, pushed=False)
    return len(given)


def sync(writes: LabelWrites) -> SyncResult:
    """Push what waits, pull what the others made; offline is an answer, not an error."""
    db = writes.engine.db
    with db.busy():  # a release from another thread (the TUI's) waits for the end of it
        link = team_link(db)
        stamp(db, link)
    try:
        pushed, applied = _exchange(writes, link)
    except TeamUnreachable as error:
        with db.transaction() as tx:
            local.note_attempt(tx, reached=False)
        return {**_result(db, link, 0, Applied(link.member), offline=True), "error": str(error)}
    with db.transaction() as tx:
        local.note_attempt(tx, reached=True)
    return _result(db, link, pushed, applied, offline=False)


def _exchange(writes: LabelWrites, link: Link) -> tuple[int, Applied]:
    db = writes.engine.db
    applied = Applied(link.member)
    # Connected before the project file is used: an unreachable server keeps nobody waiting for it.
    with server.connected(link.conninfo, reuse=True) as con, db.busy():
        role = server.current_role(con)
        if role != link.member:
            raise TeamRefused(f"the connection logs in as {role!r}, but this copy is {link.member!r}'s")
        waiting = local.waiting(db.cursor(), link.member)
        outgoing_events = [server.Outgoing(e.seq, e.kind, e.payload, e.made_at) for e in waiting]
        pushed = server.push(con, link.member, outgoing_events)
        con.commit()  # acknowledged: only now noted as pushed
        if waiting:
            with db.transaction() as tx:
                local.mark_pushed(tx, link.member, waiting[-1].seq)
        while True:
            before = applied.count
            apply_all(writes, server.pull(con, local.cursors(db.cursor())), applied)
            if applied.count == before:
                break
    return pushed, applied


def apply_all(writes: LabelWrites, incoming: list[server.Incoming], applied: Applied) -> None:
    """Apply pulled events in the server's order: runs of label edits in one bulk write each, the
    others one by one; a member whose event must wait has their later ones wait too."""
    run: list[server.Incoming] = []
    for event in incoming:
        if event.member in applied.deferred:
            continue
        if event.kind == "label":
            run.append(event)
            continue
        apply_labels(writes, run, applied)
        run = []
        apply(writes, event, applied)
    apply_labels(writes, run, applied)


def _result(db: Database, link: Link, pushed: int, applied: Applied, *, offline: bool) -> SyncResult:
    con = db.cursor()
    return SyncResult(
        member=link.member,
        pushed=pushed,
        pulled=applied.count,
        waiting=local.waiting_count(con, link.member),
        offline=offline,
        local_only=local.local_only_count(con, link.base_event),
        conflicts=applied.conflicts,
    )


def _shareable_unstamped(db: Database, link: Link) -> int:
    """Local events a team shares that no sync has given an identity yet (made since the last one)."""
    con = db.cursor()
    rows = local.unshared_events(con, link.base_event)
    return sum(outgoing(con, row, link.member, link.coordinator, {}) is not None for row in rows)


def status(db: Database) -> TeamStatus:
    """The team as this copy knows it, from the project file alone."""
    link = team_link(db)
    con = db.cursor()
    return TeamStatus(
        member=link.member,
        coordinator=link.coordinator,
        conninfo=link.conninfo,
        last_sync=link.last_sync,
        last_attempt=link.last_attempt,
        waiting=local.waiting_count(con, link.member) + _shareable_unstamped(db, link),
        shared=local.shared_counts(con),
    )
