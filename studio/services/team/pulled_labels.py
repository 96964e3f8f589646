"""Others' label edits applied as one bulk write: a run of them in one transaction, the grades
they replace known from one query, then the one write path told what changed (`LabelWrites.written`:
the cached leaderboards forgotten, the derived sets made from those sets derived afresh).

One edit at a time cost a transaction, a read of its pair and an insert each (about 20 ms); a
member pulling thousands of the team's edits at once pays that once per run instead.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from studio.services.team.sharing import Applied
from studio.services.writes.label_writes import LabelWrites
from studio.store import Connection, new_batch
from studio.store import labels as label_store
from studio.store.team import local
from studio.store.team.local import PairStanding, PulledLabel, Shared, Standing
from studio.store.team.server import Incoming


def apply_labels(writes: LabelWrites, events: Sequence[Incoming], applied: Applied) -> None:
    """Apply a run of pulled label edits; each identity recorded in the same transaction."""
    if not events:
        return
    engine = writes.engine
    derived = engine.derived_sets()
    payloads = [json.loads(event.payload) for event in events]
    touched: set[str] = set()
    with engine.lock, engine.db.transaction() as tx:
        batch = new_batch(tx, "team sync", None)
        standing = _standing(tx, payloads)
        kept: dict[str, list[tuple[int, PulledLabel]]] = {}
        for index, (event, payload) in enumerate(zip(events, payloads, strict=True)):
            qrels = str(payload["qrels"])
            if qrels in derived or qrels not in standing:
                applied.conflicts.append(f"{qrels}: {event.member}'s edit has no label set to go to here")
                continue
            row = _decided(event, payload, standing[qrels], applied)
            if row is not None:
                kept.setdefault(qrels, []).append((index, row))
        written: dict[int, int] = {}
        for qrels, rows in kept.items():
            set_id = label_store.label_set_id(tx, qrels)
            assert set_id is not None
            ids = local.append_pulled_labels(tx, set_id, [row for _, row in rows], batch)
            written.update({index: event_id for (index, _), event_id in zip(rows, ids, strict=True)})
            touched.add(qrels)
        identities = [_identity(e, p, written.get(i)) for i, (e, p) in enumerate(zip(events, payloads, strict=True))]
        local.add_shared(tx, identities, pushed=True)
    applied.count += len(events)
    if touched:
        writes.written(touched)


def _standing(tx: Connection, payloads: list[dict[str, Any]]) -> dict[str, PairStanding]:
    pairs: dict[str, list[tuple[str, str]]] = {}
    for payload in payloads:
        pairs.setdefault(str(payload["qrels"]), []).append((str(payload["qid"]), str(payload["docid"])))
    found: dict[str, PairStanding] = {}
    for qrels, wanted in pairs.items():
        set_id = label_store.label_set_id(tx, qrels)
        if set_id is not None:
            found[qrels] = local.pairs_standing(tx, set_id, wanted)
    return found


def _decided(event: Incoming, payload: dict[str, Any], standing: PairStanding, applied: Applied) -> PulledLabel | None:
    """The edit to write, None when a crossing edit made later stands (the conflict noted either
    way); `standing` is updated with what is written. Two edits cross when the one standing here
    is not the one the sender saw (its parent): the one made later stands, on every copy alike."""
    pair = (str(payload["qid"]), str(payload["docid"]))
    grade = payload["grade"]
    made_at = str(payload["made_at"])
    parent = None if payload.get("parent") is None else (str(payload["parent"][0]), int(payload["parent"][1]))
    now = standing.get(pair)
    if now is not None and now.identity != parent and now.grade != grade:
        where = f"{payload['qrels']} {pair[0]} {pair[1]}"
        other = now.identity[0] if now.identity is not None else "the base"
        if (now.made_at, other) > (made_at, event.member):
            applied.conflicts.append(f"{where}: {other}'s {now.grade} stands over {event.member}'s {grade}")
            return None
        applied.conflicts.append(f"{where}: {event.member}'s {grade} stands over {other}'s {now.grade}")
    standing[pair] = Standing(grade, made_at, (event.member, event.seq))
    return PulledLabel(pair[0], pair[1], grade, None if now is None else now.grade, event.member, payload.get("note"))


def _identity(event: Incoming, payload: dict[str, Any], label_event: int | None) -> Shared:
    return Shared(event.member, event.seq, event.kind, event.payload, label_event, str(payload["made_at"]))
