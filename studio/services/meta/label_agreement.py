"""How alike two label sets grade the pairs both label: κ, Krippendorff's α, confusion, alignment."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import numpy as np

from studio.domain.comparisons import Agreement, AlignmentBucket, Thresholds
from studio.domain.frames import EVERY_TOPIC, ComparisonFrame, TopicChoice
from studio.metrics import agreement as agree
from studio.services.evaluation.engine import EvaluationEngine
from studio.services.meta.frame import comparison_frame
from studio.services.meta.unreachable_levels import threshold_warnings

Grades = Mapping[str, Mapping[str, float]]


def finite(value: float | None) -> float | None:
    """JSON has no NaN: undefined statistics are reported as null."""
    return None if value is None or np.isnan(value) else float(value)


def shared_pairs(ref: Grades, aud: Grades) -> Iterator[tuple[str, str, float, float]]:
    """(qid, docid, reference grade, other grade) of every pair both sides label."""
    for qid, grades in ref.items():
        other = aud.get(qid)
        if not other:
            continue
        for docid, grade in grades.items():
            if docid in other:
                yield qid, docid, grade, other[docid]


def default_threshold(grades: np.ndarray) -> float:
    """Binary relevance threshold: ≥ 2 on graded (0–3) scales, ≥ 1 on binary ones."""
    return 2.0 if len(grades) and grades.max() > 1 else 1.0


def framed_grades(engine: EvaluationEngine, frame: ComparisonFrame) -> tuple[Grades, Grades]:
    """Each side's grades on the frame's common topics: the only topics where both label a pair."""
    common = set(frame.common)
    ref_labels = engine.evaluator(frame.ref).labels
    aud_labels = engine.evaluator(frame.qrels).labels
    return (
        {q: t.judged for q, t in ref_labels.items() if q in common},
        {q: t.judged for q, t in aud_labels.items() if q in common},
    )


def agreement(
    engine: EvaluationEngine,
    ref: str,
    qrels: str,
    *,
    topics: TopicChoice = EVERY_TOPIC,
    ref_threshold: float | None = None,
    threshold: float | None = None,
    relevant: float = 1.0,
) -> Agreement:
    """κ (binary, graded, weighted), Krippendorff's α, confusion, per-topic κ and alignment of the
    pairs both label (on the topics both label: whatever the scope, a pair both label lies there)."""
    frame = comparison_frame(engine, ref, qrels, topics)
    ref_labels, aud_labels = framed_grades(engine, frame)
    pairs = list(shared_pairs(ref_labels, aud_labels))
    a = np.array([p[2] for p in pairs], dtype=np.float64)
    b = np.array([p[3] for p in pairs], dtype=np.float64)
    ref_t = ref_threshold if ref_threshold is not None else default_threshold(a)
    aud_t = threshold if threshold is not None else default_threshold(b)
    categories = agree.categories_of(a, b)
    per_topic: dict[str, float | None] = {}
    qids = np.array([p[0] for p in pairs], dtype=object)  # one pass: a mask per topic compares in C
    for qid in sorted({p[0] for p in pairs}, key=lambda q: q.encode("utf-8")):
        mask = qids == qid
        per_topic[qid] = finite(agree.cohen_kappa(a[mask], b[mask]))
    return Agreement(
        ref=ref,
        qrels=qrels,
        pairs=len(pairs),
        thresholds=Thresholds(ref=ref_t, qrels=aud_t),
        warnings=threshold_warnings(engine, ref, qrels, ref_t, aud_t) + frame.warnings(),
        kappa_binary=finite(agree.binary_kappa(a, b, ref_t, aud_t)),
        kappa_graded=finite(agree.cohen_kappa(a, b)),
        kappa_linear=finite(agree.cohen_kappa(a, b, "linear")),
        kappa_quadratic=finite(agree.cohen_kappa(a, b, "quadratic")),
        krippendorff_alpha=finite(agree.krippendorff_alpha_ordinal(a, b)),
        categories=categories,
        confusion=agree.confusion_matrix(a, b, categories).tolist(),
        more_lenient=float((b > a).mean()) if len(pairs) else None,
        stricter=float((b < a).mean()) if len(pairs) else None,
        per_topic_kappa=per_topic,
        alignment=alignment(ref_labels, aud_labels, relevant),
        topics=frame.topics,
        frame=frame.as_json(),
    )


def alignment(ref_labels: Grades, aud_labels: Grades, relevant: float) -> dict[str, AlignmentBucket]:
    """Agreement with the reference's order per category pair; a pair of categories without
    document pairs has undefined rates: null, not NaN."""
    return {
        pair: AlignmentBucket(
            pairs=int(bucket["pairs"]),
            agree=finite(bucket["agree"]),
            tie=finite(bucket["tie"]),
            disagree=finite(bucket["disagree"]),
        )
        for pair, bucket in agree.alignment(ref_labels, aud_labels, relevant).items()
    }
