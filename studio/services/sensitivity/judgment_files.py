"""A prompt study's judgment files into label sets linked to their prompts, in one transaction: one
file (`studio import qrels --prompt`), or a folder of them whose names give the prompt, model,
method and test collection (`studio import study`, docs/sensitivity.md).

A pointwise file's grades must lie on its method's scale (binary 0/1, graded 0–3): a grade off it
(one "4" in a binary file) is refused naming its file and line, or left out with a warning when
asked, never read as a grade of another scale. Pairwise files hold verdicts or raw answers per
order (ours, or the release's `qid high low regular|swapped first second A|B`), oriented by the
reference. A pair listed twice with different answers is refused unless `on_duplicate` keeps the
first or the last. Nothing is written unless every file reads.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from studio.domain.choices import OnDuplicate, OnDuplicateGrade, OutOfScale
from studio.domain.errors import InputError, UsageError, quoted
from studio.domain.import_report import ImportReport
from studio.domain.models import LabelSetKind
from studio.domain.names import check_name
from studio.domain.prompt_study import PreferenceRow
from studio.formats.prompt_collections import parse_preferences
from studio.formats.study_files import SCALES, off_scale_lines, scale_text
from studio.formats.text_input import TREC_LINE_BYTES, read_lines
from studio.formats.trec import parse_qrels
from studio.services.evaluation.engine import EvaluationEngine
from studio.services.imports.trec import require_files
from studio.services.sensitivity.prompt_collections import orient_raw, prompt_methods, resolve_prompt
from studio.services.writes.owners import refuse_owned
from studio.store import Connection, Database, FastPathRefused, new_batch, staged_scales
from studio.store import labels as label_store
from studio.store import prompt_collections as prompt_store
from studio.store.label_events import event_source_id

_GRADE_POLICY = {
    OnDuplicate.ERROR: OnDuplicateGrade.ERROR,
    OnDuplicate.FIRST: OnDuplicateGrade.FIRST,
    OnDuplicate.LAST: OnDuplicateGrade.LAST,
}


@dataclass(frozen=True)
class JudgmentFile:
    """One file of judgments and what made them; `method` None: the prompt's only pointwise one,
    else told by the grades (0/1 only: binary)."""

    path: Path
    name: str  # the label set
    prompt: str  # ID or COLLECTION/ID
    model: str
    collection: str
    method: str | None = None


@dataclass(frozen=True)
class JudgmentPolicy:
    """How the files are read: repeats, grades off the scale, the reference that orients raw
    preferences, whether existing label sets may be replaced, and the kind of the new ones."""

    on_duplicate: OnDuplicate = OnDuplicate.ERROR
    out_of_scale: OutOfScale = OutOfScale.ERROR
    ref: str = "human"
    replace: bool = False
    kind: LabelSetKind = LabelSetKind.LLM


@dataclass
class _Resolved:
    file: JudgmentFile
    collection: str  # the prompt collection
    prompt_id: str
    method: str
    verdicts: list[PreferenceRow] = field(default_factory=list)


def import_judgment_files(
    engine: EvaluationEngine, files: list[JudgmentFile], policy: JudgmentPolicy, warnings: list[str] | None = None
) -> ImportReport:
    """Every file into its own label set, linked; all in one transaction or nothing."""
    db = engine.db
    require_files([f.path for f in files])
    known: dict[str, tuple[str, str, list[str]]] = {}  # a prompt's collection, id and methods, looked up once
    resolved = [_resolve(db, f, known) for f in files]
    existing = _check_names(db.cursor(), resolved, policy)
    report = ImportReport("judgments", [str(f.path) for f in files], [r.file.name for r in resolved])
    report.warnings += warnings or []
    con = db.cursor()
    label_store.create_label_staging(con)
    try:
        for index, item in enumerate(resolved):
            report.warnings += _read(engine, con, index, item, policy)
        labels = events = 0
        pairs: list[tuple[int, PreferenceRow]] = []
        with db.transaction() as tx:
            batch = new_batch(tx, "import judgments", f"{len(files)} file(s)")
            fresh: list[tuple[int, int, int]] = []  # new sets' grades go in with one statement
            for index, item in enumerate(resolved):
                set_id = existing.get(item.file.name)
                source = str(item.file.path)
                if set_id is None:
                    set_id = label_store.create_label_set(tx, item.file.name, policy.kind.value, source)
                    fresh.append((index, set_id, event_source_id(tx, "import", source)))
                else:
                    label_store.describe_label_set(tx, set_id, policy.kind.value, source)
                    events += label_store.apply_staged_labels(
                        tx, set_id, index, origin="import", source=source, batch_id=batch, remove_missing=True
                    )
                    prompt_store.replace_verdicts(tx, set_id, [])
                pairs += [(set_id, row) for row in item.verdicts]
                prompt_store.link_label_set(
                    tx, set_id, item.collection, item.prompt_id, item.method, item.file.model, item.file.collection
                )
            events += staged_scales.apply_staged_to_new_sets(tx, fresh, batch)
            prompt_store.add_verdicts(tx, pairs)
            labels = label_store.staged_label_count(tx)
    finally:
        label_store.drop_label_staging(con)
    report.counts = {"label_sets": len(resolved), "labels": labels, "preference pairs": len(pairs), "events": events}
    return report


def _resolve(db: Database, file: JudgmentFile, known: dict[str, tuple[str, str, list[str]]]) -> _Resolved:
    """The file's prompt (in its collection) and method, checked against what the prompt has: a
    prompt with both pointwise methods needs the method named (the grades never tell it)."""
    if file.prompt not in known:
        try:
            collection, prompt_id = resolve_prompt(db, file.prompt)
        except UsageError as error:
            raise InputError(str(file.path), None, str(error)) from None
        known[file.prompt] = (collection, prompt_id, prompt_methods(db, collection, prompt_id))
    collection, prompt_id, methods = known[file.prompt]
    if file.method is not None:
        if file.method not in methods:
            raise InputError(
                str(file.path),
                None,
                f"prompt {collection}/{prompt_id} has no {file.method} prompt (it has {', '.join(methods)})",
            )
        return _Resolved(file, collection, prompt_id, file.method)
    pointwise = [m for m in methods if m != "pairwise"]
    if not pointwise:
        raise UsageError(f"prompt {file.prompt!r} has no binary or graded prompt: its judgments are preferences")
    if len(pointwise) > 1:
        raise UsageError(
            f"prompt {collection}/{prompt_id} has {' and '.join(pointwise)} prompts: name the file's with --method"
        )
    return _Resolved(file, collection, prompt_id, pointwise[0])


def _check_names(con: Connection, resolved: list[_Resolved], policy: JudgmentPolicy) -> dict[str, int]:
    """The ids of the label sets that exist (refused unless replacing); two files of one name refused."""
    seen: dict[str, Path] = {}
    for item in resolved:
        name = item.file.name
        if name in seen:
            raise UsageError(f"{seen[name]} and {item.file.path} would both be label set {name!r}")
        seen[name] = item.file.path
    found = {n: label_store.label_set_id(con, n) for n in seen}
    existing = {n: i for n, i in found.items() if i is not None}
    if existing and not policy.replace:
        shown = ", ".join(sorted(existing)[:5]) + (" …" if len(existing) > 5 else "")
        raise UsageError(f"label set {shown} already exists (use --replace)")
    refuse_owned(con, sorted(existing), "import --replace")
    for name, set_id in existing.items():
        info = label_store.label_set_info(con, set_id)
        if info is not None and info.kind != policy.kind.value:
            raise UsageError(f"label set {name!r} holds {info.kind} labels; a judge's labels go into its own set")
    return existing


def _read(engine: EvaluationEngine, con: Connection, index: int, item: _Resolved, policy: JudgmentPolicy) -> list[str]:
    """Stage a pointwise file's grades (checked against its scale), or read a pairwise file's verdicts."""
    path = item.file.path
    if item.method == "pairwise":
        return _read_preferences(engine, item, policy)
    grades = _GRADE_POLICY[policy.on_duplicate]
    warnings: list[str] = []
    try:
        label_store.stage_qrels_file(con, index, path)
    except FastPathRefused:
        try:
            parsed = parse_qrels(read_lines(path, TREC_LINE_BYTES), str(path), grades)
        except InputError as error:  # a judge's file keeps the first or the last grade, never the highest
            raise InputError(error.file, error.line, error.reason.replace("first|last|highest", "first|last")) from None
        label_store.stage_labels(con, index, parsed.rows)
        if parsed.repeated_pairs:
            warnings.append(f"{path}: {parsed.repeated_pairs} repeated pair(s) kept once")
    scale = SCALES[item.method]
    if staged_scales.staged_off_scale(con, index, scale):
        off = list(off_scale_lines(read_lines(path, TREC_LINE_BYTES), item.method))
        where = ", ".join(f"line {n} ({quoted(g)})" for n, g in off[:5]) + (" …" if len(off) > 5 else "")
        if policy.out_of_scale is OutOfScale.ERROR:
            number, grade = off[0]
            raise InputError(
                str(path),
                number,
                f"grade {quoted(grade)} is off the {item.method} scale {scale_text(item.method)}"
                f" ({len(off)} such line(s); --out-of-scale skip leaves them out)",
            )
        staged_scales.drop_staged_off_scale(con, index, scale)
        warnings.append(f"{path}: {len(off)} grade(s) off the {item.method} scale left out: {where}")
    return warnings


def _read_preferences(engine: EvaluationEngine, item: _Resolved, policy: JudgmentPolicy) -> list[str]:
    path = item.file.path
    verdicts, raw = parse_preferences(read_lines(path), str(path), policy.on_duplicate)
    warnings: list[str] = []
    if raw:
        if label_store.label_set_id(engine.db.cursor(), policy.ref) is None:
            raise UsageError(f"raw preferences need the reference {policy.ref!r} to tell the better passage")
        reference = {q: dict(t.judged) for q, t in engine.evaluator(policy.ref).labels.items()}
        oriented, warnings = orient_raw(raw, reference, str(path))
        verdicts = verdicts + oriented
    item.verdicts = verdicts
    return warnings


def checked_file(path: Path, name: str, prompt: str, model: str, collection: str, method: str | None) -> JudgmentFile:
    """A JudgmentFile whose names are checked."""
    return JudgmentFile(
        path,
        check_name(name, "label set"),
        prompt,
        check_name(model, "model"),
        check_name(collection, "test collection"),
        method,
    )
