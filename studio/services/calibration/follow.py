"""Derived label sets follow their sources: after a source's grades change (a judge run, an import,
an edit), every label set made from it is computed again, bank scores and calibrations alike."""

from __future__ import annotations

from studio.services.calibration.calibrate import refresh_calibrations
from studio.services.evaluation.engine import EvaluationEngine
from studio.services.rubric.derive import refresh_derived as refresh_bank_scores
from studio.store import Database


def refresh_derived(db: Database, source: str, engine: EvaluationEngine | None = None) -> list[str]:
    """Recompute the label sets derived from `source`, and the calibrations of those in turn; their names."""
    engine = engine if engine is not None else EvaluationEngine(db)
    refreshed = refresh_bank_scores(db, source)
    for name in refreshed:
        engine.forget_labels(name)
    for name in [source, *refreshed]:
        refreshed += refresh_calibrations(engine, name)
    return refreshed
