"""Writing label sets, judgments, item grades, banks and leaderboards to files (or stdout)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from studio.services.facade.base import ProjectBase
from studio.services.facade.lazy import lazy_function

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from studio.domain.choices import AnswerLayout, BankFormat, LeaderboardLayout
    from studio.domain.export_report import ExportReport
    from studio.domain.significance import SignificancePlan
    from studio.services.exports.banks import export_bank
    from studio.services.exports.labels import export_judgments, export_qrels
    from studio.services.exports.leaderboard import export_leaderboard
    from studio.services.exports.responses import export_responses
    from studio.services.rubric.graded_files import export_graded
else:
    export_bank = lazy_function("studio.services.exports.banks", "export_bank")
    export_judgments = lazy_function("studio.services.exports.labels", "export_judgments")
    export_qrels = lazy_function("studio.services.exports.labels", "export_qrels")
    export_leaderboard = lazy_function("studio.services.exports.leaderboard", "export_leaderboard")
    export_responses = lazy_function("studio.services.exports.responses", "export_responses")
    export_graded = lazy_function("studio.services.rubric.graded_files", "export_graded")


class ExportsMixin(ProjectBase):
    """Each export writes its file whole or not at all; `-` is stdout."""

    def export_qrels(self, label_set: str, out: str | Path) -> ExportReport:
        """The current labels as TREC qrels."""
        return export_qrels(self.db, label_set, out)

    def export_responses(
        self, out: str | Path, *, systems: Sequence[str] | None = None, layout: AnswerLayout | str = "jsonl"
    ) -> ExportReport:
        """Generated answers (of `systems`, default all) as JSONL or TREC RAG 2024 records."""
        return export_responses(self.db, out, systems=systems, layout=layout)

    def export_judgments(self, label_set: str, out: str | Path) -> ExportReport:
        """The newest judge run of a label set as UMBRELA-style judgment JSONL."""
        return export_judgments(self.db, label_set, out)

    def export_graded(
        self, label_set: str, out: str | Path, *, ref: str | None = "human", min_grade: float = 4.0
    ) -> ExportReport:
        """A rubric label set's item grades: a Rubric graded file, or nuggetizer assignments."""
        return export_graded(self.db, label_set, out, ref=ref, min_grade=min_grade)

    def export_bank(self, bank: str, out: str | Path, fmt: BankFormat | str | None = None) -> ExportReport:
        """A test bank's current items (Rubric, nuggetizer or TSV layout)."""
        return export_bank(self.db, bank, out, fmt)

    def export_leaderboard(
        self,
        label_set: str,
        measures: Sequence[str] | None,
        out: str | Path,
        fmt: LeaderboardLayout | str | None = None,
        *,
        per_topic: bool = False,
        complete: bool = False,
        significance: SignificancePlan | None = None,
    ) -> ExportReport:
        """The leaderboard under a label set as JSON, TSV or CSV, or as trec_eval, tot, ir_measures,
        JSONL or LaTeX write it; with `significance`, the LaTeX table marks each run's significant
        differences (every run pair tested as `studio significance` tests them), as ranx does."""
        return export_leaderboard(
            self.engine,
            label_set,
            measures,
            out,
            fmt,
            per_topic=per_topic,
            complete=complete,
            significance=significance,
        )
