"""Making a derived label set (or making it again with `replace`): checked, derived from its
sources, written in one transaction with how it was made, and followed by the sets made from it."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from studio.domain.errors import UsageError
from studio.domain.label_set_results import BankScoreMade, CalibrationMade, EnsembleMade
from studio.domain.models import LabelSetKind
from studio.domain.names import check_name
from studio.domain.specs import CalibrationSpec
from studio.services.calibration.calibrate import check_calibration
from studio.services.derived.follow import follow
from studio.services.derived.fresh import FreshLabels, fresh_bank_score, fresh_calibration, fresh_ensemble
from studio.services.derived.registry import labels_of
from studio.services.ensembles.build import checked_members
from studio.services.evaluation.engine import EvaluationEngine
from studio.services.rubric.derive import check_bank_score
from studio.store import ensembles as ensemble_store
from studio.store import labels as label_store
from studio.store import new_batch
from studio.store.derivations import BankScoreRecord, CalibrationRecord, DerivationRecord, EnsembleRecord
from studio.store.new_names import refuse_look_alike

Record = TypeVar("Record", bound=DerivationRecord)
Figures = TypeVar("Figures")


def make_ensemble(
    engine: EvaluationEngine, members: list[str], how: str, name: str, *, replace: bool = False
) -> EnsembleMade:
    """Label set `name`: each pair's `how` (majority, mean, median) of the grades the members give
    it, with the spread of those grades."""
    name = check_name(name, "label set")
    refuse_look_alike(engine.db.cursor(), "label set", name)
    con = engine.db.cursor()
    members = checked_members(con, members, how, name)
    if label_store.label_set_id(con, name) is not None:
        if not replace:
            raise UsageError(f"label set {name!r} already exists (use --replace)")
        if ensemble_store.ensemble(con, name) is None:
            raise UsageError(f"label set {name!r} already exists and is not an ensemble")
    events, figures = _make(engine, EnsembleRecord(name, tuple(members), how), fresh_ensemble)
    return {
        "label_set": name,
        "how": how,
        "members": members,
        "topics": figures["topics"],
        "labels": figures["labels"],
        "events": events,
        "pairs_members_disagree": figures["pairs_members_disagree"],
    }


def make_calibration(engine: EvaluationEngine, spec: CalibrationSpec) -> CalibrationMade:
    """Label set `spec.name`: `spec.qrels` mapped to `spec.gold`'s grades, with its cross-fitted figures."""
    name = check_name(spec.name, "label set")
    refuse_look_alike(engine.db.cursor(), "label set", name)
    check_calibration(engine.db.cursor(), spec.qrels, spec.gold, name, spec.method, replace=spec.replace)
    record = CalibrationRecord(name, spec.qrels, spec.gold, spec.method, spec.folds, spec.seed, spec.measure)
    _, figures = _make(engine, record, fresh_calibration)
    return figures


def make_bank_score(
    engine: EvaluationEngine, source: str, bank: str, score: str, name: str, *, min_grade: float, replace: bool = False
) -> BankScoreMade:
    """Label set `name`: `score` of the item grades of `source`'s newest rubric judge run with `bank`."""
    name = check_name(name, "label set")
    refuse_look_alike(engine.db.cursor(), "label set", name)
    check_bank_score(engine.db.cursor(), score, name, replace=replace)
    events, figures = _make(engine, BankScoreRecord(name, source, bank, score, min_grade), fresh_bank_score)
    return {"label_set": name, **figures, "events": events}


def _make(
    engine: EvaluationEngine,
    record: Record,
    derive: Callable[[EvaluationEngine, Record], FreshLabels[Figures] | None],
) -> tuple[int, Figures]:
    """Write what `derive` makes of `record` now, in one transaction: the label events written,
    and the figures the kind of set reports."""
    with engine.lock:  # the cached leaderboards it reads and forgets are shared with other threads
        fresh = derive(engine, record)
        if fresh is None:
            raise UsageError(f"{record.name} is made from a label set that does not exist (see `studio list qrels`)")
        with engine.db.transaction() as tx:
            existing = label_store.label_set_id(tx, record.name)
            set_id = (
                existing
                if existing is not None
                else label_store.create_label_set(tx, record.name, LabelSetKind.DERIVED.value, fresh.described)
            )
            events = label_store.write_exact_labels(
                tx, set_id, fresh.rows, source=fresh.source, batch=lambda: new_batch(tx, *fresh.batch)
            )
            fresh.record(tx, set_id)
            # Made again, it moves the sets made from it in turn.
            remade = existing is not None and events > 0
            followers = follow(engine, tx, {labels_of(record.name): None}).changed if remade else []
        for name in [record.name, *followers]:
            engine.forget_labels(name)
        engine.forget_followers()  # its sources are followed from now on
    return events, fresh.figures
