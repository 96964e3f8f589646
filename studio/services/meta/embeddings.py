"""Embedding-based evaluation: the embedding judge (Arabzadeh et al. 2024) and the FD@k
leaderboard (Arabzadeh & Clarke 2024), both through the project's embedding cache.

The judge labels a (topic, document) pair with the highest cosine similarity between the
document (or generated answer) and the topic's exemplars: the documents with the topic's
highest reference grade. FD@k compares, per run, the embeddings of what the run retrieves with
those of what the label set calls relevant, so it needs no label for the retrieved documents.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import chain
from typing import NamedTuple

import numpy as np

from studio.domain.embedding_results import FdLeaderboard, FdRow
from studio.domain.errors import UsageError
from studio.domain.judging import JudgeConfig, JudgeSummary
from studio.judges.embedder import Embedder, TextEmbedder
from studio.metrics.correlation import kendall_tau_b
from studio.metrics.frechet import frechet_distance
from studio.metrics.rankings import UNRANKED, Rankings
from studio.services.evaluation.engine import EvaluationEngine, measure_of
from studio.services.judging.config import rerunnable
from studio.services.judging.pools import pool_pairs
from studio.services.judging.run import judge_label_set
from studio.services.meta.label_agreement import default_threshold
from studio.store import Database, new_batch, pools
from studio.store import embeddings as embedding_store
from studio.store import judging as judge_store
from studio.store import labels as label_store
from studio.store.evaluation import load_labels

METHOD = "embedding"
BACKEND = "sentence-transformers"
EXEMPLAR_RULE = "the documents with the topic's highest reference grade (≥ 1), the judged document left out"

Pair = tuple[str, str]


def text_hash(text: str) -> str:
    """The embedding cache's key of a text (with the model's name)."""
    return hashlib.md5(text.encode("utf-8")).hexdigest()


@dataclass
class Embedded:
    vectors: np.ndarray  # one row per text asked for, in order
    encoded: int  # distinct texts the model encoded
    cached: int  # distinct texts found in the cache


def embed_counted(db: Database, embedder: TextEmbedder, texts: list[str]) -> Embedded:
    """Vectors of `texts` through the cache: only the texts not cached yet are encoded, and
    they are stored in one transaction."""
    hashes = [text_hash(text) for text in texts]
    distinct = dict(zip(hashes, texts, strict=True))
    found = embedding_store.cached_vectors(db.cursor(), embedder.name, list(distinct))
    missing = [h for h in distinct if h not in found]
    if missing:
        vectors = embedder.encode([distinct[h] for h in missing])
        if len(vectors) != len(missing):
            raise RuntimeError(f"the embedder returned {len(vectors)} vectors for {len(missing)} texts")
        with db.transaction() as tx:
            embedding_store.store_vectors(tx, embedder.name, missing, vectors)
        found.update(zip(missing, np.asarray(vectors, dtype=np.float32), strict=True))
    stacked = np.stack([found[h] for h in hashes]) if hashes else np.zeros((0, 0), dtype=np.float32)
    return Embedded(stacked, len(missing), len(distinct) - len(missing))


def embed(db: Database, embedder: TextEmbedder, texts: list[str]) -> np.ndarray:
    """L2-normalised vectors of `texts` (one row each), encoding only the texts not cached."""
    return embed_counted(db, embedder, texts).vectors


@dataclass
class PairVectors:
    """The embeddings of (topic, document) pairs' texts: one row per pair with a text."""

    vectors: np.ndarray
    row_of: dict[Pair, int]  # a pair's row in `vectors` (pairs without a text have none)
    encoded: int  # distinct texts the model encoded
    cached: int  # distinct texts found in the cache

    def of(self, pairs: list[Pair]) -> np.ndarray:
        """The rows of those of `pairs` that have a text, in order."""
        rows = [self.row_of[p] for p in pairs if p in self.row_of]
        return self.vectors[rows] if rows else np.zeros((0, self.vectors.shape[1] if self.vectors.ndim == 2 else 0))


def embed_pairs(db: Database, embedder: TextEmbedder, pairs: Iterable[Pair]) -> PairVectors:
    """The vectors of the pairs' document texts, through the cache (each pair once)."""
    texts = pools.passage_texts(db.cursor(), list(dict.fromkeys(pairs)))
    keys = list(texts)
    embedded = embed_counted(db, embedder, [texts[key] for key in keys])
    return PairVectors(embedded.vectors, {key: row for row, key in enumerate(keys)}, embedded.encoded, embedded.cached)


# -- the embedding judge ---------------------------------------------------------------------------


def exemplars_of(reference: dict[str, dict[str, float]], qids: set[str]) -> dict[str, list[str]]:
    """{qid: docids with the topic's highest reference grade}; topics whose highest grade is
    below 1 (nothing relevant to compare with) get no exemplar."""
    found = {}
    for qid in qids:
        grades = reference.get(qid, {})
        top = max(grades.values(), default=0.0)
        found[qid] = sorted(d for d, g in grades.items() if g == top) if top >= 1 else []
    return found


class Outcome(NamedTuple):
    """An embedding judgment: the similarity as the label, or why there is none."""

    label: float | None
    error: str | None


def embedding_judge(
    db: Database,
    config: JudgeConfig,
    embedder: TextEmbedder | None = None,
    *,
    outcomes_of: Callable[[list[Pair], dict[str, list[str]], PairVectors, str], dict[Pair, Outcome]] | None = None,
    rule: tuple[str, str] = (EXEMPLAR_RULE, "max cosine"),
) -> JudgeSummary:
    """Label every pair of the pool with its highest cosine similarity to the topic's exemplars
    (leave-one-out); a pair with no exemplar to compare with is a recorded failure, never a 0.
    `outcomes_of` and `rule` give another similarity (generated answers: the mean to every exemplar)."""
    start = time.perf_counter()
    config = replace(config, backend=BACKEND)
    con = db.cursor()
    ref_id = label_store.label_set_id(con, config.ref)
    if ref_id is None:
        raise UsageError(f"no reference label set {config.ref!r} to take the exemplars from")
    pairs = pool_pairs(db, config)
    exemplars = exemplars_of(load_labels(con, ref_id), {qid for qid, _ in pairs})
    embedder = embedder or Embedder(config.model)
    set_id = judge_label_set(db, config.name, BACKEND)
    exemplar_pairs = [(qid, docid) for qid, docids in exemplars.items() for docid in docids]
    embedded = embed_pairs(db, embedder, pairs + exemplar_pairs)
    outcomes = (outcomes_of or similarity_outcomes)(pairs, exemplars, embedded, config.ref)
    failures = sum(outcome.label is None for outcome in outcomes.values())
    run = write_embedding_run(db, config, set_id, embedder.name, outcomes, embedded, len(pairs), rule)
    return JudgeSummary(
        label_set=config.name,
        method=METHOD,
        backend=BACKEND,
        model=embedder.name,
        pairs=len(pairs),
        calls=embedded.encoded,
        cache_hits=embedded.cached,
        failures=failures,
        seconds=round(time.perf_counter() - start, 3),
        prompt_tokens=0,
        completion_tokens=0,
        judge_run=run,
        ref=config.ref,
    )


def similarity_outcomes(
    pairs: list[Pair], exemplars: dict[str, list[str]], embedded: PairVectors, ref: str
) -> dict[Pair, Outcome]:
    """Each pair's highest cosine similarity to its topic's other exemplars, or why it has none."""
    vectors = embedded.vectors.astype(np.float64)
    row_of = embedded.row_of
    outcomes: dict[Pair, Outcome] = {}
    for qid, docid in pairs:
        if (qid, docid) not in row_of:
            outcomes[(qid, docid)] = Outcome(None, "no text for the document")
            continue
        if not exemplars[qid]:
            outcomes[(qid, docid)] = Outcome(None, f"no exemplar: the topic's highest {ref!r} grade is below 1")
            continue
        # Leave-one-out: an exemplar compared with itself would score 1 and say nothing.
        others = [row_of[(qid, e)] for e in exemplars[qid] if e != docid and (qid, e) in row_of]
        if not others:
            outcomes[(qid, docid)] = Outcome(None, "no exemplar other than the document itself")
            continue
        best = float(np.max(vectors[others] @ vectors[row_of[(qid, docid)]]))
        # Unit vectors in float32: a duplicate text can come out a hair above 1.
        outcomes[(qid, docid)] = Outcome(min(max(best, -1.0), 1.0), None)
    return outcomes


def write_embedding_run(
    db: Database,
    config: JudgeConfig,
    set_id: int,
    model: str,
    outcomes: dict[Pair, Outcome],
    embedded: PairVectors,
    pairs: int,
    rule: tuple[str, str] = (EXEMPLAR_RULE, "max cosine"),
) -> int:
    """The judge run of the pool's `pairs` with its judgments, and a label event for each label
    that changed, in one transaction; the run's id. `rule`: its exemplars and similarity, as its
    parameters say them."""
    failures = sum(outcome.label is None for outcome in outcomes.values())
    con = db.cursor()
    current = {(qid, docid): grade for qid, docs in load_labels(con, set_id).items() for docid, grade in docs.items()}
    with db.transaction() as tx:
        run = judge_store.create_judge_run(
            tx,
            set_id,
            method=METHOD,
            backend=BACKEND,
            model=model,
            prompt_name=METHOD,
            prompt_hash="",
            params={
                "exemplars": rule[0],
                "similarity": rule[1],
                "ref": config.ref,
                "config": rerunnable(config),
            },
            pool=config.pool,
        )
        batch = new_batch(tx, "judge", f"{config.name} run {run}")
        source = f"judge run {run}"
        for (qid, docid), (label, error) in outcomes.items():
            # No model call behind an embedding judgment: the call key stays empty.
            judge_store.add_judgment(
                tx, run, qid, docid, None, "", label=label, parse_error=error, expected=None, confidence=None
            )
            if label is not None and current.get((qid, docid)) != label:
                label_store.append_label_event(
                    tx, set_id, qid, docid, label, origin="judge", source=source, batch_id=batch
                )
        judge_store.finish_judge_run(
            tx, run, pairs=pairs, calls=embedded.encoded, cache_hits=embedded.cached, failures=failures
        )
    return run


# -- the FD@k leaderboard ------------------------------------------------------------------------


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
