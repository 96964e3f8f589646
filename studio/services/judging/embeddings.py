"""The embedding judge (Arabzadeh et al. 2024) and the project's embedding cache it shares with the
FD@k leaderboard (`studio.services.evaluation.frechet`).

The judge labels a (topic, document) pair with the highest cosine similarity between the
document (or generated answer) and the topic's exemplars: the documents with the topic's
highest reference grade.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import NamedTuple

import numpy as np

from studio.domain.errors import UsageError
from studio.domain.judging import JudgeConfig, JudgeSummary
from studio.judges.embedder import Embedder, TextEmbedder
from studio.services.judging.config import rerunnable
from studio.services.judging.pools import pool_pairs
from studio.services.judging.run import judge_label_set
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
