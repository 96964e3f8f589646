"""Item grades in and out: Rubric-workbench graded files and nuggetizer assignment JSONL.

An export writes the newest judge run of a rubric label set; an import makes a label set with a
judge run (backend `import`) holding the file's item grades, failures and raw answers, so every
derived score, diagnostic and export works on it as on a judge of the studio's own.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Any

from studio.domain.errors import InputError, UsageError
from studio.domain.export_report import ExportReport
from studio.domain.import_report import ImportReport
from studio.domain.models import BankItem, LabelSetKind, item_text_hash
from studio.domain.names import check_name
from studio.formats.graded import (
    GradedFile,
    Grader,
    ItemJudgment,
    parse_nugget_assignments,
    parse_rubric_graded,
    write_nugget_assignments,
    write_rubric_graded,
)
from studio.formats.text_input import first_text, read_lines
from studio.judges.methods import Method, get_method
from studio.services.exports.delivery import deliver
from studio.services.imports.judgments import store_imported_call
from studio.services.judging.config import newest_run
from studio.services.judging.label_writers import write_own_scores
from studio.store import Connection, Database, new_batch, pools
from studio.store import banks as bank_store
from studio.store import judging as judge_store
from studio.store import labels as label_store


class GradedFormat(StrEnum):
    rubric = "rubric"
    nuggetizer = "nuggetizer"


def _format_for(method: str) -> GradedFormat:
    return GradedFormat.nuggetizer if method == "nugget-assign" else GradedFormat.rubric


def _newest_run(con: Connection, label_set: str) -> dict[str, Any]:
    run = judge_store.judge_run(con, newest_run(con, label_set)[0])
    if get_method(run["method"]).item_kind is None:
        raise UsageError(f"label set {label_set!r} holds no item grades (its judge ran {run['method']})")
    return run


def export_graded(
    db: Database, label_set: str, path: str | Path, *, ref: str | None = "human", min_grade: float = 4.0
) -> ExportReport:
    """The item grades of a rubric label set's newest judge run: a Rubric graded file for the
    exam and subtopic methods, nuggetizer assignments for `nugget-assign`."""
    con = db.cursor()
    run = _newest_run(con, label_set)
    bank = (run["params"].get("config") or {}).get("bank")
    bank_id = bank_store.bank_id(con, bank) if bank else None
    items = bank_store.current_items(con, bank_id) if bank_id is not None else []
    position = {(item.qid, item.item_id): n for n, item in enumerate(items)}
    rows = judge_store.item_judgments(con, run["run"])
    rows.sort(key=lambda r: (r[0], r[1], position.get((r[0], r[2]), len(position)), r[2]))
    judgments = [ItemJudgment(q, d, i, label, output, error) for q, d, i, label, error, output in rows]
    pairs = list(dict.fromkeys((j.qid, j.docid) for j in judgments))
    texts = pools.passage_texts(con, pairs)
    fmt = _format_for(run["method"])
    if fmt is GradedFormat.nuggetizer:
        queries = pools.topic_texts(con, [q for q, _ in pairs])
        text = write_nugget_assignments(judgments, items, texts, queries)
    else:
        ref_id = label_store.label_set_id(con, ref) if ref else None
        reference = (
            {(r.qid, r.docid): r.grade for r in label_store.current_labels(con, ref_id)} if ref_id is not None else None
        )
        grader = Grader(
            run["method"],
            run["model"],
            run["backend"],
            run["prompt_name"],
            run["prompt_hash"],
            dict(run["params"].get("options") or {}),
        )
        text = write_rubric_graded(grader, judgments, texts, reference, min_grade)
    target = deliver(text, path)
    failures = sum(j.grade is None for j in judgments)
    return ExportReport(
        f"{fmt} grades of",
        label_set,
        target,
        {"documents": len(pairs), "grades": len(judgments) - failures, "failures": failures},
    )


def _read(path: Path, llm: str | None) -> GradedFile:
    text = read_lines(path)
    first = first_text(text)[:1]
    if first == "[":
        return parse_rubric_graded(text, str(path), llm)
    if first == "{":
        return parse_nugget_assignments(text, str(path))
    raise InputError(str(path), 1, "expected a Rubric graded file ([qid, …] lines) or nuggetizer assignments")


def _bank_for(con: Connection, graded: GradedFile, bank: str, source: str, batch: int) -> list[BankItem]:
    """The bank's items, every graded item among them; nuggets of a nuggetizer file start a new bank."""
    bank_id = bank_store.bank_id(con, bank)
    if bank_id is None:
        if not graded.items:
            raise UsageError(f"no bank named {bank!r}: import the bank the grades refer to first")
        bank = check_name(bank, "bank")
        bank_id = bank_store.create_bank(con, bank, f"nuggets of {source}")
        events = [("add", item, n) for n, item in enumerate(graded.items)]
        bank_store.append_item_events(con, bank_id, events, origin="import", source=source, batch_id=batch)
    items = bank_store.current_items(con, bank_id)
    known = {(item.qid, item.item_id) for item in items}
    unknown = sorted({(j.qid, j.item_id) for j in graded.judgments} - known)
    if unknown:
        raise InputError(
            source,
            None,
            f"item {unknown[0][1]!r} of topic {unknown[0][0]!r} is not in bank {bank!r} ({len(unknown)} unknown items)",
        )
    return items


def import_graded(
    db: Database, path: Path, *, name: str, bank: str, llm: str | None = None, replace: bool = False
) -> ImportReport:
    """A graded file into label set `name` (one transaction: a bad file changes nothing)."""
    name = check_name(name, "label set")
    graded = _read(path, llm)
    method = get_method(graded.grader.method)
    source = str(path)
    con = db.cursor()
    if label_store.label_set_id(con, name) is not None and not replace:
        raise UsageError(f"label set {name!r} already exists (use --replace)")
    with db.transaction() as tx:
        batch = new_batch(tx, "import graded", source)
        items = _bank_for(tx, graded, bank, source, batch)
        set_id = label_store.label_set_id(tx, name) or label_store.create_label_set(
            tx, name, LabelSetKind.LLM.value, f"import:{path.name}"
        )
        run = _create_import_run(tx, set_id, graded, method, source, bank)
        _add_item_judgments(tx, run, graded, items)
        write_own_scores(
            tx,
            method,
            run,
            set_id,
            batch,
            f"import of {path.name}",
            [item for item in items if item.kind == method.item_kind],
        )
        failures = sum(cell.grade is None for cell in graded.judgments)
        pairs = len({(cell.qid, cell.docid) for cell in graded.judgments})
        judge_store.finish_judge_run(tx, run, pairs=pairs, calls=0, cache_hits=0, failures=failures)
    return ImportReport(
        "graded file",
        [source],
        [name],
        {"documents": pairs, "grades": len(graded.judgments) - failures, "failures": failures},
    )


def _create_import_run(tx: Connection, set_id: int, graded: GradedFile, method: Method, source: str, bank: str) -> int:
    """The judge run (backend `import` unless the file names one) that holds the file's grades."""
    config = {"method": method.name, "backend": "import", "pool": "import", "bank": bank}
    return judge_store.create_judge_run(
        tx,
        set_id,
        method=method.name,
        backend=graded.grader.backend or "import",
        model=graded.grader.model,
        prompt_name=graded.grader.prompt_name or method.prompt.name,
        prompt_hash=graded.grader.prompt_hash,
        params={"source": source, "options": graded.grader.options, "config": config},
        pool="import",
    )


def _add_item_judgments(tx: Connection, run: int, graded: GradedFile, items: list[BankItem]) -> None:
    """One judgment per graded cell, its raw answer kept as a call when the file has one."""
    texts = {(item.qid, item.item_id): item.text for item in items}
    for cell in graded.judgments:
        key = (
            ""
            if cell.output is None
            else store_imported_call(tx, graded.grader.model, (cell.qid, cell.docid, cell.item_id), cell.output)
        )
        judge_store.add_judgment(
            tx,
            run,
            cell.qid,
            cell.docid,
            None,
            key,
            label=cell.grade,
            parse_error=cell.error,
            expected=None,
            confidence=None,
            item_id=cell.item_id,
            item_hash=item_text_hash(texts[(cell.qid, cell.item_id)]),
        )
