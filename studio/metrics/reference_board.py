"""One leaderboard's side of the run-level statistics, worked out once and compared with many.

The live view correlates the audited leaderboard with the reference one after every edit, and the
reference does not change between edits: its pair orderings, pair differences, ranks and ranking
are kept here, and each comparison computes the audited side only. Every statistic is the one
`studio.metrics.correlation` gives for the two leaderboards, by the same operations on the same
values (the same bits): the functions there are the definitions, this is their reference half.
"""

from __future__ import annotations

import functools
import operator
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from studio.metrics import correlation as corr


@dataclass(frozen=True)
class ReferenceBoard:
    """A reference leaderboard (a value per run) and what every comparison with it reuses."""

    runs: list[str]
    values: np.ndarray
    names: np.ndarray  # the runs as an array: ties of a ranking go by name
    above: np.ndarray | None  # values_i > values_j (n × n) for τ-b; None where τ-b sorts instead
    differences: np.ndarray  # values_i − values_j of every pair i < j
    signs: np.ndarray  # their signs (τ-a)
    centred_ranks: np.ndarray  # average ranks minus their mean (ρ)
    ranking: list[str]  # runs best first (RBO)
    position: np.ndarray  # each run's place in that ranking (RBO)

    @classmethod
    def of(cls, runs: list[str], values: np.ndarray) -> ReferenceBoard:
        x = np.asarray(values, dtype=np.float64)
        first, second = corr.upper_pairs(len(x))
        differences = x[first] - x[second]
        ranks = corr.average_ranks(x)
        return cls(
            runs=runs,
            values=x,
            names=np.array(runs),
            above=x[:, None] > x[None, :] if 2 <= len(x) < corr.KNIGHT_FROM else None,
            differences=differences,
            signs=np.sign(differences),
            centred_ranks=ranks - ranks.mean() if len(x) else ranks,
            ranking=corr.ranking(runs, x),
            position=np.argsort(np.lexsort((np.array(runs), -x))),
        )

    def kendall_tau_b(self, y: np.ndarray) -> float:
        if self.above is None:  # fewer than two runs, or so many that τ-b sorts (Knight)
            return corr.kendall_tau_b(self.values, y)
        return corr.tau_from_orderings(self.above, np.asarray(y, dtype=np.float64))

    def kendall_tau_a(self, y: np.ndarray) -> float:
        n = len(self.values)
        if n < 2:
            return float("nan")
        first, second = corr.upper_pairs(n)
        return float((self.signs * np.sign(y[first] - y[second])).sum() / (n * (n - 1) / 2))

    def spearman_rho(self, y: np.ndarray) -> float:
        if len(self.values) < 2:
            return float("nan")
        rx = self.centred_ranks
        ry = corr.average_ranks(np.asarray(y, dtype=np.float64))
        ry = ry - ry.mean()
        denominator = np.sqrt((rx * rx).sum() * (ry * ry).sum())
        return float((rx * ry).sum() / denominator) if denominator > 0 else float("nan")

    def tau_ap(self, y: np.ndarray) -> float:
        return corr.tau_ap(self.values, y)

    def rbo(self, y: np.ndarray, p: float = 0.9) -> float:
        """`corr.rbo` of the two rankings, from positions: both rank the same runs, so the overlap
        at depth d is the number of runs both put within their first d + 1, and the terms are
        added up one by one in depth order as `corr.rbo` adds them (the same bits)."""
        n = len(self.runs)
        if n == 0:
            return float("nan")
        second = np.lexsort((self.names, -np.asarray(y)))  # corr.ranking's order, as run indexes
        within = np.maximum(self.position, np.argsort(second))  # the depth from which both hold a run
        overlap = np.cumsum(np.bincount(within, minlength=n))
        weights, norm = _persistence(n, p)
        terms = weights * overlap / np.arange(1, n + 1)
        return functools.reduce(operator.add, terms.tolist(), 0.0) / norm

    def swap_count(self, y: np.ndarray) -> int:
        """How many run pairs the audited leaderboard `y` orders strictly the other way."""
        first, second = corr.upper_pairs(len(self.values))
        aud = np.asarray(y)
        return int(np.count_nonzero(self.differences * (aud[first] - aud[second]) < 0))


@lru_cache(maxsize=16)
def _persistence(depth: int, p: float) -> tuple[np.ndarray, float]:
    """RBO's weights p^0 … p^(depth-1), each the previous times p, and their sum added up in order,
    as `corr.rbo` accumulates both."""
    weights = np.empty(depth)
    weight, norm = 1.0, 0.0
    for d in range(depth):
        weights[d] = weight
        norm += weight
        weight *= p
    weights.flags.writeable = False
    return weights, norm
