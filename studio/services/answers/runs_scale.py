"""Answers on the runs' scale (the thesis, Section 5.1.4; `studio answers runs`): how close is a
generated answer to the best-judged passages, compared with what runs retrieve?

For each topic the targets are its top-grade passages under the reference. A run's similarity is
the mean, over (topic, target), of the cosine between the target and the run's first retrieved
passage that is not the target (trec_eval's order); a system's is the mean cosine between its
answer and the same targets. Runs are placed against their measure (nDCG@10 by default) on the same
topics, with Kendall τ-b between similarity and measure; systems, which have no measure, form a
band of similarities. Needs the embeddings extra.
"""

from __future__ import annotations

import math

import numpy as np

from studio.domain.answer_results import RunsScale, ScaleRow
from studio.domain.errors import UsageError
from studio.domain.models import ANSWER_PREFIX
from studio.judges.embedder import Embedder, TextEmbedder
from studio.metrics.categories import categories
from studio.metrics.correlation import kendall_tau_b
from studio.metrics.rankings import UNRANKED, Rankings
from studio.services.evaluation.engine import EvaluationEngine, measure_of
from studio.services.judging.embeddings import PairVectors, embed_pairs
from studio.store import catalog
from studio.store.evaluation import load_labels

Pair = tuple[str, str]


def targets_of(engine: EvaluationEngine, ref: str) -> dict[str, list[str]]:
    """{qid: the top-grade passages under `ref`} for topics whose top grade is relevant (≥ 1)."""
    ref_id = engine.label_set_id(ref)
    found = {qid: categories(grades)["best"] for qid, grades in load_labels(engine.db.cursor(), ref_id).items()}
    return {qid: docs for qid, docs in found.items() if docs}


def first_others(rankings: Rankings, run: int, qid: str, targets: list[str]) -> list[tuple[str, str]]:
    """(target, the run's first retrieved passage that is not it) for each target the run can pair."""
    topic = rankings.topics.get(qid)
    if topic is None or topic.lengths[run] == 0:
        return []
    order = topic.order[run]
    ranked = [topic.docids[d] for d in order[order != UNRANKED][: len(targets) + 1]]
    return [(t, next(d for d in ranked if d != t)) for t in targets if any(d != t for d in ranked)]


def runs_scale(
    engine: EvaluationEngine,
    ref: str,
    *,
    measure: str = "nDCG@10",
    embedder: TextEmbedder | None = None,
    model: str | None = None,
) -> RunsScale:
    """The table behind the scatter: every run and every system, and τ between the runs' two columns."""
    m = measure_of(measure)
    targets = targets_of(engine, ref)
    answers = {(r.qid, r.system) for r in catalog.responses_of(engine.db.cursor())}
    answered = {qid for qid, _ in answers}
    qids = sorted((set(targets) & answered) if answered else set(targets), key=lambda q: q.encode("utf-8"))
    if not qids:
        raise UsageError(
            f"no topic with a relevant top-grade passage under {ref!r}" + (" and an answer" if answered else "")
        )
    rankings = engine.rankings()
    pairs = {r: {q: first_others(rankings, r, q, targets[q]) for q in qids} for r in range(len(rankings.runs))}
    needed = [(q, t) for q in qids for t in targets[q]] + [
        (q, d) for by in pairs.values() for q, ps in by.items() for _, d in ps
    ]
    needed += [(q, ANSWER_PREFIX + s) for q, s in sorted(answers) if q in targets]
    embedder = embedder or Embedder(model)
    embedded = embed_pairs(engine.db, embedder, needed)
    values = engine.evaluator(ref).means(m, topics=qids)
    rows = [_run_row(name, pairs[r], embedded, values[r]) for r, name in enumerate(rankings.runs)]
    systems = sorted({s for _, s in answers})
    system_rows = [_system_row(s, {q: targets[q] for q in qids if (q, s) in answers}, embedded) for s in systems]
    scored = [
        (row["similarity"], row["measure"])
        for row in rows
        if row["similarity"] is not None and row["measure"] is not None
    ]
    tau = kendall_tau_b(np.array([x for x, _ in scored]), np.array([y for _, y in scored])) if scored else math.nan
    band = [row["similarity"] for row in system_rows if row["similarity"] is not None]
    return RunsScale(
        ref=ref,
        measure=str(m),
        model=embedder.name,
        topics=len(qids),
        targets=sum(len(targets[q]) for q in qids),
        kendall_tau=None if math.isnan(tau) else float(tau),
        band=[min(band), max(band)] if band else [],
        rows=_ordered(rows) + _ordered(system_rows),
    )


def _cosines(embedded: PairVectors, pairs: list[tuple[Pair, Pair]]) -> list[float]:
    rows = embedded.row_of
    vectors = embedded.vectors.astype(np.float64)
    return [float(vectors[rows[a]] @ vectors[rows[b]]) for a, b in pairs if a in rows and b in rows]


def _run_row(name: str, by_topic: dict[str, list[tuple[str, str]]], embedded: PairVectors, value: float) -> ScaleRow:
    found = _cosines(embedded, [((q, t), (q, d)) for q, ps in by_topic.items() for t, d in ps])
    return ScaleRow(
        kind="run",
        name=name,
        similarity=float(np.mean(found)) if found else None,
        measure=None if math.isnan(value) else float(value),
        comparisons=len(found),
        topics=sum(bool(ps) for ps in by_topic.values()),
    )


def _system_row(system: str, targets: dict[str, list[str]], embedded: PairVectors) -> ScaleRow:
    found = _cosines(embedded, [((q, t), (q, ANSWER_PREFIX + system)) for q, ts in targets.items() for t in ts])
    return ScaleRow(
        kind="system",
        name=system,
        similarity=float(np.mean(found)) if found else None,
        measure=None,
        comparisons=len(found),
        topics=len(targets),
    )


def _ordered(rows: list[ScaleRow]) -> list[ScaleRow]:
    return sorted(rows, key=lambda r: (r["similarity"] is None, -(r["similarity"] or 0.0), r["name"]))
