"""A derived label set made afresh from its sources as they are now: its labels, where its events
come from, and the record of how it was made (with the figures that go with it)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from studio.domain.label_set_results import BankScoreFigures, CalibrationMade, EnsembleFigures
from studio.domain.models import QrelsRow
from studio.services.calibration.calibrate import calibration_of
from studio.services.ensembles.build import combined_labels, combined_pair, describe
from studio.services.evaluation.engine import EvaluationEngine
from studio.services.rubric.derive import bank_score_rows
from studio.store import Connection
from studio.store import derivations as derivation_store
from studio.store import ensembles as ensemble_store
from studio.store import labels as label_store
from studio.store.derivations import BankScoreRecord, CalibrationRecord, DerivationRecord, EnsembleRecord

Pair = tuple[str, str]
Figures = TypeVar("Figures", covariant=True)  # what the kind of derived set reports


@dataclass(frozen=True)
class FreshLabels(Generic[Figures]):
    """What a derivation gives now. `source` names the events' origin, `batch` their batch
    (command, source), `described` the label set's source column when it is created; `record`
    stores how it was made; `figures` is what the command that makes it reports."""

    rows: list[QrelsRow]
    source: str
    batch: tuple[str, str]
    described: str
    record: Callable[[Connection, int], None]
    figures: Figures


def fresh_labels(engine: EvaluationEngine, record: DerivationRecord) -> FreshLabels[object] | None:
    """The labels `record` gives from its sources now; None when a source label set is gone (the
    derived set then keeps its last labels)."""
    if isinstance(record, EnsembleRecord):
        return fresh_ensemble(engine, record)
    if isinstance(record, CalibrationRecord):
        return fresh_calibration(engine, record)
    return fresh_bank_score(engine, record)


def fresh_calibration(engine: EvaluationEngine, record: CalibrationRecord) -> FreshLabels[CalibrationMade] | None:
    """A calibrated set as its LLM and gold label sets make it now."""
    con = engine.db.cursor()
    if any(label_store.label_set_id(con, name) is None for name in (record.source, record.gold)):
        return None
    made = calibration_of(
        engine,
        record.source,
        record.gold,
        method=record.method,
        folds=record.folds,
        seed=record.seed,
        measure=record.measure,
    )
    return FreshLabels(
        made.rows,
        source=f"{record.method} of {record.source}",
        batch=("calibrate", f"{record.method} of {record.source} to {record.gold}"),
        described=f"calibrate:{record.method}({record.source} -> {record.gold}, folds={made.folds})",
        record=made.record,
        figures=made.summary(record.name),
    )


def fresh_ensemble(engine: EvaluationEngine, record: EnsembleRecord) -> FreshLabels[EnsembleFigures] | None:
    """An ensemble as its members grade now."""
    con = engine.db.cursor()
    members = list(record.members)
    combined = combined_labels(con, members, record.how)
    if combined is None:
        return None
    rows, spreads = combined

    def remember(tx: Connection, set_id: int) -> None:
        ensemble_store.record_ensemble(tx, set_id, members, record.how)
        ensemble_store.replace_spreads(tx, set_id, spreads)

    made_of = describe(members, record.how)
    disagreeing = sum(1 for s in spreads.values() if s.high > s.low)
    return FreshLabels(
        rows,
        source=made_of,
        batch=("ensemble", made_of),
        described=f"ensemble: {made_of}",
        record=remember,
        figures={
            "how": record.how,
            "members": members,
            "topics": len({r.qid for r in rows}),
            "labels": len(rows),
            "pairs_members_disagree": disagreeing,
        },
    )


def fresh_bank_score(engine: EvaluationEngine, record: BankScoreRecord) -> FreshLabels[BankScoreFigures] | None:
    """A bank-score set as its rubric judge's item grades make it now."""
    if label_store.label_set_id(engine.db.cursor(), record.source) is None:
        return None
    rows, topics = bank_score_rows(engine.db, record.source, record.bank, record.score, record.min_grade)
    return FreshLabels(
        rows,
        source=f"{record.score} of {record.source}",
        batch=("derive", f"{record.score} of {record.source} with {record.bank}"),
        described=f"{record.score}({record.source}, {record.bank}, min_grade={record.min_grade:g})",
        record=lambda tx, set_id: derivation_store.record_derivation(
            tx, set_id, record.source, record.bank, record.score, record.min_grade
        ),
        figures={
            "score": record.score,
            "source": record.source,
            "bank": record.bank,
            "min_grade": record.min_grade,
            "topics": topics,
            "labels": len(rows),
        },
    )


def fresh_pair(
    con: Connection, record: EnsembleRecord, qid: str, docid: str
) -> tuple[float | None, ensemble_store.SpreadRow | None]:
    """One pair of an ensemble as its members grade it now (None, None: no member labels it)."""
    return combined_pair(con, list(record.members), record.how, qid, docid)
