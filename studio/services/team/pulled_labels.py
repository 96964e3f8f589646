"""Others' label edits applied as one bulk write: a run of them in one transaction, the grades
they replace known from one query, then the one write path told what changed (`LabelWrites.written`:
the cached leaderboards forgotten, the derived sets made from those sets derived afresh).

One edit at a time cost a transaction, a read of its pair and an insert each (about 20 ms); a
member pulling thousands of the team's edits at once pays that once per run instead.
"""

from __future__ import annotations

from collections.abc import Sequence

from studio.domain.team_events import LabelPayload
from studio.services.team.sharing import Applied
from studio.services.writes.label_writes import LabelWrites
from studio.store import Connection, new_batch
from studio.store import labels as label_store
from studio.store.team import local
from studio.store.team.local import PairStanding, PulledLabel, Shared, Standing
from studio.store.team.server_events import Incoming

PulledEdit = tuple[Incoming, LabelPayload]


def apply_labels(writes: LabelWrites, edits: Sequence[PulledEdit], applied: Applied) -> None:
    """Apply a run of pulled label edits that passed the gates; each identity recorded in the
    same transaction."""
    if not edits:
        return
    engine = writes.engine
    touched: set[str] = set()
    with engine.lock, engine.db.transaction() as tx:
        batch = new_batch(tx, "team sync", None)
        standing = _standing(tx, [payload for _, payload in edits])
        kept: dict[str, list[tuple[int, PulledLabel]]] = {}
        for index, (event, payload) in enumerate(edits):
            row = _decided(event, payload, standing[payload.qrels], applied)
            if row is not None:
                kept.setdefault(payload.qrels, []).append((index, row))
        written: dict[int, int] = {}
        for qrels, rows in kept.items():
            set_id = label_store.label_set_id(tx, qrels)
            assert set_id is not None  # the gates saw it
            ids = local.append_pulled_labels(tx, set_id, [row for _, row in rows], batch)
            written.update({index: event_id for (index, _), event_id in zip(rows, ids, strict=True)})
            touched.add(qrels)
        identities = [
            Shared(e.member, e.seq, e.kind, e.payload, written.get(i), p.made_at) for i, (e, p) in enumerate(edits)
        ]
        local.add_shared(tx, identities, pushed=True)
    applied.count += len(edits)
    if touched:
        writes.written(touched)


def _standing(tx: Connection, payloads: list[LabelPayload]) -> dict[str, PairStanding]:
    pairs: dict[str, list[tuple[str, str]]] = {}
    for payload in payloads:
        pairs.setdefault(payload.qrels, []).append((payload.qid, payload.docid))
    found: dict[str, PairStanding] = {}
    for qrels, wanted in pairs.items():
        set_id = label_store.label_set_id(tx, qrels)
        assert set_id is not None  # the gates saw it
        found[qrels] = local.pairs_standing(tx, set_id, wanted)
    return found


def _decided(event: Incoming, payload: LabelPayload, standing: PairStanding, applied: Applied) -> PulledLabel | None:
    """The edit to write, None when a crossing edit made later stands (a conflict, noted when the
    grades differ); `standing` is updated with what stands. Two edits cross when the one standing
    here is not the one the sender saw (its parent); between two that cross, the one made later
    (by its member's clock, then the member's name) stands — whatever their grades and whichever
    arrives first, so every copy ends at the same edit (a last-writer-wins register)."""
    pair = (payload.qid, payload.docid)
    grade, made_at = payload.grade, payload.made_at
    now = standing.get(pair)
    if now is not None and now.identity != payload.parent:
        where = f"{payload.qrels} {pair[0]} {pair[1]}"
        other = now.identity[0] if now.identity is not None else "the base"
        if (now.made_at, other) > (made_at, event.member):
            if now.grade != grade:
                applied.conflicts.append(f"{where}: {other}'s {now.grade} stands over {event.member}'s {grade}")
            return None
        if now.grade != grade:
            applied.conflicts.append(f"{where}: {event.member}'s {grade} stands over {other}'s {now.grade}")
    standing[pair] = Standing(grade, made_at, (event.member, event.seq))
    return PulledLabel(pair[0], pair[1], grade, None if now is None else now.grade, event.member, payload.note)
