"""The project itself: opening and closing its file, sharing it with other processes, what it holds."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Self

from studio.domain.frames import TopicChoice, TopicScope
from studio.domain.names import check_id
from studio.domain.project_file import DEFAULT_WAIT_SECONDS, WaitNotice
from studio.formats.topic_lists import read_topic_list
from studio.services.locations import project_path
from studio.store import Database, listing
from studio.store import judging as judge_store

if TYPE_CHECKING:  # imported when first used: a command that only lists needs none of them (numpy)
    from collections.abc import Sequence
    from types import TracebackType

    from studio.domain.check_report import CheckReport
    from studio.domain.import_report import ImportReport
    from studio.domain.rows import (
        BankInfo,
        DocumentRow,
        JudgeRunRow,
        LabelSetName,
        LabelSetRow,
        ResponseRow,
        RunInfo,
        TopicRow,
    )
    from studio.services.derived.follow import Followed
    from studio.services.evaluation.changes import ChangeWatcher
    from studio.services.evaluation.engine import EvaluationEngine
    from studio.services.writes.label_writes import LabelWrites

PathLike = str | Path


def paths(files: PathLike | Sequence[PathLike]) -> list[Path]:
    """One path or several, as a list."""
    if isinstance(files, str | Path):
        return [Path(files)]
    return [Path(f) for f in files]


class ProjectBase:
    """A project file: what is loaded into it and what can be asked of it.

    `db` (the file), `engine` (the cached leaderboards) and `writes` (the one door through which
    labels change) are the services' business; the front ends ask the project."""

    def __init__(self, database: Database) -> None:
        self.db = database
        self._engine: EvaluationEngine | None = None
        self._writes: LabelWrites | None = None
        self._making = threading.Lock()  # one engine, however many threads ask for it first

    @property
    def engine(self) -> EvaluationEngine:
        """The cached leaderboards, made on first use (opening a project to list it needs none)."""
        if self._engine is None:
            with self._making:
                if self._engine is None:
                    from studio.services.evaluation.engine import EvaluationEngine
                    from studio.services.writes.label_writes import LabelWrites

                    engine = EvaluationEngine(self.db)
                    self._writes = LabelWrites(engine)  # the one door through which labels change
                    self._engine = engine
        return self._engine

    @property
    def writes(self) -> LabelWrites:
        """The one door through which labels change (made with the engine)."""
        if self._writes is None:
            self.engine  # noqa: B018  # makes both
        assert self._writes is not None
        return self._writes

    @classmethod
    def open(
        cls,
        path: PathLike,
        *,
        wait: float = DEFAULT_WAIT_SECONDS,
        notice: WaitNotice | None = None,
        create: bool = True,
        read_only: bool = False,
    ) -> Self:
        """Open (creating and migrating as needed) the project file at `path` (":memory:" allowed).

        A file that is not a studio project raises NotAProject, untouched. `create=False` raises
        NoProject when the file is missing instead of creating it. The file is opened read-only
        when asked (`read_only`) or when it or its folder cannot be written: reads work and a
        write raises ProjectReadOnly. Another process may be writing to it: this one waits up to
        `wait` seconds for its turn (`notice` hears whom it waits for) and raises ProjectBusy after that.
        """
        return cls(Database(path, wait=wait, notice=notice, create=create, read_only=read_only))

    def watch_changes(self) -> ChangeWatcher:
        """What other processes write from now on, applied to this project's leaderboards on `poll()`."""
        from studio.services.evaluation.changes import ChangeWatcher

        return ChangeWatcher(self.engine)

    @staticmethod
    def _followed(report: ImportReport, followed: Followed) -> ImportReport:
        if followed.followed:
            report.warnings.append(f"derived label sets updated: {', '.join(followed.followed)}")
        report.warnings.extend(followed.warnings())
        return report

    @staticmethod
    def choose_topics(
        scope: TopicScope = TopicScope.common,
        topics: Sequence[str] = (),
        topics_file: PathLike | None = None,
    ) -> TopicChoice:
        """The topics a comparison stands on: `scope`, narrowed to `topics` and those listed in
        `topics_file` (one qid per line, a topics, qrels or run file, or JSONL topics) when given."""
        chosen = dict.fromkeys(topics)
        if topics_file is not None:
            chosen.update(dict.fromkeys(read_topic_list(Path(topics_file))))
        for qid in chosen:
            check_id(qid, "qid")
        return TopicChoice(scope, tuple(chosen) if topics or topics_file is not None else None)

    @staticmethod
    def locate(path: str | Path | None = None) -> Path:
        """The project file a command means: `path`, else $STUDIO_DB, else ./studio.duckdb."""
        return project_path(path)

    def release(self) -> None:
        """Let other processes have the file until the next call needs it (what is in memory stays)."""
        self.db.release()

    def share_between_uses(self, wait: float, linger: float = 0.0) -> None:
        """Hold the file only while it is used (a transaction, a `turn()`, a sync's step) and give
        it up as the last use ends — when another process asks for it, at once; else after `linger`
        seconds without use (`sharing_due`) — so that commands in other terminals never wait for a
        front end that stays open. A use waits at most `wait` seconds for another process's turn."""
        self.db.release_between_uses = True
        self.db.linger = linger
        self.db.wait = min(self.db.wait, wait)

    def sharing_due(self) -> bool:
        """Is it time to give the file up and look for others' writes: not held now, or another
        process asked for it, or nobody used it for the `linger` of `share_between_uses`."""
        db = self.db
        return not db.held or db.wanted() or time.monotonic() - db.last_used >= db.linger

    @contextmanager
    def turn(self) -> Iterator[Self]:
        """The project to this thread for a while: the engine's lock (the write path takes it too),
        and the file held until the block ends (given up then, under `share_between_uses`)."""
        with self.db.busy(), self.lock:  # the use first: it may wait for others' uses, holding nothing
            yield self

    @property
    def lock(self) -> threading.RLock:
        """Held by a thread that works with the project while others may too (a front end's
        workers); the write path takes it itself."""
        return self.engine.lock

    @property
    def path(self) -> str:
        return self.db.path

    @property
    def created(self) -> bool:
        """Did opening make the project file?"""
        return self.db.created

    @property
    def read_only(self) -> str | None:
        """Why the project is open read-only (None: it can be written)."""
        return self.db.read_only_reason

    def schema_version(self) -> int:
        """The version of the file's schema (the studio's newest once opened for writing)."""
        return self.db.schema_version()

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def counts(self) -> dict[str, int]:
        return listing.counts(self.db.cursor())

    def topics(self) -> list[TopicRow]:
        return listing.list_topics(self.db.cursor())

    def documents(self) -> list[DocumentRow]:
        return listing.list_documents(self.db.cursor())

    def runs(self) -> list[RunInfo]:
        return listing.list_runs(self.db.cursor())

    def label_sets(self) -> list[LabelSetRow]:
        return listing.list_label_sets(self.db.cursor())

    def label_set_names(self) -> list[LabelSetName]:
        """Each label set's name and kind, without `label_sets()`'s counts (which read every label)."""
        return listing.label_set_names(self.db.cursor())

    def banks(self) -> list[BankInfo]:
        return listing.list_banks(self.db.cursor())

    def responses(self) -> list[ResponseRow]:
        return listing.list_responses(self.db.cursor())

    def judge_runs(self) -> list[JudgeRunRow]:
        """Every judge run with its configuration, prompt hash and counts."""
        return judge_store.list_judge_runs(self.db.cursor())

    def check(self) -> CheckReport:
        """Whether the project file is whole: current labels and bank items are the replay of their
        events, no row names a missing one, keys are held once, judge runs agree with their
        judgments (see `studio check`)."""
        from studio.services.integrity.check import check_project

        return check_project(self.engine)
