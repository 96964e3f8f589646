"""Paired significance tests over every pair of runs at once.

Input is a (runs × topics) matrix of per-topic values, NaN where a run has no value for a topic;
each pair of runs is tested on the topics both have. Pairs are the upper triangle (`run_pairs`):
pair c compares run i[c] (a) with run j[c] (b), and its difference is mean(a) − mean(b).

* `t_test`: Student's paired t (scipy.stats.ttest_rel), two-sided.
* `randomization_test`: the paired sign-flip permutation test (Fisher; Smucker, Allan & Carterette
  2007): under the null each topic's difference is as likely negated, so the observed |mean| is
  compared with the |mean| of the differences under random sign flips.
* `bootstrap_test`: Sakai's (2006) paired bootstrap with the shift method: the differences are
  centred on 0 (the null made true), resampled with replacement over topics, and the observed
  |t| compared with the resampled |t|.
* `tukey_hsd`: Carterette's (2012) randomised Tukey HSD over all runs: per resample the values of
  each topic are permuted across runs, and a pair's |difference| is compared with the range
  (max − min) of the run means, which controls the family-wise error of all pairs at once.

Every resampling test counts the observed arrangement as one of its resamples (Phipson & Smyth
2010): p = (count + 1) / (resamples + 1), never 0, so a correction over 1,953 pairs never divides
a zero. Resamples are drawn once for every pair (the same sign flips, the same topic draws), which
leaves each pair's test exact and makes the whole batch a handful of matrix products.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

TESTS = ("t", "randomization", "bootstrap", "tukey")
# Resamples taken at once: bounds the (pairs × block) matrices to a few tens of megabytes.
BLOCK = 1000


@dataclass(frozen=True)
class PairTests:
    """One entry per run pair (see `run_pairs`): the difference of means, its p-value (NaN when
    the pair shares fewer than two topics) and the topics it is tested on."""

    delta: np.ndarray
    p_value: np.ndarray
    topics: np.ndarray


def run_pairs(runs: int) -> tuple[np.ndarray, np.ndarray]:
    """Every (i, j) with i < j, in row order: (0, 1), (0, 2), …, (1, 2), …"""
    i, j = np.triu_indices(runs, k=1)
    return i, j


def differences(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(pairs × topics) per-topic differences a − b, 0 where either run lacks the topic, and the
    (pairs × topics) mask of the topics both runs have."""
    i, j = run_pairs(values.shape[0])
    d = values[i] - values[j]
    shared = np.isfinite(d)
    return np.where(shared, d, 0.0), shared


def _mean(d: np.ndarray, n: np.ndarray) -> np.ndarray:
    return np.divide(d.sum(axis=1), n, out=np.full(len(n), np.nan), where=n > 0)


def t_test(values: np.ndarray) -> PairTests:
    """Paired t over each pair's shared topics, as scipy.stats.ttest_rel computes it. A pair whose
    differences are all 0 gets p = 1 (scipy: NaN, a 0/0): nothing tells the runs apart."""
    from scipy.special import stdtr  # here, not at import: scipy costs the studio's start a second

    d, shared = differences(values)
    n = shared.sum(axis=1)
    mean = _mean(d, n)
    with np.errstate(invalid="ignore", divide="ignore"):
        centred = np.where(shared, d - mean[:, None], 0.0)
        sd = np.sqrt((centred**2).sum(axis=1) / (n - 1))
        t = mean / (sd / np.sqrt(n))
        p = 2 * stdtr(n - 1, -np.abs(t))
    p = np.where(np.all(d == 0, axis=1), 1.0, p)
    return PairTests(mean, np.where(n >= 2, p, np.nan), n)


def _at_least(observed: np.ndarray) -> np.ndarray:
    """The threshold a resampled statistic must reach to count as extreme as the observed one: a
    little below it, so that the observed arrangement itself counts despite rounding in another
    summation order (an infinite |t| stays infinite)."""
    finite = np.isfinite(observed)
    slack = 1e-9 * (1.0 + np.abs(np.where(finite, observed, 0.0)))
    return np.where(finite, observed - slack, observed)


def _blocks(resamples: int) -> Iterator[int]:
    for start in range(0, resamples, BLOCK):
        yield min(BLOCK, resamples - start)


def randomization_test(values: np.ndarray, *, resamples: int = 10_000, seed: int = 0) -> PairTests:
    """Paired sign-flip permutation test, two-sided: p = (#{|Σ ±d| ≥ |Σ d|} + 1) / (resamples + 1).
    A topic the pair does not share has difference 0 and its flip changes nothing."""
    d, shared = differences(values)
    n = shared.sum(axis=1)
    observed = np.abs(d.sum(axis=1))
    threshold = _at_least(observed)
    rng = np.random.default_rng(seed)
    count = np.zeros(len(n))
    for size in _blocks(resamples):
        signs = np.where(rng.random((size, d.shape[1])) < 0.5, -1.0, 1.0)
        count += (np.abs(d @ signs.T) >= threshold[:, None]).sum(axis=1)
    p = (count + 1) / (resamples + 1)
    return PairTests(_mean(d, n), np.where(n >= 2, p, np.nan), n)


def _topic_groups(shared: np.ndarray) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Pairs that share the same topics, grouped: (pair indices, topic indices) per group, so a
    bootstrap draws topics once per group (one group when every run has every topic)."""
    patterns, group = np.unique(shared, axis=0, return_inverse=True)
    for g, pattern in enumerate(patterns):
        yield np.flatnonzero(group.ravel() == g), np.flatnonzero(pattern)


def _studentised(total: np.ndarray, squares: np.ndarray, n: int) -> np.ndarray:
    """|t| of samples given their sums and sums of squares (n values each)."""
    mean = total / n
    sd = np.sqrt(np.maximum(squares - n * mean**2, 0.0) / (n - 1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(np.abs(mean / (sd / np.sqrt(n))))


def bootstrap_test(values: np.ndarray, *, resamples: int = 10_000, seed: int = 0) -> PairTests:
    """Sakai's paired bootstrap test (shift method), two-sided: the differences minus their mean
    are resampled over topics; p = (#{|t*| ≥ |t|} + 1) / (resamples + 1). Each group of pairs with
    the same shared topics draws its own resamples, in the order the groups first appear."""
    d, shared = differences(values)
    n_all = shared.sum(axis=1)
    p = np.full(len(n_all), np.nan)
    rng = np.random.default_rng(seed)
    for pairs, topics in _topic_groups(shared):
        n = len(topics)
        if n < 2:
            continue
        z = d[np.ix_(pairs, topics)]
        observed = _studentised(z.sum(axis=1), (z**2).sum(axis=1), n)
        w = z - z.mean(axis=1, keepdims=True)  # the shift: the null hypothesis made true
        threshold = _at_least(observed)
        count = np.zeros(len(pairs))
        for size in _blocks(resamples):
            draws = rng.integers(0, n, size=(size, n))
            # How often each topic was drawn in each resample: the resampled sums are then products.
            cells = (draws + n * np.arange(size)[:, None]).ravel()
            times = np.bincount(cells, minlength=size * n).reshape(size, n).astype(np.float64)
            t_star = _studentised(w @ times.T, (w**2) @ times.T, n)
            count += (t_star >= threshold[:, None]).sum(axis=1)
        p[pairs] = np.where(observed > 0, (count + 1) / (resamples + 1), 1.0)
    return PairTests(_mean(d, n_all), p, n_all)


def complete_topics(values: np.ndarray) -> np.ndarray:
    """Mask of the topics every run has (Tukey's HSD compares all runs on the same topics)."""
    return np.asarray(np.isfinite(values).all(axis=0))


def tukey_hsd(values: np.ndarray, *, resamples: int = 10_000, seed: int = 0) -> PairTests:
    """Carterette's randomised Tukey HSD over the topics every run has: per resample each topic's
    values are shuffled across runs and the range of the run means taken; a pair's p is
    (#{range ≥ |delta|} + 1) / (resamples + 1). Its p-values are already family-wise: no further
    correction applies."""
    complete = values[:, complete_topics(values)]
    runs, topics = complete.shape
    i, j = run_pairs(runs)
    pairs = len(i)
    if topics == 0 or runs < 2:
        return PairTests(np.full(pairs, np.nan), np.full(pairs, np.nan), np.zeros(pairs, dtype=int))
    means = complete.mean(axis=1)
    delta = means[i] - means[j]
    observed = np.abs(delta)
    threshold = _at_least(observed)
    rng = np.random.default_rng(seed)
    ranges: list[np.ndarray] = []
    by_topic = complete.T  # (topics × runs): each row is shuffled across runs
    for size in _blocks(resamples):
        shuffled = rng.permuted(np.broadcast_to(by_topic, (size, topics, runs)), axis=2)
        resampled_means = shuffled.mean(axis=1)
        ranges.append(resampled_means.max(axis=1) - resampled_means.min(axis=1))
    spread = np.sort(np.concatenate(ranges))
    # How many resampled ranges reach each |delta|: one sorted search instead of a pairs × resamples matrix.
    count = len(spread) - np.searchsorted(spread, threshold, side="left")
    p = (count + 1) / (resamples + 1)
    return PairTests(delta, np.where(topics >= 2, p, np.nan), np.full(pairs, topics))


def run_test(name: str, values: np.ndarray, *, resamples: int = 10_000, seed: int = 0) -> PairTests:
    """The test called `name` (one of TESTS) over every pair of runs."""
    if name == "t":
        return t_test(values)
    if name == "randomization":
        return randomization_test(values, resamples=resamples, seed=seed)
    if name == "bootstrap":
        return bootstrap_test(values, resamples=resamples, seed=seed)
    if name == "tukey":
        return tukey_hsd(values, resamples=resamples, seed=seed)
    raise ValueError(f"unknown test {name!r} ({', '.join(TESTS)})")
