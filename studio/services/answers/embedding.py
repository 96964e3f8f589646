"""The embedding method of the Gen-IR comparison for generated answers: an answer's label is its
mean cosine similarity to every Best passage of the topic under the reference label set (the
passages with the topic's top grade, when that grade is at least 1), through the embedding cache.

Needs the studio's embeddings extra; without it the judge is refused with the line that installs it.
"""

from __future__ import annotations

import numpy as np

from studio.domain.judging import JudgeConfig, JudgeSummary
from studio.judges.embedder import TextEmbedder
from studio.services.judging.embeddings import Outcome, PairVectors, embedding_judge
from studio.store import Database

Pair = tuple[str, str]
RULE = ("every passage with the topic's highest reference grade (≥ 1)", "mean cosine")


def answer_embedding_judge(db: Database, config: JudgeConfig, embedder: TextEmbedder | None = None) -> JudgeSummary:
    """Label every answer of the pool with its mean cosine to the topic's Best passages (the
    embedding judge with another similarity); an answer with no Best passage to compare with is a
    recorded failure, never a 0."""
    return embedding_judge(db, config, embedder, outcomes_of=mean_similarities, rule=RULE)


def mean_similarities(
    pairs: list[Pair], best: dict[str, list[str]], embedded: PairVectors, ref: str
) -> dict[Pair, Outcome]:
    """Each answer's mean cosine to its topic's Best passages (those with a text), or why it has none."""
    vectors = embedded.vectors.astype(np.float64)
    row_of = embedded.row_of
    outcomes: dict[Pair, Outcome] = {}
    for qid, answer in pairs:
        targets = [row_of[(qid, docid)] for docid in best.get(qid, []) if (qid, docid) in row_of]
        if (qid, answer) not in row_of:
            outcomes[(qid, answer)] = Outcome(None, "no text for the answer")
        elif not targets:
            outcomes[(qid, answer)] = Outcome(None, f"no Best passage: the topic's highest {ref!r} grade is below 1")
        else:
            mean = float(np.mean(vectors[targets] @ vectors[row_of[(qid, answer)]]))
            outcomes[(qid, answer)] = Outcome(min(max(mean, -1.0), 1.0), None)
    return outcomes
