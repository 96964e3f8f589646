"""Leaderboards from other tools (score tables) and LLM label probabilities, in and out."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from studio.domain.choices import LeaderboardLayout
from studio.services.facade.base import PathLike, ProjectBase
from studio.services.facade.lazy import lazy_function, lazy_module

if TYPE_CHECKING:
    from studio.domain.export_report import ExportReport
    from studio.domain.import_report import ImportReport
    from studio.domain.rows import ScoreTableRow
    from studio.services.exports.label_probs import export_label_probs
    from studio.services.imports.label_probs import import_label_probs
    from studio.services.imports.leaderboards import import_leaderboard
    from studio.store import score_tables as score_store
else:
    export_label_probs = lazy_function("studio.services.exports.label_probs", "export_label_probs")
    import_label_probs = lazy_function("studio.services.imports.label_probs", "import_label_probs")
    import_leaderboard = lazy_function("studio.services.imports.leaderboards", "import_leaderboard")
    score_store = lazy_module("studio.store.score_tables")


class ScoreTablesMixin(ProjectBase):
    """Imported leaderboards to correlate against, and label distributions."""

    def import_leaderboard(
        self,
        file: PathLike,
        *,
        name: str | None = None,
        layout: LeaderboardLayout | str | None = None,
        run: str | None = None,
        replace: bool = False,
    ) -> ImportReport:
        """A leaderboard file (trec_eval, ir_measures, tot, JSONL, or the studio's JSON/TSV/CSV; the
        layout told by the content unless given) as the score table `name`."""
        chosen = None if layout is None else LeaderboardLayout(layout)
        return import_leaderboard(self.db, Path(file), name=name, layout=chosen, run=run, replace=replace)

    def leaderboards(self) -> list[ScoreTableRow]:
        """The imported leaderboards: name, runs, measures, topics, values, layout, source."""
        return score_store.list_score_tables(self.db.cursor())

    def import_probs(self, file: PathLike, *, name: str | None = None, replace: bool = False) -> ImportReport:
        """Per-pair label probabilities (CSV) into an LLM label set of their most probable grades."""
        report = import_label_probs(self.db, Path(file), name=name, replace=replace)
        return self._followed(report, self.writes.written(report.names))

    def export_probs(self, label_set: str, out: str | Path) -> ExportReport:
        """A label set's label distributions in the CSV layout `import_probs` reads."""
        return export_label_probs(self.db, label_set, out)
