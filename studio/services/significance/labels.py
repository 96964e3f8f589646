"""Which labels a run pair's decision hangs on: for each label of the audited set that the
reference grades otherwise, on a document either run ranks within the measure's depth, the
change in the pair's difference were that label to take the reference's grade."""

from __future__ import annotations

import math

import numpy as np

from studio.domain.errors import UsageError
from studio.domain.significance import DecisionLabel, DecisionLabels
from studio.metrics.evaluator import Evaluator
from studio.services.evaluation.engine import EvaluationEngine, measure_of


def _pair_delta(matrix: np.ndarray, a: int, b: int) -> float:
    """mean(a) − mean(b) over the topics both runs have (NaN without one)."""
    d = matrix[:, a] - matrix[:, b]
    shared = np.isfinite(d)
    return float(d[shared].mean()) if shared.any() else math.nan


def decision_labels(
    engine: EvaluationEngine, ref: str, qrels: str, run_a: str, run_b: str, measure: str = "nDCG@10"
) -> DecisionLabels:
    """The audited set's labels that move the pair's delta, the largest |change| first; only the
    pairs both sets label and grade differently (those the Review queue holds)."""
    m = measure_of(measure)
    audited = engine.evaluator(qrels)
    runs = {name: r for r, name in enumerate(audited.runs)}
    for name in (run_a, run_b):
        if name not in runs:
            raise UsageError(f"no run named {name!r} (see `studio list runs`)")
    if run_a == run_b:
        raise UsageError("name two different runs")
    a, b = runs[run_a], runs[run_b]
    ref_labels = engine.evaluator(ref).labels
    # A scratch copy takes the edits: the cached evaluator stays as it is.
    scratch = Evaluator(
        engine.rankings(),
        {q: dict(t.judged) for q, t in audited.labels.items()},
        {q: dict(t.numbers) for q, t in audited.labels.items()},
    )
    matrix = scratch.per_topic(m)  # updated in place by set_label
    before = _pair_delta(matrix, a, b)
    found: list[DecisionLabel] = []
    for qid in scratch.qids:  # the labelled topics, in trec_eval's order
        mine, theirs, topic = audited.labels.get(qid), ref_labels.get(qid), engine.rankings().topics.get(qid)
        if mine is None or theirs is None or topic is None:
            continue
        depth = m.cutoff
        retrieved: dict[str, list[str]] = {}
        for name, r in ((run_a, a), (run_b, b)):
            numbers = topic.order[r, : topic.lengths[r] if depth is None else min(depth, topic.lengths[r])]
            for number in numbers.tolist():
                retrieved.setdefault(topic.docids[number], []).append(name)
        for docid, by in retrieved.items():
            grade, ref_grade = mine.judged.get(docid), theirs.judged.get(docid)
            if grade is None or ref_grade is None or grade == ref_grade:
                continue
            scratch.set_label(qid, docid, ref_grade)
            after = _pair_delta(matrix, a, b)
            scratch.set_label(qid, docid, grade)
            found.append(
                DecisionLabel(
                    qid=qid, docid=docid, grade=grade, ref_grade=ref_grade, change=after - before, retrieved_by=by
                )
            )
    found.sort(key=lambda row: (-abs(row["change"]), row["qid"], row["docid"]))
    ref_delta = _pair_delta(engine.evaluator(ref).per_topic(m), a, b)
    return DecisionLabels(
        ref=ref,
        qrels=qrels,
        measure=str(m),
        run_a=run_a,
        run_b=run_b,
        delta=None if math.isnan(before) else before,
        ref_delta=None if math.isnan(ref_delta) else ref_delta,
        labels=found,
    )
