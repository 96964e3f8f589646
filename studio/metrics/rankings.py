"""Runs and label sets as per-topic arrays, the shape every measure works on.

A topic's documents (every docid any run retrieved for it) get dense indices; each run's
ranking of the topic is a row of doc indices in trec_eval's order (score descending, ties by
docid in descending byte order), padded with -1. A label set becomes, per topic, the grade of
each of those documents (NaN when unjudged) plus every judged grade (retrieved or not), which
recall and the ideal DCG need.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np

UNRANKED = -1


@dataclass
class TopicRanking:
    qid: str
    docids: list[str]
    doc_index: dict[str, int]
    order: np.ndarray  # (runs, depth) int64 doc indices, UNRANKED padding
    lengths: np.ndarray  # (runs,) documents retrieved by each run (0: the run skips the topic)


@dataclass
class Rankings:
    runs: list[str]
    topics: dict[str, TopicRanking]  # in qid byte order

    @property
    def qids(self) -> list[str]:
        return list(self.topics)


def single_precision(score: float) -> float:
    """A score as trec_eval holds it: a C float (TEXT_RESULTS.sim), so scores equal in single
    precision tie and fall back to the docid order; beyond float range they become ±inf."""
    with np.errstate(over="ignore"):
        return float(np.float32(score))


def trec_order(entries: Iterable[tuple[str, float]]) -> list[str]:
    """Docids in trec_eval's order: score (in single precision) descending, then docid
    descending by bytes."""
    ranked = sorted(entries, key=lambda e: e[0].encode("utf-8"), reverse=True)
    ranked.sort(key=lambda e: single_precision(e[1]), reverse=True)
    return [docid for docid, _ in ranked]


def rankings_from_lists(runs: Mapping[str, Mapping[str, list[str]]]) -> Rankings:
    """Build from {run: {qid: [docids in rank order]}} (small data, tests, sample project)."""
    names = sorted(runs)
    qids = sorted({q for per_topic in runs.values() for q in per_topic}, key=lambda q: q.encode("utf-8"))
    topics = {}
    for qid in qids:
        docids: list[str] = []
        index: dict[str, int] = {}
        rows = [runs[name].get(qid, []) for name in names]
        for row in rows:
            for docid in row:
                if docid not in index:
                    index[docid] = len(docids)
                    docids.append(docid)
        depth = max((len(row) for row in rows), default=0)
        order = np.full((len(names), depth), UNRANKED, dtype=np.int64)
        for r, row in enumerate(rows):
            order[r, : len(row)] = [index[d] for d in row]
        lengths = np.array([len(row) for row in rows], dtype=np.int64)
        topics[qid] = TopicRanking(qid, docids, index, order, lengths)
    return Rankings(names, topics)


def rankings_from_positions(
    runs: list[str],
    qids: list[str],
    docids: list[list[str]],
    topic: np.ndarray,
    run: np.ndarray,
    doc: np.ndarray,
    position: np.ndarray,
) -> Rankings:
    """Scatter numbered rows (sorted by topic) into one (runs x depth) matrix per topic."""
    bounds = np.searchsorted(topic, np.arange(len(qids) + 1))
    topics = {}
    for t, qid in enumerate(qids):
        part = slice(bounds[t], bounds[t + 1])
        depth = int(position[part].max()) + 1 if bounds[t + 1] > bounds[t] else 0
        order = np.full((len(runs), depth), UNRANKED, dtype=np.int64)
        order[run[part], position[part]] = doc[part]
        lengths = np.bincount(run[part], minlength=len(runs)).astype(np.int64)
        index = {d: i for i, d in enumerate(docids[t])}
        topics[qid] = TopicRanking(qid, docids[t], index, order, lengths)
    return Rankings(runs, topics)


@dataclass
class TopicLabels:
    """One topic of a label set, aligned to a topic's ranked documents."""

    judged: dict[str, float]  # every label of the topic
    grades: np.ndarray  # grade of each ranked doc index; NaN when unjudged
    all_grades: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        self.all_grades = np.fromiter(self.judged.values(), dtype=np.float64, count=len(self.judged))

    def set(self, docid: str, grade: float | None, doc_index: int | None) -> None:
        """Change one label (None removes it)."""
        if grade is None:
            self.judged.pop(docid, None)
        else:
            self.judged[docid] = grade
        if doc_index is not None:
            self.grades[doc_index] = np.nan if grade is None else grade
        self.all_grades = np.fromiter(self.judged.values(), dtype=np.float64, count=len(self.judged))


def align_labels(rankings: Rankings, labels: Mapping[str, Mapping[str, float]]) -> dict[str, TopicLabels]:
    """{qid: {docid: grade}} -> per-topic arrays, for every topic of the label set."""
    aligned = {}
    for qid, judged in labels.items():
        topic = rankings.topics.get(qid)
        size = len(topic.docids) if topic else 0
        grades = np.full(size, np.nan)
        if topic is not None:
            for docid, grade in judged.items():
                position = topic.doc_index.get(docid)
                if position is not None:
                    grades[position] = grade
        aligned[qid] = TopicLabels(dict(judged), grades)
    return aligned
