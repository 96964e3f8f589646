"""Build the bundled sample project: topics, passages, human qrels, an LLM label set, runs,
answers and banks."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from studio.domain.errors import ProjectError, UsageError
from studio.domain.project_file import SampleSetAside
from studio.services.facade.core import ProjectCore
from studio.services.locations import demo_project_path, sample_data_dir
from studio.store.sample_mark import is_sample, label_events_since_sample, mark_sample, writes_since_sample

HUMAN_LABEL_SET = "human"
# UMBRELA grades of every human-judged pair by the bundled SmolLM2-135M (a real run, saved), so
# that Review has disagreements to work on the moment the demo opens.
LLM_LABEL_SET = "umbrela-smol"


def set_aside_sample(path: Path) -> SampleSetAside:
    """Before a rebuild: what the sample at `path` holds beyond a fresh sample, and a copy of the
    file beside it when it holds anything (`NAME.before-rebuild.duckdb`, numbered when taken)."""
    if not path.is_file():
        return SampleSetAside(dropped=[], copy=None)
    with ProjectCore.open(path, create=False, read_only=True) as existing:
        con = existing.db.cursor()
        if not is_sample(con):
            return SampleSetAside(dropped=[], copy=None)  # the rebuild refuses it, and says why
        writes = writes_since_sample(con)
        events = label_events_since_sample(con)
    dropped = [command if count == 1 else f"{command} ({count} times)" for command, count in writes]
    dropped += [f"{events:,} label event{'s' if events != 1 else ''}"] if events else []
    if not dropped:
        return SampleSetAside(dropped=[], copy=None)
    copy = _free_name(path)
    shutil.copy2(path, copy)
    return SampleSetAside(dropped=dropped, copy=str(copy))


def _free_name(path: Path) -> Path:
    stem = path.name.removesuffix(".duckdb")
    for number in range(1, 10_000):
        suffix = "" if number == 1 else f"-{number}"
        candidate = path.with_name(f"{stem}.before-rebuild{suffix}.duckdb")
        if not candidate.exists():
            return candidate
    raise UsageError(f"too many copies beside {path}: remove some *.before-rebuild*.duckdb")


def build_sample_file(path: Path, *, rebuild: bool = False, source: Path | None = None) -> Path:
    """The sample project's file at `path`, built first when missing (or when `rebuild`).

    The build writes a temporary file and renames it into place, so an interrupted build
    never leaves a half-built project behind.
    """
    if path.exists() and not rebuild:
        return path
    if path.exists() or path.is_symlink():
        # A rebuild replaces a sample project only: a folder or another program's file is refused
        # (NotAProject) before anything is written, and so is a person's own project.
        with ProjectCore.open(path, create=False, read_only=True) as existing:
            sample = is_sample(existing.db.cursor())
        if not sample and path != demo_project_path(None):  # the demo's own file may predate the mark
            raise UsageError(
                f"{path} is not a sample project (`studio demo` did not build it): --rebuild replaces a sample only, "
                "and leaves this file as it is"
            )
    data = source or sample_data_dir()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:  # said as opening a project says it (store/opening.py's admit)
        raise ProjectError(f"cannot create {path}: {error.strerror or error}") from error
    partial = path.with_name(path.name + ".building")
    for leftover in (partial, Path(str(partial) + ".wal")):
        leftover.unlink(missing_ok=True)
    with ProjectCore.open(partial) as project:
        project.import_topics(data / "topics.tsv")
        project.import_docs(data / "documents.jsonl")
        project.import_qrels(data / "qrels" / "human.txt", name=HUMAN_LABEL_SET)
        project.import_judgments(data / "judgments" / "umbrela-smol.jsonl.gz", name=LLM_LABEL_SET)
        project.import_runs(sorted((data / "runs").glob("*.txt")))
        project.import_responses(sorted((data / "responses").glob("*.jsonl")))
        project.import_bank(data / "banks" / "questions.jsonl.gz", name="questions")
        project.import_bank(data / "banks" / "nuggets.jsonl", name="nuggets")
        with project.db.transaction() as tx:
            mark_sample(tx)
    Path(str(path) + ".wal").unlink(missing_ok=True)
    for turn_taking in (".lock", ".lock.wanted"):  # the temporary file's turn-taking files
        Path(str(partial) + turn_taking).unlink(missing_ok=True)
    os.replace(partial, path)
    return path
