"""Importing TREC runs and qrels: many files per command, all or nothing.

Files are staged outside the write transaction (DuckDB's fast path first, whichever whitespace
separates the columns; the precise parser where the fast path is unsure), then moved into place
in one transaction. Every name is checked (`studio.domain.names`) before anything is read: the
one given, or the one taken from the file (its name, or a run's tag column).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from studio.domain.choices import OnDuplicateGrade
from studio.domain.errors import InputError, UsageError, quoted
from studio.domain.import_report import ImportReport
from studio.domain.models import LabelSetKind
from studio.domain.names import check_name, composed, name_problem
from studio.formats.judgments import ParsedJudgments, parse_judgments
from studio.formats.text_input import TREC_LINE_BYTES, first_line, not_a_file, read_lines
from studio.formats.trec import RUN_COLUMNS, parse_qrels, parse_run, split_columns
from studio.services.imports.judgments import record_imported_judgments
from studio.services.writes.owners import refuse_owned
from studio.store import Connection, Database, FastPathRefused, new_batch
from studio.store import labels as label_store
from studio.store import runs as run_store


def default_name(path: Path) -> str:
    """A file's name without its data suffixes: `qrels.dl19.txt.gz` -> `qrels.dl19`."""
    name = path.name
    for suffix in (".gz", ".txt", ".tsv", ".jsonl", ".json", ".qrels", ".run", ".trec"):
        name = name.removesuffix(suffix)
    return name


def require_files(paths: Sequence[Path]) -> None:
    """Every path a regular file, else an input error that says what it is instead."""
    if not paths:
        raise UsageError("no file given")
    for path in paths:
        if not path.is_file():
            raise InputError(str(path), None, not_a_file(path))


def names_for_files(paths: Sequence[Path], name: str | None, guess: Callable[[Path], str], what: str) -> list[str]:
    """The name of each file's `what` (label set, run, bank): `name` for the one file it names,
    else `guess`ed from each file (the guess checks its own)."""
    if name is not None and len(paths) > 1:
        raise UsageError("--name names one file; give files one at a time to name each")
    names = [check_name(name, what)] if name is not None else [guess(path) for path in paths]
    seen: dict[str, Path] = {}
    for path, chosen in zip(paths, names, strict=True):
        if chosen in seen:
            raise UsageError(f"{seen[chosen]} and {path} would both be named {chosen!r}")
        seen[chosen] = path
    return names


def named_after_file(what: str) -> Callable[[Path], str]:
    """A guess for `names_for_files`: the file's name without its data suffixes, checked."""

    def guess(path: Path) -> str:
        name = default_name(path)
        problem = name_problem(name)
        if problem is not None:
            raise InputError(str(path), None, f"{what} name {quoted(name)} (the file's name) {problem}; give --name")
        return composed(name)

    return guess


def _run_tag(path: Path) -> str:
    """Run names default to the tag column (the sixth) of the first line that is no comment."""
    try:
        number, line = first_line(path, comment="#", max_line_bytes=TREC_LINE_BYTES)
        fields = split_columns(line)
    except InputError:
        number, line, fields = 0, "", []
    if len(fields) < RUN_COLUMNS or "\r" in line:
        parse_run(
            read_lines(path, TREC_LINE_BYTES), str(path), mixed_tags=True
        )  # names the line, or the file without rows
        raise InputError(str(path), None, f"expected at least {RUN_COLUMNS} columns (qid Q0 docid rank score tag)")
    tag = fields[RUN_COLUMNS - 1]
    problem = name_problem(tag)
    if problem is not None:
        raise InputError(str(path), number, f"run name {quoted(tag)} (the tag column) {problem}; give --name")
    return composed(tag)


def import_runs(db: Database, paths: Sequence[Path], *, name: str | None = None, replace: bool = False) -> ImportReport:
    """Each file becomes one run, named after its tag column (every row must carry the same tag)
    unless `name` names the one file given (then its rows are that run, whatever their tags)."""
    require_files(paths)
    names = names_for_files(paths, name, _run_tag, "run")
    mixed_tags = name is not None
    tags = None if mixed_tags else dict(enumerate(names))
    con = db.cursor()
    taken = run_store.run_names(con) & set(names)
    if taken and not replace:
        raise UsageError(f"run {', '.join(sorted(taken))} is already loaded (use --replace)")
    report = ImportReport("runs", [str(p) for p in paths], names)
    run_store.create_run_staging(con)
    try:
        indexed = list(enumerate(paths))
        try:
            run_store.stage_run_files(con, indexed, tags)
        except FastPathRefused:
            for index, path in indexed:
                try:
                    run_store.stage_run_files(con, [(index, path)], tags)
                except FastPathRefused:
                    parsed = parse_run(read_lines(path, TREC_LINE_BYTES), str(path), mixed_tags=mixed_tags)
                    run_store.stage_run_rows(con, index, parsed.rows)
        # The rankings are grouped from the staged rows: no stored order to keep, and keeping
        # one would cost the parallel insert its speed.
        with run_store.unordered_inserts(con), db.transaction() as tx:
            batch = new_batch(tx, "import run", ", ".join(report.files))
            for run_name in sorted(taken):
                run_store.delete_run(tx, run_name)
            run_ids = run_store.add_runs(tx, [(n, str(p)) for n, p in zip(names, paths, strict=True)], batch)
            ids = list(enumerate(run_ids))
            run_store.commit_staged_runs(tx, ids)
            rows = run_store.staged_run_row_count(tx)
        report.counts = {"runs": len(names), "rows": rows}
        if taken:
            report.warnings.append(f"replaced {', '.join(sorted(taken))}")
        return report
    finally:
        run_store.drop_run_staging(con)


def import_qrels(
    db: Database,
    paths: Sequence[Path],
    *,
    name: str | None = None,
    kind: LabelSetKind | None = None,
    on_duplicate: OnDuplicateGrade = OnDuplicateGrade.ERROR,
    replace: bool = False,
) -> ImportReport:
    """Each file becomes one label set (named after the file unless `name` says otherwise), of
    `kind` (default: human; a replaced set keeps its kind unless `kind` is given)."""

    def stage(con: Connection, index: int, path: Path) -> list[str]:
        try:
            label_store.stage_qrels_file(con, index, path)
            return []
        except FastPathRefused:
            parsed = parse_qrels(read_lines(path, TREC_LINE_BYTES), str(path), on_duplicate)
            label_store.stage_labels(con, index, parsed.rows)
            if not parsed.repeated_pairs:
                return []
            return [
                f"{path}: {parsed.repeated_pairs} repeated pair(s) kept once"
                f" ({on_duplicate.value} grade where they differ)"
            ]

    return _import_label_files(db, paths, "qrels", stage, name=name, kind=kind, replace=replace)


def import_judgments(
    db: Database, paths: Sequence[Path], *, name: str | None = None, replace: bool = False
) -> ImportReport:
    """UMBRELA-style judgment JSONL (as `studio export judgments` writes it) into an LLM label set,
    with a judge run per file that keeps each judgment's prompt, raw output and confidence."""
    parsed: dict[int, ParsedJudgments] = {}

    def stage(con: Connection, index: int, path: Path) -> list[str]:
        parsed[index] = parse_judgments(read_lines(path), str(path))
        label_store.stage_labels(con, index, parsed[index].rows)
        skipped = parsed[index].skipped
        return [f"{path}: {skipped} failed judgment(s) carry no label"] if skipped else []

    def after(tx: Connection, index: int, set_id: int, path: Path) -> None:
        record_imported_judgments(tx, set_id, path, parsed[index].records)

    return _import_label_files(
        db, paths, "judgments", stage, name=name, kind=LabelSetKind.LLM, replace=replace, after=after
    )


def _import_label_files(
    db: Database,
    paths: Sequence[Path],
    what: str,
    stage: Callable[[Connection, int, Path], list[str]],
    *,
    name: str | None,
    kind: LabelSetKind | None,
    replace: bool,
    after: Callable[[Connection, int, int, Path], None] | None = None,
) -> ImportReport:
    """Stage every file (outside the transaction), then turn each into one label set's events in
    one transaction; a replaced label set keeps its history. `after` adds to each label set in
    the same transaction."""
    require_files(paths)
    names = names_for_files(paths, name, named_after_file("label set"), "label set")
    con = db.cursor()
    existing = {n: label_store.label_set_id(con, n) for n in names}
    taken = sorted(n for n, found in existing.items() if found is not None)
    if taken and not replace:
        raise UsageError(f"label set {', '.join(taken)} already exists (use --replace)")
    refuse_owned(con, taken, f"import {what} --replace")
    report = ImportReport(what, [str(p) for p in paths], names)
    label_store.create_label_staging(con)
    try:
        for index, path in enumerate(paths):
            report.warnings += stage(con, index, path)
        events = 0
        with db.transaction() as tx:
            batch = new_batch(tx, f"import {what}", ", ".join(report.files))
            for index, (path, set_name) in enumerate(zip(paths, names, strict=True)):
                set_id = existing[set_name]
                if set_id is None:
                    set_id = label_store.create_label_set(tx, set_name, (kind or LabelSetKind.HUMAN).value, str(path))
                else:  # replaced: its source is the new file, its kind the one asked for (else kept)
                    label_store.describe_label_set(tx, set_id, kind.value if kind else None, str(path))
                events += label_store.apply_staged_labels(
                    tx,
                    set_id,
                    index,
                    origin="import",
                    source=str(path),
                    batch_id=batch,
                    remove_missing=True,
                )
                if after is not None:
                    after(tx, index, set_id, path)
            staged = label_store.staged_label_count(tx)
        report.counts = {"label_sets": len(names), "labels": staged, "events": events}
        return report
    finally:
        label_store.drop_label_staging(con)
