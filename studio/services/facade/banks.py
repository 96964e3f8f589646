"""Test banks: editing, generating, diagnostics, Rubric-Cover and stale cells."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from studio.banks.derived import DEFAULT_MIN_GRADE
from studio.domain.bank_results import BankReport, CoverLeaderboard, GeneratedBank, NuggetizeEvent, StaleCellRow
from studio.domain.names import check_name
from studio.services.facade.base import ProjectBase
from studio.services.facade.lazy import lazy_function, lazy_module

if TYPE_CHECKING:
    from collections.abc import Iterator

    from studio.domain.judging import JudgeConfig, JudgeProgress
    from studio.services.judging.config import last_config
    from studio.services.judging.stale import stale_plan
    from studio.services.rubric.cover import cover_leaderboard
    from studio.services.rubric.diagnostics import bank_report
    from studio.services.rubric.editing import BankEditor
    from studio.store import judging as judge_store
    from studio.store.new_names import refuse_look_alike
else:
    last_config = lazy_function("studio.services.judging.config", "last_config")
    stale_plan = lazy_function("studio.services.judging.stale", "stale_plan")
    cover_leaderboard = lazy_function("studio.services.rubric.cover", "cover_leaderboard")
    bank_report = lazy_function("studio.services.rubric.diagnostics", "bank_report")
    BankEditor = lazy_function("studio.services.rubric.editing", "BankEditor")
    judge_store = lazy_module("studio.store.judging")
    refuse_look_alike = lazy_function("studio.store.new_names", "refuse_look_alike")


class BanksMixin(ProjectBase):
    """Test banks and what rubric judges made of them."""

    def bank_report(
        self,
        bank: str,
        source: str,
        *,
        ref: str = "human",
        min_grade: float = DEFAULT_MIN_GRADE,
        relevant: float | None = None,
        measure: str = "nDCG@10",
        topics: list[str] | None = None,
    ) -> BankReport:
        """Diagnostics of a test bank from a rubric judge's item grades (see `studio bank report`):
        covered at item grade ≥ `min_grade`, relevant at reference grade ≥ `relevant` (None: the
        scale's usual threshold)."""
        return bank_report(
            self.engine, bank, source, ref=ref, min_grade=min_grade, relevant=relevant, measure=measure, topics=topics
        )

    def cover_leaderboard(
        self,
        source: str,
        bank: str,
        *,
        k: int = 10,
        min_grade: float = DEFAULT_MIN_GRADE,
        normalise: bool = False,
        ref: str | None = "human",
        measure: str = "nDCG@10",
    ) -> CoverLeaderboard:
        """Rubric-Cover@k of every run from a rubric judge's item grades (see `studio bank cover`),
        with Kendall τ against `ref`'s `measure` leaderboard (none when `ref` is None)."""
        return cover_leaderboard(
            self.engine, source, bank, k=k, min_grade=min_grade, normalise=normalise, ref=ref, measure=measure
        )

    def stale_cells(self, label_set: str) -> list[StaleCellRow]:
        """The cells of a rubric judge's label set that bank edits made stale (edited, new, deleted)."""
        plan = stale_plan(self.db, last_config(self.db, label_set))
        return [StaleCellRow(qid=c.qid, docid=c.docid, item_id=c.item_id, reason=c.reason) for c in plan.stale]

    def bank_editor(self, bank: str, person: str | None = None) -> BankEditor:
        """Audited edits of a bank by `person`; the bank scores made with it follow each edit."""
        return BankEditor(self.db, bank, person, writes=self.writes)

    def graders_of(self, bank: str) -> list[str]:
        """The rubric label sets graded with a bank."""
        return judge_store.label_sets_graded_with(self.db.cursor(), bank)

    def generate_bank(
        self, config: JudgeConfig, kind: str, *, max_items: int = 10, replace: bool = False
    ) -> Iterator[JudgeProgress | GeneratedBank]:
        """~10 exam questions or nuggets per topic from the query alone, into bank `config.name`
        (a summary last); a bank made again moves the bank scores made with it."""
        config = dataclasses.replace(config, name=check_name(config.name, "bank"))
        refuse_look_alike(self.db.cursor(), "bank", config.name)
        from studio.services.rubric.generation import generate_bank  # loads the generation prompts

        yield from generate_bank(self.db, config, kind, max_items=max_items, replace=replace)
        self.writes.written(banks=[config.name])

    def nuggetize(
        self, config: JudgeConfig, *, relevant: float = 2.0, replace: bool = False
    ) -> Iterator[NuggetizeEvent]:
        """AutoNuggetizer: nuggets from the documents `config.ref` grades ≥ `relevant`: a
        NuggetizedTopic per topic, the NuggetizedBank last."""
        config = dataclasses.replace(config, name=check_name(config.name, "bank"))
        refuse_look_alike(self.db.cursor(), "bank", config.name)
        from studio.services.rubric.nuggetizer import nuggetize

        yield from nuggetize(self.db, config, relevant=relevant, replace=replace)
        self.writes.written(banks=[config.name])
