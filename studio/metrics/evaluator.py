"""Per-topic score matrices of one label set, kept in memory and updated one label at a time.

For each measure asked for, the evaluator keeps a (topics x runs) matrix; a label edit
recomputes only the edited topic's row, so a leaderboard after an edit costs one topic's
work plus a mean over topics.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from studio.metrics.measures import topic_values
from studio.metrics.names import Measure
from studio.metrics.rankings import Labels, Numbers, Rankings, TopicLabels, align_labels


def byte_order(qids: set[str] | list[str]) -> list[str]:
    """Topics in trec_eval's order (strcmp on the bytes)."""
    return sorted(qids, key=lambda q: q.encode("utf-8"))


class Evaluator:
    """Measures of every run under one label set."""

    def __init__(self, rankings: Rankings, labels: Labels, numbers: Numbers | None = None) -> None:
        self.rankings = rankings
        rankings.topics.read(labels)  # the labelled topics' rankings in one read
        self.labels: dict[str, TopicLabels] = align_labels(rankings, labels, numbers)
        # Only labelled topics have a row: a topic no label covers has no value under any measure,
        # and a run over a million unlabelled topics must not cost every leaderboard.
        self.qids = byte_order(set(self.labels))
        self.row = {qid: i for i, qid in enumerate(self.qids)}
        self._matrices: dict[Measure, np.ndarray] = {}
        # Counters of what changed, for what is worked out from these labels and kept (the live
        # view's frame and reference side): any label (`version`), and the labelled topics or
        # their rows (`topics_version`), which a label edit inside a labelled topic leaves alone.
        self.version = 0
        self.topics_version = 0

    @property
    def runs(self) -> list[str]:
        return self.rankings.runs

    def qrels_topics(self) -> np.ndarray:
        """Mask over `qids`: topics with at least one label."""
        return np.array([bool(self.labels.get(q) and self.labels[q].judged) for q in self.qids], dtype=bool)

    def labelled_topics(self) -> frozenset[str]:
        """The topics with at least one label."""
        return frozenset(q for q, topic in self.labels.items() if topic.judged)

    def knows(self, qids: Sequence[str]) -> set[str]:
        """Those of `qids` some label of this set or some run's ranking covers."""
        self.rankings.topics.read(qids)
        return {q for q in qids if q in self.row or q in self.rankings.topics}

    def rows_of(self, topics: Sequence[str]) -> np.ndarray:
        """Row numbers of `topics` (in the order given; topics this evaluator does not know are skipped)."""
        return np.array([self.row[q] for q in topics if q in self.row], dtype=np.intp)

    def per_topic(self, measure: Measure) -> np.ndarray:
        """(topics x runs); NaN where the topic has no labels or the run skipped it."""
        matrix = self._matrices.get(measure)
        if matrix is None:
            matrix = np.full((len(self.qids), len(self.runs)), np.nan)
            for qid in self.qids:
                self._fill_row(matrix, measure, qid)
            self._matrices[measure] = matrix
        return matrix

    def _fill_row(self, matrix: np.ndarray, measure: Measure, qid: str) -> None:
        topic = self.rankings.topics.get(qid)
        labels = self.labels.get(qid)
        row = self.row[qid]
        if topic is None or labels is None or not labels.judged:
            matrix[row] = np.nan
        else:
            matrix[row] = topic_values(measure, topic, labels)

    def means(self, measure: Measure, *, complete: bool = False, topics: Sequence[str] | None = None) -> np.ndarray:
        """Mean per run over topics in both run and labels, or over all labelled topics (trec_eval -c);
        `topics`: only over these (as trec_eval on labels cut to them), else over every topic."""
        matrix = self.per_topic(measure)
        # Only trec_eval -c needs the labelled topics' mask: the plain mean counts the filled cells.
        labelled = self.qrels_topics() if complete else None
        if topics is not None:
            rows = np.sort(self.rows_of(topics))  # summed in trec_eval's topic order, as over every topic
            matrix = matrix[rows]
            labelled = labelled[rows] if labelled is not None else None
        return mean_over_topics(matrix, labelled, complete=complete)

    def set_label(self, qid: str, docid: str, grade: float | None) -> None:
        """Change one label (None removes it) and recompute that topic's rows only."""
        if qid not in self.row:
            self._add_topic(qid)
        labels = self.labels.get(qid)
        topic = self.rankings.topics.get(qid)
        if labels is None:
            labels = self.labels[qid] = TopicLabels({}, np.full(topic.size if topic else 0, np.nan))
        was_labelled = bool(labels.judged)
        # A document labelled before has its number at hand (no number: no run ranked it); only a
        # newly labelled one reads the topic's docids.
        number = labels.numbers.get(docid)
        if number is None and topic is not None and docid not in labels.judged:
            number = topic.number_of(docid)
        labels.set(docid, grade, number)
        for measure, matrix in self._matrices.items():
            self._fill_row(matrix, measure, qid)
        self.version += 1
        if bool(labels.judged) != was_labelled:
            self.topics_version += 1

    def _add_topic(self, qid: str) -> None:
        # A topic first labelled now gets its row (NaN for a run that does not rank it).
        self.qids = byte_order([*self.qids, qid])
        self.row = {q: i for i, q in enumerate(self.qids)}
        self._matrices.clear()
        self.topics_version += 1


def mean_over_topics(matrix: np.ndarray, labelled: np.ndarray | None, *, complete: bool) -> np.ndarray:
    """trec_eval's averaging of a (topics x runs) matrix (`labelled`: the mask of labelled
    topics, which only `complete` needs)."""
    if complete:
        assert labelled is not None, "trec_eval -c averages over the labelled topics"
        values = np.where(np.isnan(matrix[labelled]), 0.0, matrix[labelled])
        count = int(labelled.sum())
        return values.sum(axis=0) / count if count else np.zeros(matrix.shape[1])
    counted = ~np.isnan(matrix)
    totals = np.where(counted, matrix, 0.0).sum(axis=0)
    n = counted.sum(axis=0)
    return np.divide(totals, n, out=np.zeros(matrix.shape[1]), where=n > 0)
