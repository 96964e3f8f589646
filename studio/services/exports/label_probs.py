"""`studio export probs`: a label set's label distributions in the CSV layout `studio import probs`
reads (`studio.formats.label_probs`)."""

from __future__ import annotations

import json
from pathlib import Path

from studio.domain.errors import UsageError
from studio.domain.export_report import ExportReport
from studio.domain.numbers import read_integer
from studio.formats.label_probs import PairProbs, write_label_probs
from studio.services.exports.delivery import deliver
from studio.store import Database
from studio.store import judge_outputs as output_store
from studio.store import labels as label_store


def export_label_probs(db: Database, label_set: str, path: str | Path) -> ExportReport:
    """The distributions of the label set's newest judge run, a row per judged pair that has one
    (topic, then docid order). Labels that are no integer grades are left out, with a warning."""
    con = db.cursor()
    set_id = label_store.label_set_id(con, label_set)
    if set_id is None:
        raise UsageError(f"no label set named {label_set!r} (see `studio list qrels`)")
    found = output_store.newest_run_distributions(con, set_id)
    if not found:
        raise UsageError(f"label set {label_set!r} was not made by a judge")
    rows: list[PairProbs] = []
    dropped: set[str] = set()
    for qid, docid, stored in found:
        if not stored:
            continue
        probs: dict[int, float] = {}
        for label, p in json.loads(stored).items():
            grade = read_integer(label)
            if grade is None or grade < 0:
                dropped.add(label)
            else:
                probs[grade] = float(p)
        if probs:
            rows.append(PairProbs(str(qid), str(docid), probs))
    if not rows:
        raise UsageError(f"label set {label_set!r} holds no label distributions")
    warnings = []
    if len(rows) < len(found):
        warnings.append(f"{len(found) - len(rows)} judged pair(s) without a distribution are left out")
    if dropped:
        warnings.append(f"labels that are no grades are left out: {', '.join(sorted(dropped))}")
    target = deliver(write_label_probs(rows), path)
    return ExportReport("label probabilities of", label_set, target, {"pairs": len(rows)}, warnings)
