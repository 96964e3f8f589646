"""`studio import probs`: per-pair label probabilities (an LLM's, as LARA publishes them) into an
LLM label set whose labels are the most probable grades, the distributions kept where a judge run
keeps its own (the call's `label_probs`, the judgment's expected grade and confidence), so
calibration, ensembles and audits use them as they use a judge's."""

from __future__ import annotations

from pathlib import Path

from studio.domain.import_report import ImportReport
from studio.domain.models import LabelSetKind, QrelsRow
from studio.formats.judgments import JudgmentRecord
from studio.formats.label_probs import PairProbs, parse_label_probs
from studio.formats.text_input import read_text
from studio.services.imports.judgments import record_imported_judgments
from studio.services.imports.trec import _import_label_files
from studio.store import Connection, Database
from studio.store import labels as label_store


def method_for(grades: set[int]) -> str:
    """The judging method a distribution's grades suggest: 0/1 binary, 0–3 UMBRELA, else graded."""
    return "binary" if grades == {0, 1} else "umbrela" if grades == {0, 1, 2, 3} else "graded"


def judgment_of(pair: PairProbs, method: str) -> JudgmentRecord:
    """A pair's distribution as an imported judgment: the most probable grade is its label and its
    raw answer, the highest probability its confidence."""
    label = pair.label
    return JudgmentRecord(
        pair.qid,
        pair.docid,
        float(label),
        prediction=str(label),
        method=method,
        confidence=max(pair.probs.values()),
        expected=pair.expected,
        label_probs={str(grade): p for grade, p in pair.probs.items()},
    )


def import_label_probs(db: Database, path: Path, *, name: str | None = None, replace: bool = False) -> ImportReport:
    """The probabilities CSV (`studio.formats.label_probs`) into an LLM label set named `name`
    (default: the file's name) with a judge run holding the distributions; all or nothing."""
    records: list[JudgmentRecord] = []

    def stage(con: Connection, index: int, source: Path) -> list[str]:
        pairs = parse_label_probs(read_text(source), str(source))
        method = method_for({grade for pair in pairs for grade in pair.probs})
        records.extend(judgment_of(pair, method) for pair in pairs)
        label_store.stage_labels(con, index, [QrelsRow(r.qid, r.docid, r.label or 0.0) for r in records])
        return []

    def after(tx: Connection, index: int, set_id: int, source: Path) -> None:
        record_imported_judgments(tx, set_id, source, records)

    report = _import_label_files(
        db, [path], "label probabilities", stage, name=name, kind=LabelSetKind.LLM, replace=replace, after=after
    )
    report.counts["distributions"] = len(records)
    return report
