"""Changing labels (audited edits and their undo) and making label sets from others."""

from __future__ import annotations

from typing import TYPE_CHECKING

from studio.domain.names import check_id
from studio.domain.numbers import check_grade
from studio.services.facade.base import ProjectBase
from studio.services.facade.lazy import lazy_function

if TYPE_CHECKING:
    from collections.abc import Sequence

    from studio.domain.label_set_results import BankScoreMade, CalibratedSet, CalibrationMade, EnsembleMade
    from studio.domain.rows import LabelEvent
    from studio.domain.specs import CalibrationSpec
    from studio.services.calibration.calibrate import calibrated_sets
    from studio.services.derived.follow import Followed
    from studio.services.derived.make import make_bank_score, make_calibration, make_ensemble
    from studio.services.writes.owners import refuse_owned
else:
    calibrated_sets = lazy_function("studio.services.calibration.calibrate", "calibrated_sets")
    make_bank_score = lazy_function("studio.services.derived.make", "make_bank_score")
    make_calibration = lazy_function("studio.services.derived.make", "make_calibration")
    make_ensemble = lazy_function("studio.services.derived.make", "make_ensemble")
    refuse_owned = lazy_function("studio.services.writes.owners", "refuse_owned")


class LabelsMixin(ProjectBase):
    """Audited edits and derived label sets."""

    def set_label(
        self,
        qrels: str,
        qid: str,
        docid: str,
        grade: float | None,
        note: str | None = None,
        *,
        person: str | None = None,
    ) -> LabelEvent:
        """One audited label edit (None removes the label); leaderboards follow incrementally, and
        so do the derived label sets made from `qrels`. A derived set itself is not edited."""
        check_id(qid, "qid")
        check_id(docid, "docid")
        if grade is not None:
            check_grade(grade)
        if qrels in self.engine.owned_sets():  # a derived set, or an audit's gold set: say which
            refuse_owned(self.db.cursor(), [qrels], "label")
        return self.writes.edit(qrels, qid, docid, grade, note=note, person=person)

    def undo(self, qrels: str | None = None) -> LabelEvent | None:
        """Revert the newest audited edit not yet undone; None when there is nothing to undo."""
        return self.writes.undo(qrels)

    def label_history(self, qrels: str | None = None, limit: int = 20) -> list[LabelEvent]:
        """Person edits and undos (of one label set, or of all), newest first."""
        return self.engine.history(qrels, limit)

    def ensemble(self, members: Sequence[str], how: str, name: str, *, replace: bool = False) -> EnsembleMade:
        """A derived label set combining `members` pair by pair (majority, mean or median), with
        each pair's spread; it follows its members."""
        return make_ensemble(self.engine, list(members), how, name, replace=replace)

    def calibrate(self, spec: CalibrationSpec) -> CalibrationMade:
        """Label set `spec.name`: the LLM set mapped to the gold set's grades (isotonic or ordinal)
        with κ and τ cross-fitted by topic beside the raw set's; it follows both sources."""
        return make_calibration(self.engine, spec)

    def calibrations(self) -> list[CalibratedSet]:
        """Every calibrated label set: sources, method, fitted map, cross-fitted figures, curve."""
        return calibrated_sets(self.db)

    def derive(
        self, source: str, bank: str, score: str, name: str, *, min_grade: float = 4.0, replace: bool = False
    ) -> BankScoreMade:
        """Label set `name`: `score` (exam-binary, nugget-all, …) of the item grades of `source`'s newest
        rubric judge run with `bank`'s items; it follows both."""
        return make_bank_score(self.engine, source, bank, score, name, min_grade=min_grade, replace=replace)

    def refresh_derived(self) -> Followed:
        """Derive every derived label set afresh from its sources (after a judge run was killed, or
        another program wrote to the file): those whose labels changed, and those that cannot be."""
        return self.writes.refresh_all()
