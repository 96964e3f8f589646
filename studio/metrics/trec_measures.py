"""The measures of one topic for every run at once, with trec_eval's exact semantics (their table,
with what each is and its paper: metrics/measures.py).

Each function takes the topic's graded ranking matrix `G` (runs x depth; NaN where a document
is unjudged or past the end of a run) and returns one value per run. Gains are the grades
themselves (negative grades count 0); binary measures count grade >= `rel`.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from studio.metrics.rankings import TopicLabels, TopicRanking


def graded_matrix(topic: TopicRanking, labels: TopicLabels, depth: int | None = None) -> np.ndarray:
    """Grade of every ranked position (runs x depth, the first `depth` positions if given), NaN
    for unjudged docs and padding."""
    padded = np.append(labels.grades, np.nan)  # index UNRANKED (-1) reads the NaN
    return padded[topic.order if depth is None else topic.order[:, :depth]]


def _discounts(depth: int) -> np.ndarray:
    return np.log2(np.arange(2, depth + 2, dtype=np.float64))


def _head(matrix: np.ndarray, cutoff: int | None) -> np.ndarray:
    return matrix if cutoff is None else matrix[:, :cutoff]


def ndcg(G: np.ndarray, labels: TopicLabels, cutoff: int | None) -> np.ndarray:
    head = _head(G, cutoff)
    gains = np.where(head > 0, head, 0.0)
    ideal_gains = np.sort(labels.all_grades[labels.all_grades > 0])[::-1]
    ideal_gains = _head(ideal_gains[None, :], cutoff)[0]
    with np.errstate(over="ignore"):
        dcg, ideal = _dcg(gains, ideal_gains)
        if not np.isfinite(ideal):
            # Gains so large that their sum overflows (a file the studio would now refuse): both
            # sums again with every gain scaled by the same power of two, exact in floating point,
            # so the ratio is the one an unbounded exponent would give.
            shift = int(np.frexp(ideal_gains[0])[1]) + len(ideal_gains).bit_length() + 1
            dcg, ideal = _dcg(np.ldexp(gains, -shift), np.ldexp(ideal_gains, -shift))
    return dcg / ideal if ideal > 0 else np.zeros(len(G))


def _dcg(gains: np.ndarray, ideal_gains: np.ndarray) -> tuple[np.ndarray, float]:
    """The runs' DCG (gains: runs x depth) and the ideal DCG."""
    return (gains / _discounts(gains.shape[1])).sum(axis=1), float((ideal_gains / _discounts(len(ideal_gains))).sum())


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


COMPAT_DEPTH = 1000  # the reference sums RBO to this depth, whatever a run's length


@lru_cache(maxsize=16)
def _persistence_weights(p: float) -> np.ndarray:
    """p^0 … p^999, each the previous times p, as the reference accumulates them."""
    weights = np.empty(COMPAT_DEPTH)
    weight = 1.0
    for i in range(COMPAT_DEPTH):
        weights[i] = weight
        weight *= p
    return weights


def compatibility(topic: TopicRanking, labels: TopicLabels, p: float) -> np.ndarray:
    """Compatibility (Clarke, Vtyurina and Smucker 2020) exactly as its reference implementation
    (`compatibility.py` of claclark/Compatibility) computes it, so that published values reproduce:

    * each run is ordered by score as a double, descending, ties by docid ascending — not
      trec_eval's order (single precision, docid descending);
    * the ideal ranking holds the documents with a positive grade, by grade, ties in the run's own
      order (documents the run did not retrieve last);
    * RBO is summed over ranks 1 … 1000 whatever the lengths, normalised by Σ p^i over those ranks,
      and divided by the ideal ranking's own RBO computed the same way;
    * a topic without a positive grade has no value (it is not averaged), as in the reference.
    """
    positive = np.sort(labels.all_grades[labels.all_grades > 0])[::-1]
    n_ideal = len(positive)
    values = np.full(len(topic.lengths), np.nan)
    if n_ideal == 0:
        return values
    order = topic.reference_order[:, :COMPAT_DEPTH]
    G = np.append(labels.grades, np.nan)[order]  # grade at each position of the reference's order
    weights = _persistence_weights(p)
    d = np.arange(1, COMPAT_DEPTH + 1, dtype=np.float64)
    normalizer = weights.sum()
    best = (weights * np.minimum(d, n_ideal) / d).sum() / normalizer
    levels, first_at = np.unique(-positive, return_index=True)  # where each grade's block starts
    for r, length in enumerate(topic.lengths.tolist()):
        grades = G[r, : min(length, COMPAT_DEPTH)]
        run_pos = np.flatnonzero(grades > 0)
        # Ideal position: start of the doc's grade block + the same-grade docs the run put before it.
        block = np.searchsorted(levels, -grades[run_pos])
        ideal_pos = first_at[block] + _rank_within_groups(block)
        overlap_from = np.maximum(run_pos, ideal_pos)
        overlap = np.cumsum(np.bincount(overlap_from[overlap_from < COMPAT_DEPTH], minlength=COMPAT_DEPTH))
        values[r] = ((weights * overlap / d).sum() / normalizer) / best
    return values


def _rank_within_groups(groups: np.ndarray) -> np.ndarray:
    """For each element, how many earlier elements share its group."""
    counts: dict[int, int] = {}
    out = np.empty(len(groups), dtype=np.int64)
    for i, g in enumerate(groups.tolist()):
        out[i] = counts.get(g, 0)
        counts[g] = out[i] + 1
    return out
