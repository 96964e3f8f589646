"""Generated answers as systems (Arabzadeh & Clarke, "A Comparison of Methods for Evaluating
Generative IR"): verdict files in, the answers' leaderboard, significance between systems, τ between
methods, the tournament, the validation of a method on passages, answers on the runs' scale, and one
verdict at a time to keep or override (what an Answers screen calls)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from studio.domain.choices import DEFAULT_VERDICT_SCALE, AnswerGain, AnswerMethod
from studio.domain.models import ANSWER_PREFIX
from studio.domain.significance import DEFAULT_PLAN
from studio.services.facade.base import PathLike, ProjectBase
from studio.services.facade.lazy import lazy_function, lazy_module

if TYPE_CHECKING:
    from studio.domain.answer_results import (
        AnswerCard,
        AnswerKey,
        AnswerScoreRow,
        MethodAgreement,
        RunsScale,
        Tournament,
        Validation,
    )
    from studio.domain.import_report import ImportReport
    from studio.domain.rows import LabelEvent
    from studio.domain.significance import Significance, SignificancePlan
    from studio.judges.embedder import TextEmbedder
    from studio.services.answers import leaderboard, tournament, validation, verdicts
    from studio.services.answers.sets import answer_set
    from studio.services.answers.verdict_import import import_answer_labels
    from studio.services.writes.owners import refuse_owned
    from studio.store import answers as answer_store
else:  # imported when first used (see services/facade/lazy.py)
    leaderboard = lazy_module("studio.services.answers.leaderboard")
    tournament = lazy_module("studio.services.answers.tournament")
    validation = lazy_module("studio.services.answers.validation")
    verdicts = lazy_module("studio.services.answers.verdicts")
    answer_set = lazy_function("studio.services.answers.sets", "answer_set")
    import_answer_labels = lazy_function("studio.services.answers.verdict_import", "import_answer_labels")
    refuse_owned = lazy_function("studio.services.writes.owners", "refuse_owned")
    answer_store = lazy_module("studio.store.answers")


class AnswersMixin(ProjectBase):
    """Generative systems judged by their answers."""

    def import_answer_labels(
        self,
        file: PathLike,
        *,
        system: str,
        method: AnswerMethod | str,
        name: str,
        model: str | None = None,
        scale: int = DEFAULT_VERDICT_SCALE,
        replace: bool = False,
    ) -> ImportReport:
        """One system's verdict file (binary, graded, subtopics or preferences, as the Gen-IR
        comparison's release keeps them) into label set `name`; refused whole on a bad line."""
        report = import_answer_labels(
            self.db,
            Path(file),
            system=system,
            method=AnswerMethod(method),
            name=name,
            model=model,
            scale=scale,
            replace=replace,
        )
        return self._followed(report, self.writes.written(report.names))

    def answer_sets(self) -> list[str]:
        """The label sets holding verdicts on (or grades of) generated answers."""
        return answer_store.answer_label_sets(self.db.cursor())

    def answer_scores(
        self, label_sets: list[str], *, gain: AnswerGain | str = AnswerGain.exp, resamples: int = 1000, seed: int = 0
    ) -> list[AnswerScoreRow]:
        """One row per system and label set: score, 95% percentile bootstrap interval over topics."""
        return leaderboard.answer_leaderboard(
            self.db.cursor(), label_sets, AnswerGain(gain), resamples=resamples, seed=seed
        )

    def answer_significance(
        self, label_set: str, *, gain: AnswerGain | str = AnswerGain.exp, plan: SignificancePlan = DEFAULT_PLAN
    ) -> Significance:
        """Every pair of systems tested as `studio significance` tests runs (run_a/run_b are systems)."""
        return leaderboard.answer_significance(self.db.cursor(), label_set, AnswerGain(gain), plan)

    def answer_agreement(self, a: str, b: str, *, gain: AnswerGain | str = AnswerGain.exp) -> MethodAgreement:
        """Kendall τ between two answers label sets' orders of the systems (topics both judge)."""
        return leaderboard.method_agreement(self.db.cursor(), a, b, AnswerGain(gain))

    def answer_tournament(self, label_set: str, *, resamples: int = 1000, seed: int = 0) -> Tournament:
        """Bradley–Terry and Elo ratings from a tournament between answers, with bootstrap intervals."""
        return tournament.tournament(self.db.cursor(), label_set, resamples=resamples, seed=seed)

    def validate(
        self, label_set: str, ref: str, *, relevant: float = 1.0, seed: int = 0, embedder: TextEmbedder | None = None
    ) -> Validation:
        """How `label_set`'s method orders `ref`'s Best, Acceptable and Unacceptable passages."""
        return validation.validate(self.db, label_set, ref, relevant=relevant, seed=seed, embedder=embedder)

    def answers_on_runs_scale(
        self, ref: str, *, measure: str = "nDCG@10", model: str | None = None, embedder: TextEmbedder | None = None
    ) -> RunsScale:
        """Runs' first non-target passages and systems' answers, each by similarity to the targets."""
        # Imported when asked: it reaches the embedding model.
        from studio.services.answers.runs_scale import runs_scale

        return runs_scale(self.engine, ref, measure=measure, embedder=embedder, model=model)

    # -- one verdict at a time (an Answers screen) ---------------------------------------------------

    def answer_keys(self, label_set: str) -> list[AnswerKey]:
        """Every (topic, system) the set holds a verdict on, in the order a screen steps through them."""
        return verdicts.answer_keys(self.db.cursor(), label_set)

    def answer_card(self, label_set: str, qid: str, system: str) -> AnswerCard:
        """The answer, its verdict, and the exemplar(s) or subtopics and raw answers behind it."""
        return verdicts.answer_card(self.db.cursor(), label_set, qid, system)

    def set_answer_verdict(
        self, label_set: str, qid: str, system: str, value: float, *, note: str | None = None, person: str | None = None
    ) -> LabelEvent:
        """Keep or override one verdict: an audited label event through the one write path."""
        answers = answer_set(self.db.cursor(), label_set)
        verdicts.check_verdict(answers, value, answers.scale)
        if label_set in self.engine.owned_sets():  # a derived set, or an audit's gold set: say which
            refuse_owned(self.db.cursor(), [label_set], "an answer verdict")
        return self.writes.edit(label_set, qid, ANSWER_PREFIX + system, value, note=note, person=person)

    def undo_answer_verdict(self, label_set: str) -> LabelEvent | None:
        """Revert the newest person's edit of the set not yet undone (None when there is none)."""
        return self.writes.undo(label_set)
