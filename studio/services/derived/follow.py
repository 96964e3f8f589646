"""The one follow mechanism: after a write changed some inputs (a label set's grades, its item
grades, a bank's items), every derived label set they reach is brought, in dependency order and
inside the writer's transaction, to exactly what a fresh derivation from its sources gives.

An ensemble follows an edit of some pairs pair by pair (its labels are combined pair by pair, the
same way as the whole set); every other change, and every other kind, derives the whole set
afresh and writes only the labels that differ.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from studio.domain.errors import UsageError
from studio.services.derived.registry import Derivation, Input, derivations, labels_of, reached
from studio.services.evaluation.engine import EvaluationEngine
from studio.store import Connection, new_batch
from studio.store import ensembles as ensemble_store
from studio.store import labels as label_store
from studio.store.derivations import EnsembleRecord

Pair = tuple[str, str]
# What changed: each input with the pairs it changed, or None when it changed as a whole.
Changes = Mapping[Input, frozenset[Pair] | None]


@dataclass(frozen=True)
class Followed:
    """What a change did to the derived sets: those derived again (`followed`), those of them whose
    labels changed, and those that cannot be derived from their sources as they are now (each with
    the reason), which keep their last labels."""

    followed: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    blocked: dict[str, str] = field(default_factory=dict)

    def warnings(self) -> list[str]:
        return [
            f"{name} cannot follow its sources now and keeps its last labels: {why}"
            for name, why in self.blocked.items()
        ]


def follow(engine: EvaluationEngine, tx: Connection, changes: Changes) -> Followed:
    """Bring the derived sets `changes` reach up to date inside `tx` (the engine's cached leaderboards
    of every set followed are forgotten). A set that cannot be derived now never refuses the change
    that reached it: the change is the user's, the derived set says why it lags (`studio check`)."""
    pending: dict[Input, frozenset[Pair] | None] = dict(changes)
    followed = Followed()
    for derivation in reached(derivations(tx), changes):
        touched = [pending[source] for source in derivation.inputs if source in pending]
        if not touched:
            continue
        engine.forget_labels(derivation.name)
        try:
            moved = _follow_one(engine, tx, derivation, touched)
        except UsageError as error:
            followed.blocked[derivation.name] = f"{derivation.describe()}: {error}"
            continue
        followed.followed.append(derivation.name)
        if moved is None or moved:
            output = labels_of(derivation.name)
            earlier = pending.get(output, frozenset())
            pending[output] = None if moved is None or earlier is None else earlier | moved
            followed.changed.append(derivation.name)
    return followed


def _follow_one(
    engine: EvaluationEngine, tx: Connection, derivation: Derivation, touched: list[frozenset[Pair] | None]
) -> frozenset[Pair] | None:
    """The pairs whose label changed (none: empty), or None when the whole set may have."""
    record = derivation.record
    edited = [pairs for pairs in touched if pairs is not None]
    if isinstance(record, EnsembleRecord) and len(edited) == len(touched):
        return _follow_pairs(tx, record, frozenset().union(*edited))
    return None if rederive(engine, tx, derivation) else frozenset()


def rederive(engine: EvaluationEngine, tx: Connection, derivation: Derivation) -> int:
    """Derive the whole set afresh and write what differs, with its record; the events written."""
    # Imported here: every edit passes through this module (the write path), few edited sets
    # have followers, and the calibration and ensemble code would cost a screen's start.
    from studio.services.derived.fresh import fresh_labels

    fresh = fresh_labels(engine, derivation.record)
    set_id = label_store.label_set_id(tx, derivation.name)
    if fresh is None or set_id is None:
        return 0  # a source is gone: the set keeps its last labels
    events = label_store.write_exact_labels(
        tx, set_id, fresh.rows, source=fresh.source, batch=lambda: new_batch(tx, *fresh.batch)
    )
    fresh.record(tx, set_id)
    return events


def _follow_pairs(tx: Connection, record: EnsembleRecord, pairs: frozenset[Pair]) -> frozenset[Pair]:
    from studio.services.derived.fresh import fresh_pair  # imported here, as in `rederive`
    from studio.services.ensembles.build import describe

    set_id = label_store.label_set_id(tx, record.name)
    if set_id is None:
        return frozenset()
    made_of = describe(list(record.members), record.how)
    batch: int | None = None
    moved = set()
    for qid, docid in sorted(pairs):
        grade, spread = fresh_pair(tx, record, qid, docid)
        ensemble_store.set_spread(tx, set_id, qid, docid, spread)
        if label_store.current_grade(tx, set_id, qid, docid) == grade:
            continue
        batch = batch if batch is not None else new_batch(tx, "ensemble", made_of)
        label_store.append_label_event(tx, set_id, qid, docid, grade, origin="derived", source=made_of, batch_id=batch)
        moved.add((qid, docid))
    return frozenset(moved)
