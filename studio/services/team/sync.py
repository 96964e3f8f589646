"""`studio sync`: this member's new events up to the team's server, in the order they were made,
and the others' down, each applied once through the one write path.

Every event is first given its global identity (member, seq) in the project file; only then is it
sent. The server keeps one row per identity, so a push that dies after the server committed and
before the project file noted it simply sends the same identities again. Without the server the
sync says offline and changes nothing but the time of its attempt: the events wait, in order.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from studio.domain.errors import TeamRefused, TeamUnreachable, UsageError
from studio.domain.team import QuarantinedEvent, QuarantineReport, SyncResult, TeamStatus
from studio.domain.team_events import LabelPayload, Refused
from studio.services.team.pulled_labels import PulledEdit, apply_labels
from studio.services.team.sharing import Applied, Sharer, apply, outgoing, quarantine
from studio.services.writes.label_writes import LabelWrites
from studio.services.writes.owners import owned_set_names
from studio.services.writes.pulled_gates import PulledGates
from studio.store import Connection, Database
from studio.store.team import local, server, server_events
from studio.store.team.conninfo import shown_conninfo
from studio.store.team.local import Link, Shared
from studio.store.team.server_events import Incoming
from studio.store.team.server_schema import LATEST_SERVER_VERSION, SCHEMA

if TYPE_CHECKING:
    from studio.store.team.server import PgConnection

PULL_LIMIT = 100_000
RECOVER = (
    "Keep this file aside and make a new copy with `studio --db NEW team join CONNINFO` (as yourself, then redo"
    " the edits made here since its last sync; or as a new member, with a role of your own)"
)
NO_TEAM = "this project belongs to no team (`studio team publish --to …` or `studio --db LOCAL team join CONNINFO`)"


def team_link(db: Database) -> Link:
    found = local.link(db.cursor())
    if found is None:
        raise UsageError(NO_TEAM)
    return found


def sharer(con: Connection, link: Link) -> Sharer:
    return Sharer(link.member, link.coordinator, owned_set_names(con))


def stamp(db: Database, link: Link) -> int:
    """Give each local event a team shares, not yet given one, its global identity; how many."""
    con = db.cursor()
    rows = local.unshared_events(con, link.base_event)
    if not rows:
        return 0
    seq = local.next_seq(con, link.member)
    given: list[Shared] = []
    pending: dict[int, tuple[str, int]] = {}
    who = sharer(con, link)
    for row in rows:
        found = outgoing(con, row, who, pending)
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
    """Push what waits, pull what the others made; offline is an answer, not an error. A server
    that rejects the copy (its login, its role's rights) raises `TeamRefused`; both are noted in
    the file with their reason, for `studio team status`.

    The project file is taken per step, never across a round trip to the server: a front end
    that gives the file up between uses (the TUI) lets other commands in between the steps."""
    db = writes.engine.db
    with db.busy():  # a release from another thread (the TUI's) waits for the end of it
        link = team_link(db)
        stamp(db, link)
    try:
        pushed, applied = _exchange(writes, link)
    except TeamUnreachable as error:
        _note(db, "offline", str(error))
        with db.busy():
            return {**_result(db, link, 0, Applied(link.member), offline=True), "error": str(error)}
    except TeamRefused as error:
        _note(db, "rejected", str(error))
        raise
    _note(db, "synced")
    with db.busy():
        return _result(db, link, pushed, applied, offline=False)


def _note(db: Database, outcome: str, error: str | None = None) -> None:
    with db.transaction() as tx:
        local.note_attempt(tx, outcome, error)


def _exchange(writes: LabelWrites, link: Link) -> tuple[int, Applied]:
    applied = Applied(link.member)
    # Connected before the project file is used: an unreachable server keeps nobody waiting for it.
    with server.connected(link.conninfo, reuse=True) as con:
        ready_to_sync(con, link)
        pushed = _push(con, writes.engine.db, link)
        _pull(con, writes, link, applied)
        _report(con, writes.engine.db)
    return pushed, applied


def _pull(con: PgConnection, writes: LabelWrites, link: Link, applied: Applied) -> None:
    """The others' events, in pulls of at most PULL_LIMIT: each asked of the server with the file
    given up, then applied with the file held. What another process on this copy applied
    meanwhile (its own `studio sync`) is left out: the cursors are read again first."""
    db = writes.engine.db
    while True:
        with db.busy():
            after = local.cursors(db.cursor())
        pulled = server_events.pull(con, after, PULL_LIMIT)
        with db.busy(), writes.applying_pulled():
            now = local.cursors(db.cursor())
            fresh = [event for event in pulled if event.seq > now.get(event.member, 0)]
            gates = PulledGates(db.cursor(), link.coordinator, writes.engine.owned_sets())
            apply_all(writes, fresh, applied, gates)
        if len(pulled) < PULL_LIMIT:
            break


def ready_to_sync(con: PgConnection, link: Link) -> None:
    """Refuse a connection that is not this copy's member's, a server whose schema is older than
    this studio's (the coordinator's sync upgrades it), and a server holding events under this
    member that this copy never made (another copy of it synced)."""
    role = server.current_role(con)
    if role != link.member:
        raise TeamRefused(f"the connection logs in as {role!r}, but this copy is {link.member!r}'s")
    version = server.schema_version(con)
    if version is None:
        raise TeamRefused(
            f"the team's server holds no {SCHEMA} schema any more (was its database replaced?): nothing was exchanged"
        )
    if version < LATEST_SERVER_VERSION:
        if role != link.coordinator:
            raise TeamRefused(
                f"the team's server schema is version {version}, older than this studio's {LATEST_SERVER_VERSION}:"
                f" the coordinator ({link.coordinator}) syncs once with this studio to upgrade it"
            )
        server.migrate(con)
        for member in server.team_members(con):
            server.grant_member(con, member)
        con.commit()


def _push(con: PgConnection, db: Database, link: Link) -> int:
    """This member's waiting events up, committed before the project file notes them pushed; a
    second content for an identity the server holds refuses the whole push. (A copy behind the
    server on its own member's events with nothing of its own waiting — a backup restored and not
    edited, a copy re-joined — simply pulls them, as the others'.)"""
    with db.busy():
        waiting = local.waiting(db.cursor(), link.member)
    outgoing_events = [server_events.Outgoing(e.seq, e.kind, e.payload, e.made_at) for e in waiting]
    pushed = server_events.push(con, link.member, outgoing_events)
    if pushed.differing:
        shown = ", ".join(f"#{seq}" for seq in pushed.differing[:5])
        raise TeamRefused(
            f"the server holds {link.member}'s events {shown} with another content than this copy's: another copy"
            f" of this project synced as {link.member} (a backup restored, or the file copied); nothing was pushed."
            f" {RECOVER}"
        )
    con.commit()  # acknowledged: only now noted as pushed
    if waiting:
        with db.transaction() as tx:
            local.mark_pushed(tx, link.member, waiting[-1].seq)
    return pushed.new


def _report(con: PgConnection, db: Database) -> None:
    """This copy's quarantined events the server has not heard of, reported (the coordinator sees them)."""
    with db.busy():
        found = local.unreported(db.cursor())
    if not found:
        return
    server_events.report_quarantined(con, [(q.member, q.seq, q.reason) for q in found])
    con.commit()
    with db.transaction() as tx:
        local.mark_reported(tx, [(q.member, q.seq) for q in found])


def apply_all(writes: LabelWrites, incoming: list[Incoming], applied: Applied, gates: PulledGates) -> None:
    """Apply pulled events in the server's order, each through the gates first (one that fails
    is quarantined and the next go on): runs of label edits in one bulk write each, the others
    one by one."""
    run: list[PulledEdit] = []
    for event in incoming:
        if event.kind == "undo" and run:  # an undo may name an edit of the run: the run first
            apply_labels(writes, run, applied)
            run = []
        try:
            payload = gates.passed(event.member, event.seq, event.kind, event.payload)
        except Refused as refused:
            quarantine(writes, event, str(refused), applied)
            continue
        # An undo that says the grade it left is an edit of its pair, decided as every copy decides.
        edit = payload if isinstance(payload, LabelPayload) else getattr(payload, "edit", None)
        if isinstance(edit, LabelPayload):
            run.append((event, edit))
            continue
        apply_labels(writes, run, applied)  # what came before it first
        run = []
        apply(writes, event, payload, applied)
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
        quarantined=applied.quarantined,
    )


def _shareable_unstamped(db: Database, link: Link) -> int:
    """Local events a team shares that no sync has given an identity yet (made since the last one)."""
    con = db.cursor()
    rows = local.unshared_events(con, link.base_event)
    who = sharer(con, link)
    return sum(outgoing(con, row, who, {}) is not None for row in rows)


def status(db: Database) -> TeamStatus:
    """The team as this copy knows it, from the project file alone."""
    link = team_link(db)
    con = db.cursor()
    return TeamStatus(
        member=link.member,
        coordinator=link.coordinator,
        conninfo=shown_conninfo(link.conninfo),
        last_sync=link.last_sync,
        last_attempt=link.last_attempt,
        outcome=link.last_outcome,
        last_error=None if link.last_outcome == "synced" else link.last_error,
        waiting=local.waiting_count(con, link.member) + _shareable_unstamped(db, link),
        shared=local.shared_counts(con),
        quarantined=[
            QuarantinedEvent(member=q.member, seq=q.seq, kind=q.kind, reason=q.reason, found_at=q.found_at)
            for q in local.quarantined(con)
        ],
    )


def server_quarantine(db: Database) -> list[QuarantineReport]:
    """Every quarantine report on the team's server: what each copy's gates refused (the
    coordinator's view of the whole team)."""
    link = team_link(db)
    with server.connected(link.conninfo, reuse=True) as con:
        if (server.schema_version(con) or 0) < LATEST_SERVER_VERSION:
            return []  # no copy can have reported on a server without the quarantine
        reports = server_events.quarantine_reports(con)
    return [
        QuarantineReport(reporter=r.reporter, member=r.member, seq=r.seq, reason=r.reason, found_at=r.found_at)
        for r in reports
    ]
