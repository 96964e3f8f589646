"""`studio import answer-labels`: one system's verdict file (the Gen-IR comparison's layouts) into an
answers label set, in one transaction.

The verdicts become label events on (topic, `answer/<system>`) pairs, so every edit of them later is
an ordinary audited label event; the file itself is kept as a judge run of backend `import` (method
binary, graded, subtopic or pairwise) whose judgments hold what the label cannot: each subtopic
entry (item `qid#i`, entry 0 the query), and each order of a preference with the exemplar shown
(label 1 when the passage shown first was preferred, 2 the second, as the studio's pairwise judge
answers). One import per system file adds that system's verdicts to the set.
"""

from __future__ import annotations

from pathlib import Path

from studio.domain.answer_verdicts import (
    AnswerVerdict,
    BinaryVerdict,
    GradedVerdict,
    PreferenceVerdict,
    SubtopicVerdict,
)
from studio.domain.choices import AnswerMethod
from studio.domain.errors import UsageError
from studio.domain.import_report import ImportReport
from studio.domain.models import ANSWER_PREFIX, LabelSetKind
from studio.domain.names import check_name
from studio.formats.answer_verdicts import DEFAULT_SCALE, parse_answer_verdicts
from studio.formats.text_input import read_lines
from studio.services.answers.sets import judged_method
from studio.services.imports.judgments import store_imported_call
from studio.services.imports.trec import require_files
from studio.services.writes.owners import refuse_owned
from studio.store import Connection, Database, catalog, new_batch, pools
from studio.store import judging as judge_store
from studio.store import labels as label_store
from studio.store.evaluation import load_labels

# The judge method each layout's run is kept under (what `studio judges list` shows).
RUN_METHODS = {
    AnswerMethod.binary: "binary",
    AnswerMethod.graded: "graded",
    AnswerMethod.subtopics: "subtopic",
    AnswerMethod.preferences: "pairwise",
}


def import_answer_labels(
    db: Database,
    path: Path,
    *,
    system: str,
    method: AnswerMethod,
    name: str,
    model: str | None = None,
    scale: int = DEFAULT_SCALE,
    replace: bool = False,
) -> ImportReport:
    """`system`'s verdicts from `path` into label set `name` (created when new)."""
    require_files([path])
    system, name = check_name(system, "system"), check_name(name, "label set")
    if method not in RUN_METHODS:
        raise UsageError(f"answer verdict files come as {', '.join(RUN_METHODS)}, not {method}")
    verdicts = parse_answer_verdicts(read_lines(path), str(path), method, scale=scale)
    con = db.cursor()
    set_id = _usable_set(con, name, method, system, replace=replace)
    docid = ANSWER_PREFIX + system
    with db.transaction() as tx:
        batch = new_batch(tx, "import answer-labels", str(path))
        if set_id is None:
            set_id = label_store.create_label_set(tx, name, LabelSetKind.LLM.value, str(path))
        run = _record_run(tx, set_id, path, system, method, model or "imported", scale, verdicts)
        events = _write_labels(tx, set_id, docid, verdicts, batch, str(path))
    report = ImportReport("answer-labels", [str(path)], [name], {"verdicts": len(verdicts), "events": events})
    report.warnings += _warnings(db, system, verdicts)
    report.counts["judge_run"] = run
    return report


def _usable_set(con: Connection, name: str, method: AnswerMethod, system: str, *, replace: bool) -> int | None:
    """The set's id (None: new), once it is known to take these verdicts."""
    set_id = label_store.label_set_id(con, name)
    if set_id is None:
        return None
    refuse_owned(con, [name], "import answer-labels")
    info = label_store.label_set_info(con, set_id)
    assert info is not None
    held = judged_method(con, set_id)
    if held != method:
        holds = f"{held} verdicts" if held is not None else f"{info.kind} labels no answer verdict file made"
        raise UsageError(f"label set {name!r} holds {holds}: give {method} verdicts another set (--name)")
    answered = {q for q, docs in load_labels(con, set_id).items() if ANSWER_PREFIX + system in docs}
    if answered and not replace:
        raise UsageError(f"label set {name!r} holds verdicts on {system!r}'s answers already (use --replace)")
    return set_id


def _record_run(
    tx: Connection,
    set_id: int,
    path: Path,
    system: str,
    method: AnswerMethod,
    model: str,
    scale: int,
    verdicts: list[AnswerVerdict],
) -> int:
    """The file as a finished judge run of backend `import`, each verdict's parts as judgments."""
    params: dict[str, object] = {"source": str(path), "answers": method.value, "system": system}
    if method is AnswerMethod.graded:
        params["scale"] = scale
    ids = sorted({v.system_id for v in verdicts if isinstance(v, PreferenceVerdict)})
    if ids:
        params["release_system"] = ids[0]
    run = judge_store.create_judge_run(
        tx,
        set_id,
        method=RUN_METHODS[method],
        backend="import",
        model=model,
        prompt_name="imported",
        prompt_hash="",
        params=params,
        pool="import",
    )
    answer = ANSWER_PREFIX + system
    judged: set[tuple[str, str]] = set()
    for verdict in verdicts:
        for docid, docid_b, item, label, raw in _judgments(verdict, answer):
            key = store_imported_call(tx, model, (verdict.qid, docid, docid_b, item), raw)
            judge_store.add_judgment(
                tx,
                run,
                verdict.qid,
                docid,
                docid_b,
                key,
                label=label,
                parse_error=None,
                expected=None,
                confidence=None,
                item_id=item,
            )
            judged.add((verdict.qid, docid))
    judge_store.finish_judge_run(tx, run, pairs=len(judged), calls=0, cache_hits=0, failures=0)
    return run


JudgmentParts = tuple[str, str | None, str | None, float, str]


def _judgments(verdict: AnswerVerdict, answer: str) -> list[JudgmentParts]:
    """(docid, docid_b, item, label, raw answer) of each judgment a verdict is kept as."""
    if isinstance(verdict, BinaryVerdict):
        return [(answer, None, None, verdict.value, verdict.word)]
    if isinstance(verdict, GradedVerdict):
        return [(answer, None, None, verdict.value, str(verdict.grade))]
    if isinstance(verdict, SubtopicVerdict):
        return [
            (answer, None, f"{verdict.qid}#{i}", 1.0 if yes else 0.0, "Yes" if yes else "No")
            for i, yes in enumerate(verdict.entries)
        ]
    found: list[JudgmentParts] = []
    for order in verdict.orders:
        first, second = (answer, verdict.exemplar) if order.answer_first else (verdict.exemplar, answer)
        found.append((first, second, None, 1.0 if order.first_picked else 2.0, "a" if order.first_picked else "b"))
    return found


def _write_labels(
    tx: Connection, set_id: int, docid: str, verdicts: list[AnswerVerdict], batch: int, source: str
) -> int:
    """A label event per verdict that changes the set; the system's topics the file leaves out lose theirs."""
    current = {q: docs[docid] for q, docs in load_labels(tx, set_id).items() if docid in docs}
    events = 0
    for verdict in verdicts:
        if current.get(verdict.qid) != verdict.value:
            label_store.append_label_event(
                tx, set_id, verdict.qid, docid, verdict.value, origin="import", source=source, batch_id=batch
            )
            events += 1
    for qid in sorted(set(current) - {v.qid for v in verdicts}):  # replaced: the file is the system's verdicts now
        label_store.append_label_event(tx, set_id, qid, docid, None, origin="import", source=source, batch_id=batch)
        events += 1
    return events


def _warnings(db: Database, system: str, verdicts: list[AnswerVerdict]) -> list[str]:
    """What the verdicts name that the project does not hold: kept all the same, said."""
    con = db.cursor()
    found = []
    if system not in catalog.response_systems(con):
        found.append(f"no answers of {system!r} are loaded: its verdicts are kept, its answers cannot be shown")
    qids = sorted({v.qid for v in verdicts})
    unknown = [q for q in qids if q not in pools.topic_texts(con, qids)]
    if unknown:
        found.append(f"{len(unknown)} topic(s) the project does not know, e.g. {unknown[0]!r}")
    return found
