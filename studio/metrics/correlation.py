"""Comparing two leaderboards: rank correlations, swapped pairs, intervals over topics."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from studio.domain.comparisons import SwappedPair

# Leaderboards hold tens or hundreds of runs: the O(n²) pair counts below are microseconds in
# numpy, cheaper per call than scipy's general routines (and scipy.stats takes half a second to
# import, which the studio would pay at start-up). Tests hold both equal to scipy's.


@lru_cache(maxsize=64)
def upper_pairs(n: int) -> tuple[np.ndarray, np.ndarray]:
    """(i, j) of every pair i < j of n items, in the order of itertools.combinations."""
    first, second = np.triu_indices(n, k=1)
    return first, second


def _pair_signs(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """sign(x_i − x_j) and sign(y_i − y_j) of every pair i < j."""
    first, second = upper_pairs(len(x))
    return np.sign(x[first] - x[second]), np.sign(y[first] - y[second])


# Above this many items the pair counts come from sorting (Knight 1966) in O(n log n) instead of
# every pair's signs in O(n²): the pooled τ over every (topic, run) score has thousands.
KNIGHT_FROM = 600


def kendall_tau_b(x: np.ndarray, y: np.ndarray) -> float:
    """Kendall's τ-b (scipy's default): (concordant − discordant) / √((n0 − ties_x)(n0 − ties_y));
    NaN when either side is constant."""
    if len(x) < 2:
        return float("nan")
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if len(x) < KNIGHT_FROM:
        return tau_from_orderings(x[:, None] > x[None, :], y)
    agreement, untied_x, untied_y = _knight_counts(x, y)
    if untied_x == 0 or untied_y == 0:
        return float("nan")
    return float(agreement / np.sqrt(float(untied_x) * float(untied_y)))


def kendall_tau_b_rows(x: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """Kendall's τ-b of `x` against each row of `ys` (what `kendall_tau_b` gives row by row),
    with x's orderings computed once: the review queue asks it for thousands of edited
    leaderboards against one reference."""
    x, ys = np.asarray(x, dtype=np.float64), np.atleast_2d(np.asarray(ys, dtype=np.float64))
    if len(x) < 2 or len(x) >= KNIGHT_FROM:
        return np.array([kendall_tau_b(x, y) for y in ys])
    x_above = x[:, None] > x[None, :]
    return np.array([tau_from_orderings(x_above, y) for y in ys])


def tau_from_orderings(x_above: np.ndarray, y: np.ndarray) -> float:
    """τ-b from the (n × n) matrices "i above j": every pair untied in y is above in exactly one
    orientation, concordant when x puts the same one above, discordant when x puts it below.
    Boolean matrices and count_nonzero beat gathering every pair's signs several times over."""
    y_above = y[:, None] > y[None, :]
    untied_x, untied_y = np.count_nonzero(x_above), np.count_nonzero(y_above)
    if untied_x == 0 or untied_y == 0:
        return float("nan")
    agreement = np.count_nonzero(y_above & x_above) - np.count_nonzero(y_above & x_above.T)
    return float(agreement / np.sqrt(float(untied_x) * float(untied_y)))


def _tied_pairs(values: np.ndarray) -> int:
    """Pairs of equal values (values sorted)."""
    _, counts = np.unique(values, return_counts=True)
    return int((counts * (counts - 1) // 2).sum())


def _knight_counts(x: np.ndarray, y: np.ndarray) -> tuple[int, int, int]:
    """(concordant − discordant, pairs untied in x, pairs untied in y), exactly as the pair signs
    would count them, from sorts: discordant pairs are the inversions of y ordered by (x, y)."""
    n = len(x)
    order = np.lexsort((y, x))
    xs, ys = x[order], y[order]
    all_pairs = n * (n - 1) // 2
    tied_x, tied_y = _tied_pairs(xs), _tied_pairs(np.sort(y))
    joint = np.r_[True, (xs[1:] != xs[:-1]) | (ys[1:] != ys[:-1])]
    groups = np.diff(np.r_[np.flatnonzero(joint), n])
    tied_both = int((groups * (groups - 1) // 2).sum())
    ranks = np.unique(ys, return_inverse=True)[1].astype(np.int64)
    discordant = _inversions(ranks)
    agreement = all_pairs - tied_x - tied_y + tied_both - 2 * discordant
    return agreement, all_pairs - tied_x, all_pairs - tied_y


def _inversions(values: np.ndarray) -> int:
    """Pairs i < j with values[i] > values[j] (non-negative integers), by bottom-up merging:
    at each level, every element of a right block counts the larger ones in its left block."""
    n = len(values)
    a = values.copy()
    base = int(a.max()) + 1 if n else 1
    index = np.arange(n)
    total = 0
    width = 1
    while width < n:
        block = index // width
        pair = block // 2
        right = (block % 2) == 1
        keys = pair * base + a  # sorted within each block; left blocks' keys sorted overall
        left_keys = keys[~right]
        right_keys, right_pairs = keys[right], pair[right]
        left_end = np.searchsorted(left_keys, (right_pairs + 1) * base, side="left")
        not_greater = np.searchsorted(left_keys, right_keys, side="right")
        total += int((left_end - not_greater).sum())
        a = a[np.argsort(keys, kind="stable")]
        width *= 2
    return total


def kendall_tau_a(x: np.ndarray, y: np.ndarray) -> float:
    """Kendall's τ-a: (concordant − discordant) / all pairs; ties count as neither."""
    n = len(x)
    if n < 2:
        return float("nan")
    dx, dy = _pair_signs(x, y)
    return float((dx * dy).sum() / (n * (n - 1) / 2))


def average_ranks(values: np.ndarray) -> np.ndarray:
    """Ranks 1..n, tied values sharing the mean of their ranks (scipy's rankdata 'average')."""
    order = np.argsort(values, kind="mergesort")
    ordered = values[order]
    # np.concatenate, not np.r_: the live view ranks two leaderboards per edit, and np.r_'s
    # parsing of its arguments costs more than the ranking of a hundred runs.
    starts = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
    ends = np.append(starts[1:], len(values))
    ranks = np.empty(len(values), dtype=np.float64)
    ranks[order] = np.repeat((starts + ends + 1) / 2.0, ends - starts)
    return ranks


def spearman_rho(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman's ρ: Pearson's r of the average ranks; NaN when either side is constant."""
    if len(x) < 2:
        return float("nan")
    rx = average_ranks(np.asarray(x, dtype=np.float64))
    ry = average_ranks(np.asarray(y, dtype=np.float64))
    rx, ry = rx - rx.mean(), ry - ry.mean()
    denominator = np.sqrt((rx * rx).sum() * (ry * ry).sum())
    return float((rx * ry).sum() / denominator) if denominator > 0 else float("nan")


def tau_ap(reference: np.ndarray, audited: np.ndarray) -> float:
    """τ_AP (Yilmaz, Aslam & Robertson 2008): errors near the top of the audited ranking cost more.

    Items are taken in the audited leaderboard's order (best first); C(i) counts the items
    above item i that the reference also puts above it. A pair the reference ties counts
    half (a tie-aware reading; the original is undefined with ties).
    """
    n = len(reference)
    if n < 2:
        return float("nan")
    order = np.lexsort((np.arange(n), -audited))
    ref = reference[order]
    # Row i, columns k < i: the items the audited leaderboard puts above item i. One matrix, not a
    # loop over the runs: the live view asks τ_AP after every edit, the bootstrap of 1,000 samples.
    earlier = _earlier(n)
    greater = np.count_nonzero(earlier & (ref[None, :] > ref[:, None]), axis=1)[1:]
    equal = np.count_nonzero(earlier & (ref[None, :] == ref[:, None]), axis=1)[1:]
    terms = (greater + 0.5 * equal) / np.arange(1, n)
    total = sum(terms.tolist(), 0.0)  # left to right, as the definition's sum: the same last bit
    return float(2.0 * total / (n - 1) - 1.0)


@lru_cache(maxsize=64)
def _earlier(n: int) -> np.ndarray:
    """(n × n), row i true in the columns k < i (read only: shared between calls)."""
    matrix = np.tri(n, k=-1, dtype=bool)
    matrix.flags.writeable = False
    return matrix


def rbo(first: list[str], second: list[str], p: float = 0.9) -> float:
    """Rank-biased overlap of two rankings, truncated at the longer one and normalised to [0, 1]."""
    depth = max(len(first), len(second))
    if depth == 0:
        return float("nan")
    seen_a: set[str] = set()
    seen_b: set[str] = set()
    overlap = 0
    score = norm = 0.0
    weight = 1.0
    for d in range(depth):
        a = first[d] if d < len(first) else None
        b = second[d] if d < len(second) else None
        if a is not None:
            overlap += a in seen_b
            seen_a.add(a)
        if b is not None:
            overlap += b in seen_a  # seen_a now holds a: equal items count once
            seen_b.add(b)
        score += weight * overlap / (d + 1)
        norm += weight
        weight *= p
    return score / norm


def ranking(runs: list[str], values: np.ndarray) -> list[str]:
    """Runs best first; equal scores by name, so the order is reproducible."""
    return [runs[i] for i in np.lexsort((np.array(runs), -values))]


def _opposite_pairs(reference: np.ndarray, audited: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(i, j) of the pairs i < j among the first n items that the two order strictly in opposite
    ways, in the order of itertools.combinations. The product of the two differences decides, as
    it always has: its sign is the pair's verdict, however small (or underflowing) it is."""
    first, second = upper_pairs(n)
    ref, aud = np.asarray(reference), np.asarray(audited)
    opposite = (ref[first] - ref[second]) * (aud[first] - aud[second]) < 0
    return first[opposite], second[opposite]


def swap_count(reference: np.ndarray, audited: np.ndarray) -> int:
    """How many run pairs the two leaderboards order strictly in opposite ways
    (`len(swapped_pairs(...))` without building the pairs: what a live view shows)."""
    return len(_opposite_pairs(reference, audited, len(reference))[0])


def swapped_pairs(runs: list[str], reference: np.ndarray, audited: np.ndarray) -> list[SwappedPair]:
    """Run pairs the two leaderboards order strictly in opposite ways, largest reference gap first
    (pairs with equal gaps in the order of itertools.combinations)."""
    ref, aud = np.asarray(reference), np.asarray(audited)
    i, j = _opposite_pairs(ref, aud, len(runs))
    i_above = ref[i] > ref[j]
    above, below = np.where(i_above, i, j), np.where(i_above, j, i)
    ref_above, ref_below = ref[above].astype(np.float64), ref[below].astype(np.float64)
    order = np.argsort(-(ref_above - ref_below), kind="stable")  # a stable sort, as list.sort
    above, below = above[order], below[order]
    return [
        SwappedPair(above_in_ref=runs[a], below_in_ref=runs[b], ref=[ref_a, ref_b], qrels=[aud_a, aud_b])
        for a, b, ref_a, ref_b, aud_a, aud_b in zip(
            above.tolist(),
            below.tolist(),
            ref_above[order].tolist(),
            ref_below[order].tolist(),
            aud[above].astype(np.float64).tolist(),
            aud[below].astype(np.float64).tolist(),
            strict=True,
        )
    ]


def per_topic_tau(reference: np.ndarray, audited: np.ndarray) -> float:
    """τ-b within each topic (runs as items), averaged over topics where it is defined."""
    taus = []
    for ref_row, aud_row in zip(reference, audited, strict=True):
        both = ~np.isnan(ref_row) & ~np.isnan(aud_row)
        if both.sum() >= 2:
            tau = kendall_tau_b(ref_row[both], aud_row[both])
            if not np.isnan(tau):
                taus.append(tau)
    return float(np.mean(taus)) if taus else float("nan")


def pooled_tau(reference: np.ndarray, audited: np.ndarray) -> float:
    """τ-b over every (topic, run) score pair."""
    both = ~np.isnan(reference) & ~np.isnan(audited)
    return kendall_tau_b(reference[both], audited[both])


@dataclass(frozen=True)
class Interval:
    low: float
    high: float
    mean: float

    def as_dict(self) -> dict[str, float]:
        return {"low": self.low, "high": self.high, "mean": self.mean}


def _sample_means(matrix: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Per-run means over the sampled topic rows (one mean vector per sample of `rows`).

    A sample is a count per topic (how often it was drawn), so every sample's sums are one
    weighted sum over the topics: no (samples × topics × runs) copy. einsum's own loop (not
    BLAS) sums every run's column in the same order, so runs with equal scores keep equal means.
    """
    samples, topics = rows.shape[0], matrix.shape[0]
    counts = (
        np.bincount((np.arange(samples)[:, None] * topics + rows).ravel(), minlength=samples * topics)
        .reshape(samples, topics)
        .astype(np.float64)
    )
    counted = ~np.isnan(matrix)
    totals = np.einsum("st,tr->sr", counts, np.where(counted, matrix, 0.0), optimize=False)
    n = np.einsum("st,tr->sr", counts, counted.astype(np.float64), optimize=False)
    return np.divide(totals, n, out=np.zeros_like(totals), where=n > 0)


def bootstrap_tau(
    reference: np.ndarray,
    audited: np.ndarray,
    *,
    resamples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> Interval:
    """Percentile interval of τ-b when topics are resampled with replacement."""
    return bootstrap(reference, audited, kendall_tau_b, resamples=resamples, seed=seed, level=level)


def bootstrap(
    reference: np.ndarray,
    audited: np.ndarray,
    statistic: Callable[[np.ndarray, np.ndarray], float],
    *,
    resamples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> Interval:
    """Percentile interval of a leaderboard statistic (τ-b, τ_AP, …) of the two per-topic
    matrices (topics × runs) when topics are resampled with replacement; undefined samples
    (NaN) are left out; undefined without topics or with fewer than two runs (no order to compare:
    a project of label sets and no run would otherwise resample nothing a thousand times)."""
    topics = reference.shape[0]
    if topics == 0 or reference.ndim < 2 or reference.shape[1] < 2:
        return Interval(float("nan"), float("nan"), float("nan"))
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, topics, size=(resamples, topics))
    ref_means, aud_means = _sample_means(reference, rows), _sample_means(audited, rows)
    taus = np.array([statistic(r, a) for r, a in zip(ref_means, aud_means, strict=True)])
    taus = taus[~np.isnan(taus)]
    if len(taus) == 0:
        return Interval(float("nan"), float("nan"), float("nan"))
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(taus, [tail, 100 - tail])
    return Interval(float(low), float(high), float(taus.mean()))


def subsample_tau(
    reference: np.ndarray, audited: np.ndarray, fraction: float, *, trials: int = 100, seed: int = 0
) -> dict[str, float]:
    """τ-b between leaderboards built on a random `fraction` of the topics (without replacement):
    the draws' mean, spread, extremes and 95% interval (2.5th and 97.5th percentiles); undefined
    (NaN) without topics to draw from, as the bootstrap's interval is."""
    topics = reference.shape[0]
    size = max(1, round(topics * fraction)) if topics else 0
    rng = np.random.default_rng(seed)
    rows = np.array([rng.choice(topics, size=size, replace=False) for _ in range(trials)]) if topics else None
    taus = np.empty(0)
    if rows is not None:
        ref_means, aud_means = _sample_means(reference, rows), _sample_means(audited, rows)
        taus = np.array([kendall_tau_b(r, a) for r, a in zip(ref_means, aud_means, strict=True)])
        taus = taus[~np.isnan(taus)]
    if len(taus) == 0:
        return {
            "fraction": fraction,
            "topics": size,
            "mean": float("nan"),
            "std": float("nan"),
            "min": float("nan"),
            "max": float("nan"),
            "low": float("nan"),
            "high": float("nan"),
        }
    return {
        "fraction": fraction,
        "topics": size,
        "mean": float(taus.mean()),
        "std": float(taus.std()),
        "min": float(taus.min()),
        "max": float(taus.max()),
        "low": float(np.percentile(taus, 2.5)),
        "high": float(np.percentile(taus, 97.5)),
    }
