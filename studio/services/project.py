"""`Project`: the studio's Python API over one project file."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

from studio.domain.models import LabelSetKind
from studio.formats.trec import OnDuplicate
from studio.services import import_catalog, import_trec
from studio.services.import_report import ImportReport
from studio.store import Database, listing

PathLike = str | Path


def _paths(files: PathLike | Sequence[PathLike]) -> list[Path]:
    if isinstance(files, str | Path):
        return [Path(files)]
    return [Path(f) for f in files]


class Project:
    """A project file: what is loaded into it and what can be asked of it.

    >>> project = Project.open(":memory:")
    >>> project.counts()["runs"]
    0
    """

    def __init__(self, database: Database) -> None:
        self.db = database

    @classmethod
    def open(cls, path: PathLike) -> Project:
        """Open (creating and migrating as needed) the project file at `path` (":memory:" allowed)."""
        return cls(Database(path))

    @property
    def path(self) -> str:
        return self.db.path

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Project:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    # -- imports -----------------------------------------------------------------------------

    def import_topics(self, files: PathLike | Sequence[PathLike]) -> ImportReport:
        return import_catalog.import_topics(self.db, _paths(files))

    def import_docs(self, files: PathLike | Sequence[PathLike]) -> ImportReport:
        return import_catalog.import_documents(self.db, _paths(files))

    def import_runs(
        self, files: PathLike | Sequence[PathLike], *, name: str | None = None, replace: bool = False
    ) -> ImportReport:
        return import_trec.import_runs(self.db, _paths(files), name=name, replace=replace)

    def import_qrels(
        self,
        files: PathLike | Sequence[PathLike],
        *,
        name: str | None = None,
        kind: LabelSetKind | str = LabelSetKind.HUMAN,
        on_duplicate: OnDuplicate | str = OnDuplicate.ERROR,
        replace: bool = False,
    ) -> ImportReport:
        return import_trec.import_qrels(
            self.db,
            _paths(files),
            name=name,
            kind=LabelSetKind(kind),
            on_duplicate=OnDuplicate(on_duplicate),
            replace=replace,
        )

    def import_responses(
        self, files: PathLike | Sequence[PathLike], *, system: str | None = None, replace: bool = False
    ) -> ImportReport:
        return import_catalog.import_responses(self.db, _paths(files), system=system, replace=replace)

    def import_bank(
        self,
        files: PathLike | Sequence[PathLike],
        *,
        name: str | None = None,
        kind: str | None = None,
        replace: bool = False,
    ) -> ImportReport:
        return import_catalog.import_bank(self.db, _paths(files), name=name, kind=kind, replace=replace)

    # -- what is loaded --------------------------------------------------------------------

    def counts(self) -> dict[str, int]:
        return listing.counts(self.db.cursor())

    def topics(self) -> list[dict[str, Any]]:
        return listing.list_topics(self.db.cursor())

    def documents(self) -> list[dict[str, Any]]:
        return listing.list_documents(self.db.cursor())

    def runs(self) -> list[dict[str, Any]]:
        return listing.list_runs(self.db.cursor())

    def label_sets(self) -> list[dict[str, Any]]:
        return listing.list_label_sets(self.db.cursor())

    def banks(self) -> list[dict[str, Any]]:
        return listing.list_banks(self.db.cursor())

    def responses(self) -> list[dict[str, Any]]:
        return listing.list_responses(self.db.cursor())
