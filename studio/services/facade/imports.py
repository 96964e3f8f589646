"""Loading topics, documents, runs, label sets, answers and banks into the project."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from studio.domain.choices import OnDuplicate, OnDuplicateGrade
from studio.domain.models import LabelSetKind
from studio.services.facade.base import PathLike, ProjectBase, paths
from studio.services.facade.lazy import lazy_function, lazy_module

if TYPE_CHECKING:
    from collections.abc import Sequence

    from studio.domain.import_report import ImportReport
    from studio.services.imports import catalog as import_catalog
    from studio.services.imports import irds as import_irds
    from studio.services.imports import merged_qrels
    from studio.services.imports import trec as import_trec
    from studio.services.rubric.graded_files import import_graded
else:
    import_catalog = lazy_module("studio.services.imports.catalog")
    import_irds = lazy_module("studio.services.imports.irds")
    import_trec = lazy_module("studio.services.imports.trec")
    merged_qrels = lazy_module("studio.services.imports.merged_qrels")
    import_graded = lazy_function("studio.services.rubric.graded_files", "import_graded")


class ImportsMixin(ProjectBase):
    """What the project loads."""

    def import_topics(self, files: PathLike | Sequence[PathLike], *, replace: bool = False) -> ImportReport:
        """Topics; a qid the project holds with another text is refused unless `replace`."""
        return import_catalog.import_topics(self.db, paths(files), replace=replace)

    def import_docs(
        self,
        files: PathLike | Sequence[PathLike],
        *,
        on_duplicate: OnDuplicate | str = OnDuplicate.ERROR,
        replace: bool = False,
    ) -> ImportReport:
        """Documents; a docid repeated with the same text loads once, with another text it is refused
        unless `on_duplicate` is first or last; one the project holds with another text, unless `replace`."""
        return import_catalog.import_documents(
            self.db, paths(files), on_duplicate=OnDuplicate(on_duplicate), replace=replace
        )

    def import_runs(
        self, files: PathLike | Sequence[PathLike], *, name: str | None = None, replace: bool = False
    ) -> ImportReport:
        report = import_trec.import_runs(self.db, paths(files), name=name, replace=replace)
        self.engine.forget_runs()
        return report

    def import_qrels(
        self,
        files: PathLike | Sequence[PathLike],
        *,
        name: str | None = None,
        kind: LabelSetKind | str | None = None,
        on_duplicate: OnDuplicateGrade | str = OnDuplicateGrade.ERROR,
        replace: bool = False,
    ) -> ImportReport:
        """Each file into a label set named after it; with `name` and several files, every file into
        that one set (a pair two files grade differently refused unless `on_duplicate` says)."""
        given = paths(files)
        if name is not None and len(given) > 1:
            merged = merged_qrels.import_merged_qrels(
                self.db,
                given,
                name=name,
                kind=None if kind is None else LabelSetKind(kind),
                on_duplicate=OnDuplicateGrade(on_duplicate),
                replace=replace,
            )
            return self._followed(merged, self.writes.written(merged.names))
        report = import_trec.import_qrels(
            self.db,
            given,
            name=name,
            kind=None if kind is None else LabelSetKind(kind),
            on_duplicate=OnDuplicateGrade(on_duplicate),
            replace=replace,
        )
        return self._followed(report, self.writes.written(report.names))

    def import_judgments(
        self, files: PathLike | Sequence[PathLike], *, name: str | None = None, replace: bool = False
    ) -> ImportReport:
        """UMBRELA-style judgment JSONL into an LLM label set."""
        report = import_trec.import_judgments(self.db, paths(files), name=name, replace=replace)
        return self._followed(report, self.writes.written(report.names))

    def import_graded(
        self, file: PathLike, *, name: str, bank: str, llm: str | None = None, replace: bool = False
    ) -> ImportReport:
        """A Rubric-workbench graded file or nuggetizer assignments into a rubric label set."""
        report = import_graded(self.db, Path(file), name=name, bank=bank, llm=llm, replace=replace)
        return self._followed(report, self.writes.written([name], item_grades=[name]))

    def import_responses(
        self, files: PathLike | Sequence[PathLike], *, system: str | None = None, replace: bool = False
    ) -> ImportReport:
        return import_catalog.import_responses(self.db, paths(files), system=system, replace=replace)

    def import_bank(
        self,
        files: PathLike | Sequence[PathLike],
        *,
        name: str | None = None,
        kind: str | None = None,
        replace: bool = False,
    ) -> ImportReport:
        """Test banks; a bank imported again with `replace` moves the bank scores made with it."""
        report = import_catalog.import_bank(self.db, paths(files), name=name, kind=kind, replace=replace)
        return self._followed(report, self.writes.written(banks=report.names))

    def import_irds(
        self, dataset_id: str, *, name: str | None = None, all_docs: bool = False, replace: bool = False
    ) -> ImportReport:
        """Topics, qrels and the documents the project needs from ir_datasets' cache (never downloading)."""
        report = import_irds.import_irds(self.db, dataset_id, name=name, all_docs=all_docs, replace=replace)
        return self._followed(report, self.writes.written(report.names))
