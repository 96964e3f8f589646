"""The gates an event pulled from the team's server passes before it touches the project: the
same a local command passes.

First its payload (`studio.domain.team_events.parse_payload`: schema, types, ids, grades, the
plausibility of its time), then what the project says of it, as `studio label`, the blind audit
and `studio undo` say it locally:

* a label edit goes to a label set this copy holds that takes a person's write: no derived set,
  no audit's gold set, no campaign's set (`owners.owned_by`);
* an assessor's grade goes to an audit this copy holds, to a pair of its sample, and, when the
  audit gives its pairs out, to a pair given to that member; a grade is on the assessors' scale;
* an adjudication is the coordinator's, of a sampled pair;
* an undo names an event this copy received (a member's events arrive in the order they were
  made, so one it has not received by now never will be).

An event that fails is refused with the reason (`Refused`); the team's sync quarantines it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from studio.domain.team_events import (
    AdjudicationPayload,
    GradePayload,
    LabelPayload,
    Payload,
    Refused,
    UndoPayload,
    parse_payload,
)
from studio.services.audit.samples import audit_pairs
from studio.services.writes.owners import owned_by
from studio.store import Connection
from studio.store import assessors as assessor_store
from studio.store import audits as audit_store
from studio.store import labels as label_store
from studio.store.team import local


@dataclass
class PulledGates:
    """The gates of one sync: what they read of the project is read once per audit or set."""

    con: Connection
    coordinator: str
    owned: frozenset[str]  # the label sets that take no person's write (`EvaluationEngine.owned_sets`)
    now: datetime = field(default_factory=datetime.now)
    _samples: dict[str, set[tuple[str, str]]] = field(default_factory=dict)
    _given: dict[tuple[str, str], set[tuple[str, str]] | None] = field(default_factory=dict)
    _owners: dict[str, str | None] = field(default_factory=dict)

    def passed(self, member: str, seq: int, kind: str, payload: str) -> Payload:
        """The event's typed payload when it passes every gate; `Refused` saying which it fails."""
        found = parse_payload(kind, payload, self.now)
        if isinstance(found, LabelPayload):
            self._label(found)
        elif isinstance(found, (GradePayload, AdjudicationPayload)):
            self._audit_pair(found, member)
        else:
            self._undo(found, member, seq)
        return found

    def _label(self, payload: LabelPayload) -> None:
        if payload.qrels not in self._owners:
            if label_store.label_set_id(self.con, payload.qrels) is None:
                self._owners[payload.qrels] = f"no label set named {payload.qrels!r} here"
            else:  # owned or not as a local edit finds it; only an owned one is asked why
                owned = payload.qrels in self.owned
                self._owners[payload.qrels] = owned_by(self.con, payload.qrels) if owned else None
        why = self._owners[payload.qrels]
        if why is not None:
            raise Refused(why)

    def _audit_pair(self, payload: GradePayload | AdjudicationPayload, member: str) -> None:
        audit = payload.audit
        if isinstance(payload, AdjudicationPayload) and member != self.coordinator:
            raise Refused(f"an adjudication is the coordinator's ({self.coordinator}), not {member}'s")
        if audit not in self._samples:
            found = audit_store.audit(self.con, audit)
            if found is None:
                raise Refused(f"no audit named {audit!r} here (this copy cannot apply it)")
            self._samples[audit] = {(q, d) for q, d, _ in audit_pairs(self.con, audit)}
        pair = (payload.qid, payload.docid)
        if pair not in self._samples[audit]:
            raise Refused(f"({pair[0]}, {pair[1]}) is not in audit {audit!r}'s sample")
        if isinstance(payload, GradePayload):
            given = self._given_to(audit, member)
            if given is not None and pair not in given:
                raise Refused(f"({pair[0]}, {pair[1]}) is not among the pairs audit {audit!r} gives {member}")

    def _given_to(self, audit: str, member: str) -> set[tuple[str, str]] | None:
        """The pairs the audit gives `member` (None: it gives pairs to nobody; anyone grades any)."""
        key = (audit, member)
        if key not in self._given:
            found = audit_store.audit(self.con, audit)
            assert found is not None
            rows = assessor_store.assignments(self.con, found["audit_id"])
            self._given[key] = {(q, d) for q, d, a in rows if a == member} if rows else None
        return self._given[key]

    def _undo(self, payload: UndoPayload, member: str, seq: int) -> None:
        if payload.member == member and payload.seq >= seq:
            raise Refused(f"undoes {payload.member} #{payload.seq}, which is not an earlier event of theirs")
        if not local.holds(self.con, payload.member, payload.seq):
            raise Refused(f"undoes {payload.member} #{payload.seq}, which this copy never received")
        target = local.label_event_of(self.con, payload.member, payload.seq)
        name = label_store.label_set_of_event(self.con, target) if target is not None else None
        if name is not None and name in self.owned:
            why = owned_by(self.con, name) or f"{name} is owned"
            raise Refused(f"undoes {payload.member} #{payload.seq} around its owner: {why}")
        if payload.edit is not None:
            self._label(payload.edit)


__all__ = ["PulledGates", "Refused"]
