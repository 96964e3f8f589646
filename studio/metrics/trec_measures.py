"""The measures of one topic for every run at once, with trec_eval's exact semantics.

Each function takes the topic's graded ranking matrix `G` (runs x depth; NaN where a document
is unjudged or past the end of a run) and returns one value per run. Gains are the grades
themselves (negative grades count 0); binary measures count grade >= `rel`.
"""

from __future__ import annotations

import numpy as np

from studio.metrics.names import Measure
from studio.metrics.rankings import TopicLabels, TopicRanking


def graded_matrix(topic: TopicRanking, labels: TopicLabels) -> np.ndarray:
    """Grade of every ranked position (runs x depth), NaN for unjudged docs and padding."""
    padded = np.append(labels.grades, np.nan)  # index UNRANKED (-1) reads the NaN
    return padded[topic.order]


def _discounts(depth: int) -> np.ndarray:
    return np.log2(np.arange(2, depth + 2, dtype=np.float64))


def _head(matrix: np.ndarray, cutoff: int | None) -> np.ndarray:
    return matrix if cutoff is None else matrix[:, :cutoff]


def ndcg(G: np.ndarray, labels: TopicLabels, cutoff: int | None) -> np.ndarray:
    head = _head(G, cutoff)
    gains = np.where(head > 0, head, 0.0)
    dcg = (gains / _discounts(head.shape[1])).sum(axis=1)
    ideal_gains = np.sort(labels.all_grades[labels.all_grades > 0])[::-1]
    ideal_gains = _head(ideal_gains[None, :], cutoff)[0]
    ideal = (ideal_gains / _discounts(len(ideal_gains))).sum()
    return dcg / ideal if ideal > 0 else np.zeros(len(G))


def _relevant(G: np.ndarray, rel: float) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        return rel <= G  # NaN (unjudged, padding) compares False


def _num_rel(labels: TopicLabels, rel: float) -> int:
    return int((labels.all_grades >= rel).sum())


def precision(G: np.ndarray, rel: float, cutoff: int) -> np.ndarray:
    return _relevant(_head(G, cutoff), rel).sum(axis=1) / cutoff


def recall(G: np.ndarray, labels: TopicLabels, rel: float, cutoff: int | None) -> np.ndarray:
    num_rel = _num_rel(labels, rel)
    if num_rel == 0:
        return np.zeros(len(G))
    return _relevant(_head(G, cutoff), rel).sum(axis=1) / num_rel


def average_precision(G: np.ndarray, labels: TopicLabels, rel: float, cutoff: int | None) -> np.ndarray:
    num_rel = _num_rel(labels, rel)
    relevant = _relevant(_head(G, cutoff), rel)
    if num_rel == 0 or relevant.shape[1] == 0:
        return np.zeros(len(G))
    ranks = np.arange(1, relevant.shape[1] + 1, dtype=np.float64)
    precision_at = np.cumsum(relevant, axis=1) / ranks
    return np.where(relevant, precision_at, 0.0).sum(axis=1) / num_rel


def reciprocal_rank(G: np.ndarray, rel: float, cutoff: int | None) -> np.ndarray:
    relevant = _relevant(_head(G, cutoff), rel)
    if relevant.shape[1] == 0:
        return np.zeros(len(G))
    first = relevant.argmax(axis=1)
    return np.where(relevant.any(axis=1), 1.0 / (first + 1), 0.0)


def r_precision(G: np.ndarray, labels: TopicLabels, rel: float) -> np.ndarray:
    num_rel = _num_rel(labels, rel)
    if num_rel == 0:
        return np.zeros(len(G))
    return _relevant(G[:, :num_rel], rel).sum(axis=1) / num_rel


def judged(G: np.ndarray, lengths: np.ndarray, cutoff: int) -> np.ndarray:
    """Fraction of the top `cutoff` that is judged (of the documents retrieved, if fewer)."""
    counted = (~np.isnan(_head(G, cutoff))).sum(axis=1)
    shown = np.minimum(lengths, cutoff)
    return np.divide(counted, shown, out=np.zeros(len(G)), where=shown > 0)


def compatibility(topic: TopicRanking, G: np.ndarray, labels: TopicLabels, p: float) -> np.ndarray:
    """Normalised RBO between each run and the ideal ranking closest to it (Clarke et al. 2020).

    The ideal ranking orders the judged-relevant documents by grade; among equal grades the
    order the run itself uses is the one that maximises RBO, so it is taken.
    """
    positive = np.sort(labels.all_grades[labels.all_grades > 0])[::-1]
    n_ideal = len(positive)
    values = np.zeros(len(G))
    if n_ideal == 0:
        return values
    # Where each grade's block starts in the ideal ranking.
    levels, first_at = np.unique(-positive, return_index=True)
    for r, length in enumerate(topic.lengths):
        depth = max(int(length), n_ideal)
        grades = G[r, :length]
        run_pos = np.flatnonzero(grades > 0)
        # Ideal position: start of the doc's grade block + how many same-grade docs the run put before it.
        block = np.searchsorted(levels, -grades[run_pos])
        seen_before = _rank_within_groups(block)
        ideal_pos = first_at[block] + seen_before
        overlap_from = np.maximum(run_pos, ideal_pos)
        overlap = np.cumsum(np.bincount(overlap_from, minlength=depth)[:depth])
        d = np.arange(1, depth + 1, dtype=np.float64)
        weights = p ** (d - 1)
        score = (weights * overlap / d).sum()
        best = (weights * np.minimum(d, n_ideal) / d).sum()
        values[r] = score / best
    return values


def _rank_within_groups(groups: np.ndarray) -> np.ndarray:
    """For each element, how many earlier elements share its group."""
    counts: dict[int, int] = {}
    out = np.empty(len(groups), dtype=np.int64)
    for i, g in enumerate(groups.tolist()):
        out[i] = counts.get(g, 0)
        counts[g] = out[i] + 1
    return out


def topic_values(measure: Measure, topic: TopicRanking, labels: TopicLabels) -> np.ndarray:
    """One value per run for this topic; NaN for runs that retrieved nothing for it."""
    G = graded_matrix(topic, labels)
    name, k, rel = measure.name, measure.cutoff, measure.rel
    if name == "nDCG":
        values = ndcg(G, labels, k)
    elif name == "P":
        values = precision(G, rel, k or 0)
    elif name == "R":
        values = recall(G, labels, rel, k)
    elif name == "AP":
        values = average_precision(G, labels, rel, k)
    elif name == "RR":
        values = reciprocal_rank(G, rel, k)
    elif name == "Rprec":
        values = r_precision(G, labels, rel)
    elif name == "Judged":
        values = judged(G, topic.lengths, k or 0)
    elif name == "Compat":
        values = compatibility(topic, G, labels, measure.p)
    else:  # pragma: no cover - parse_measure admits no other names
        raise ValueError(f"unknown measure {measure}")
    return np.where(topic.lengths > 0, values, np.nan)

