"""Several qrels files into one label set (`studio import qrels A B --name human`): a reference
published one file per year (TREC DL 2020 and 2021) read as one set, in one transaction.

A pair both files grade alike is kept once (counted in a warning); graded differently, it is
refused naming both files and lines, unless `on_duplicate` keeps the first file's, the last's or
the highest grade, as within one file.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from studio.domain.choices import OnDuplicateGrade
from studio.domain.errors import InputError, UsageError
from studio.domain.import_report import ImportReport
from studio.domain.models import LabelSetKind, QrelsRow
from studio.domain.names import check_name
from studio.formats.text_input import TREC_LINE_BYTES, read_lines
from studio.formats.trec import parse_qrels, trec_lines
from studio.services.imports.trec import require_files
from studio.services.writes.owners import refuse_owned
from studio.store import Database, new_batch
from studio.store import labels as label_store


def merged_rows(paths: Sequence[Path], on_duplicate: OnDuplicateGrade) -> tuple[list[QrelsRow], int, list[str]]:
    """The files' rows as one set, how many pairs came in more than one file, and warnings."""
    kept: dict[tuple[str, str], tuple[float, Path]] = {}
    overlaps, warnings = 0, []
    for path in paths:
        parsed = parse_qrels(read_lines(path, TREC_LINE_BYTES), str(path), on_duplicate)
        if parsed.repeated_pairs:
            warnings.append(f"{path}: {parsed.repeated_pairs} repeated pair(s) kept once")
        for row in parsed.rows:
            key = (row.qid, row.docid)
            if key not in kept:
                kept[key] = (row.grade, path)
                continue
            overlaps += 1
            earlier, where = kept[key]
            if earlier == row.grade or on_duplicate is OnDuplicateGrade.FIRST:
                continue
            if on_duplicate is OnDuplicateGrade.ERROR:
                raise InputError(
                    str(path),
                    _line_of(path, key),
                    f"({row.qid}, {row.docid}) is graded {row.grade:g} here and {earlier:g} in {where}"
                    f" line {_line_of(where, key)}; choose with --on-duplicate first|last|highest",
                )
            if on_duplicate is OnDuplicateGrade.LAST or row.grade > earlier:
                kept[key] = (row.grade, path)
    rows = [QrelsRow(q, d, grade) for (q, d), (grade, _) in kept.items()]
    if overlaps:
        warnings.append(f"{overlaps} pair(s) graded in more than one file, kept once")
    return rows, overlaps, warnings


def _line_of(path: Path, key: tuple[str, str]) -> int | None:
    """The first line of `path` that grades the pair (the error's pointer)."""
    for number, fields in trec_lines(read_lines(path, TREC_LINE_BYTES)):
        if len(fields) >= 3 and (fields[0], fields[2]) == key:
            return number
    return None


def import_merged_qrels(
    db: Database,
    paths: Sequence[Path],
    *,
    name: str,
    kind: LabelSetKind | None,
    on_duplicate: OnDuplicateGrade,
    replace: bool,
) -> ImportReport:
    """Every file's grades into the one label set `name`, in one transaction."""
    require_files(paths)
    name = check_name(name, "label set")
    con = db.cursor()
    set_id = label_store.label_set_id(con, name)
    if set_id is not None and not replace:
        raise UsageError(f"label set {name} already exists (use --replace)")
    if set_id is not None:
        refuse_owned(con, [name], "import qrels --replace")
    rows, _, warnings = merged_rows(paths, on_duplicate)
    source = ", ".join(str(p) for p in paths)
    report = ImportReport("qrels", [str(p) for p in paths], [name], warnings=warnings)
    label_store.create_label_staging(con)
    try:
        label_store.stage_labels(con, 0, rows)
        with db.transaction() as tx:
            batch = new_batch(tx, "import qrels", source)
            if set_id is None:
                set_id = label_store.create_label_set(tx, name, (kind or LabelSetKind.HUMAN).value, source)
            else:
                label_store.describe_label_set(tx, set_id, kind.value if kind else None, source)
            events = label_store.apply_staged_labels(
                tx, set_id, 0, origin="import", source=source, batch_id=batch, remove_missing=True
            )
    finally:
        label_store.drop_label_staging(con)
    report.counts = {"label_sets": 1, "labels": len(rows), "events": events}
    return report
