"""What a team shares of the project's events, and how another member's event is applied.

Shared, after the published base: an assessor's grade of an audit pair (and its taking back),
the coordinator's adjudication, a person's label edit, and the undo of one of those. Each is
applied through the one write path as the member who made it, so that every copy holds every
assessor's grade under their name and derives the gold grade from all of them by the audit's
several-assessors rules (mean until adjudicated), whatever the order the events arrive in.

Not shared (counted as `local_only` by a sync): imports, judge runs, derived sets and grades a
member recorded under another assessor's name; the coordinator publishes base data.

A label edit of a one-grade label set (not an audit) that crosses another member's edit of the
same pair is a conflict: the edit made later stands on every copy (the same choice everywhere,
so the copies agree), and the sync names the conflict.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from studio.domain.errors import StudioError
from studio.domain.rows import StoredEvent
from studio.domain.team_events import AdjudicationPayload, GradePayload, Payload, UndoPayload
from studio.services.audit import assessments
from studio.services.writes.label_writes import LabelWrites
from studio.store import Connection
from studio.store.team import local
from studio.store.team.local import Quarantined, Shared
from studio.store.team.server_events import Incoming


@dataclass(frozen=True)
class Sharer:
    """Who shares, and what a team never shares of theirs."""

    member: str
    coordinator: str
    owned: frozenset[str]  # owned label sets: a label event of one goes no further than its own path


def outgoing(
    con: Connection, row: dict[str, Any], sharer: Sharer, pending: dict[int, tuple[str, int]]
) -> tuple[str, dict[str, Any]] | None:
    """The kind and payload of an unshared local event, None when a team does not share it
    (`pending`: the identities given in this round, by local label event). An owned set's events
    are shared only as what their owner shares (an audit's assessments); a campaign's grades and
    a derived set's labels stay on the copy."""
    member, coordinator = sharer.member, sharer.coordinator
    pair = {"qid": row["qid"], "docid": row["docid"], "made_at": row["made_at"]}
    if row["assessment"] == assessments.GRADE:
        if row["assessor"] != member:
            return None  # recorded here for someone else: the server takes events under the role's own name only
        return "grade", {"audit": row["audit"], **pair, "grade": row["assessor_grade"], "seconds": row["seconds"]}
    if row["assessment"] == assessments.ADJUDICATION:
        if member != coordinator:
            return None
        return "adjudication", {"audit": row["audit"], **pair, "grade": row["assessor_grade"]}
    if row["label_set"] in sharer.owned:
        return None
    if row["origin"] == "undo" and row["undoes"] is not None:
        target = pending.get(int(row["undoes"])) or local.identity_of(con, int(row["undoes"]))
        if target is not None:
            # With the grade it left the pair at: a copy where another edit crossed the undone one
            # decides between them as between two edits, as every copy does.
            edit = {"qrels": row["label_set"], "qid": row["qid"], "docid": row["docid"], "grade": row["grade"]}
            return "undo", {"member": target[0], "seq": target[1], "made_at": row["made_at"], **edit}
    # The edit's parent: the shared event that set the pair when it was made (None: the base's or
    # an unshared one); another member's edit with another parent crossed it.
    parent = row["parent_event"]
    seen = None if parent is None else pending.get(int(parent)) or local.identity_of(con, int(parent))
    label = {"qrels": row["label_set"], **pair, "grade": row["grade"], "parent": seen, "note": row["note"]}
    return "label", label


@dataclass
class Applied:
    """What applying pulled events did."""

    me: str
    count: int = 0
    conflicts: list[str] = field(default_factory=list)
    quarantined: list[str] = field(default_factory=list)  # "member #seq (kind): reason", this sync's


def quarantine(writes: LabelWrites, event: Incoming, reason: str, applied: Applied) -> None:
    """Keep a refused event aside (never applied; its identity taken, so it is pulled once)."""
    found_at = datetime.now().strftime("%Y-%m-%d %H:%M:%S.%f")
    with writes.engine.db.transaction() as tx:
        local.quarantine(tx, [Quarantined(event.member, event.seq, event.kind, event.payload, reason, found_at)])
    applied.quarantined.append(f"{event.member} #{event.seq} ({event.kind}): {reason}")


def apply(writes: LabelWrites, event: Incoming, payload: Payload, applied: Applied) -> None:
    """Apply one pulled event that passed the gates, through the one write path, its global
    identity recorded in the same transaction (an event is applied once, whatever a crash or a
    retry does). A refusal the write path finds that the gates did not quarantines it."""

    def record(tx: Connection, written: StoredEvent) -> None:
        shared = Shared(event.member, event.seq, event.kind, event.payload, int(written["event"]), payload.made_at)
        local.add_shared(tx, [shared], pushed=True)

    try:
        done = _apply_kind(writes, event, payload, record, applied)
    except StudioError as error:
        quarantine(writes, event, f"the write path refused it: {error}", applied)
        return
    if not done:  # nothing to write: the identity alone, so it is not pulled again
        with writes.engine.db.transaction() as tx:
            local.add_shared(
                tx, [Shared(event.member, event.seq, event.kind, event.payload, None, payload.made_at)], pushed=True
            )
    applied.count += 1


def _apply_kind(
    writes: LabelWrites,
    event: Incoming,
    payload: Payload,
    record: assessments.AlsoWrite,
    applied: Applied,
) -> bool:
    """True: written with `record`; False: nothing to write. Label edits come in runs through
    `pulled_labels.apply_labels`."""
    who = event.member
    if isinstance(payload, GradePayload):
        assessments.record_grade(
            writes, payload.audit, payload.qid, payload.docid, who, payload.grade, seconds=payload.seconds, also=record
        )
        return True
    if isinstance(payload, AdjudicationPayload):
        assessments.adjudicate(
            writes, payload.audit, payload.qid, payload.docid, payload.grade, person=who, also=record
        )
        return True
    assert isinstance(payload, UndoPayload), "label edits are applied in runs"
    target = local.label_event_of(writes.engine.db.cursor(), payload.member, payload.seq)
    if target is None or writes.revert(target, person=who, also=record) is None:
        applied.conflicts.append(f"{who}'s undo of {payload.member} #{payload.seq}: nothing of it in effect here")
        return False
    return True
