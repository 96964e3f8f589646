"""The FD@k leaderboard (Arabzadeh & Clarke 2024): per run, the Fréchet distance between the
embeddings of what the run retrieves and those of what the label set calls relevant, so it needs no
label for the retrieved documents; through the project's embedding cache (`services/judging/
embeddings.py`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import chain

import numpy as np

from studio.domain.embedding_results import FdLeaderboard, FdRow
from studio.domain.errors import UsageError
from studio.judges.embedder import Embedder, TextEmbedder
from studio.metrics.correlation import kendall_tau_b
from studio.metrics.frechet import frechet_distance
from studio.metrics.rankings import UNRANKED, Rankings
from studio.services.evaluation.engine import EvaluationEngine, measure_of
from studio.services.judging.embeddings import Pair, embed_pairs
from studio.services.meta.label_agreement import default_threshold


def fd_leaderboard(
    engine: EvaluationEngine,
    qrels: str,
    *,
    k: int = 10,
    unjudged_only: bool = False,
    relevant: float | None = None,
    embedder: TextEmbedder | None = None,
    model: str | None = None,
    ref_measure: str = "nDCG@10",
) -> FdLeaderboard:
    """FD@k of every run: the Fréchet distance between the embeddings of its top k documents and
    those of the documents `qrels` judges relevant, each pooled over the label set's topics
    (lower is better), with Kendall τ-b between −FD and the `qrels` leaderboard under `ref_measure`.

    With `unjudged_only`, only the top-k documents `qrels` did not judge count: the variant that
    still ranks runs when the labels are sparse.
    """
    if k < 1:
        raise UsageError(f"k must be at least 1, not {k}")
    measure = measure_of(ref_measure)
    evaluator = engine.evaluator(qrels)
    judged = {qid: labels.judged for qid, labels in evaluator.labels.items()}
    grades = [g for docs in judged.values() for g in docs.values()]
    threshold = relevant if relevant is not None else default_threshold(np.array(grades))
    relevant_pairs = [
        (qid, d) for qid, docs in sorted(judged.items()) for d, g in sorted(docs.items()) if g >= threshold
    ]
    rankings = engine.rankings()
    retrieved = retrieved_pairs(rankings, evaluator.qids, judged, k, unjudged_only=unjudged_only)
    embedder = embedder or Embedder(model)
    embedded = embed_pairs(engine.db, embedder, chain(relevant_pairs, *retrieved))
    target = embedded.of(relevant_pairs)
    found = [embedded.of(pairs) for pairs in retrieved]
    fd = np.array([frechet_distance(vectors, target) for vectors in found])  # NaN below two vectors on either side
    defined = ~np.isnan(fd)
    tau = kendall_tau_b(evaluator.means(measure)[defined], -fd[defined])
    return {
        "qrels": qrels,
        "measure": f"FD@{k}" + ("(unjudged)" if unjudged_only else ""),
        "k": k,
        "model": embedder.name,
        "relevant": threshold,
        "ref_measure": ref_measure,
        "rows": fd_rows(rankings.runs, fd, [len(vectors) for vectors in found]),
        "kendall_tau": None if np.isnan(tau) else tau,
        "relevant_documents": len(target),
    }


def retrieved_pairs(
    rankings: Rankings, qids: Sequence[str], judged: Mapping[str, Mapping[str, float]], k: int, *, unjudged_only: bool
) -> list[list[Pair]]:
    """Per run, the pairs of its top `k` documents on the label set's topics (without the judged
    ones with `unjudged_only`)."""
    retrieved: list[list[Pair]] = []
    for r in range(len(rankings.runs)):
        pairs: list[Pair] = []
        for qid in qids:  # as trec_eval: a topic the label set does not cover is not evaluated
            topic = rankings.topics.get(qid)
            if topic is None or qid not in judged:
                continue
            order = topic.order[r, :k]
            pairs.extend(
                (qid, topic.docids[d])
                for d in order[order != UNRANKED]
                if not unjudged_only or topic.docids[d] not in judged[qid]
            )
        retrieved.append(pairs)
    return retrieved


def fd_rows(runs: Sequence[str], fd: np.ndarray, documents: list[int]) -> list[FdRow]:
    """One row per run, best (lowest FD) first; runs without an FD last."""
    rows: list[FdRow] = [
        {"run": run, "value": None if np.isnan(v) else v, "documents": n}
        for run, v, n in zip(runs, fd.tolist(), documents, strict=True)
    ]
    rows.sort(key=lambda row: (row["value"] is None, row["value"] or 0.0, row["run"]))
    return rows
