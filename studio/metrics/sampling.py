"""Sample sizes and stratum allocations for audits (simple and stratified random sampling
without replacement; Cochran, *Sampling Techniques*, ch. 4–5).

An audit estimates a mean over a finite pool from a sample; the interval's half-width at 95% is
z·sqrt(Var), with the finite population correction (1 − n/N) because units are not drawn twice.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

Z95 = 1.959963984540054
MIN_PER_STRATUM = 2  # a stratum's variance needs two drawn units


def capped_shares(sizes: Sequence[int], weights: Sequence[float], budget: float) -> np.ndarray:
    """Real-valued allocation n_h = budget · w_h / Σ w, no stratum given more than its size (the
    excess goes to the others in proportion to their weights). All-zero weights fall back to the
    sizes (proportional allocation)."""
    size = np.asarray(sizes, dtype=float)
    weight = np.asarray(weights, dtype=float)
    budget = min(float(budget), float(size.sum()))
    shares = np.zeros_like(size)
    fixed = np.zeros(len(size), dtype=bool)
    for _ in range(len(size) + 1):
        free = ~fixed
        rest = budget - size[fixed].sum()
        w = weight[free] if weight[free].sum() > 0 else size[free]
        shares[free] = rest * w / w.sum() if w.sum() > 0 else 0.0
        over = free & (shares > size)
        if not over.any():
            break
        fixed |= over
        shares[over] = size[over]
    return shares


def allocate(sizes: Sequence[int], weights: Sequence[float], budget: int) -> list[int]:
    """Whole units per stratum: `capped_shares` rounded by largest remainder, and at least one unit
    in every non-empty stratum when the budget allows (a stratum with none drawn would have
    inclusion probability 0, and no unbiased estimate would reach it)."""
    size = np.asarray(sizes, dtype=int)
    total = min(int(budget), int(size.sum()))
    ideal = capped_shares(sizes, weights, total)
    counts = np.minimum(np.floor(ideal + 1e-9).astype(int), size)
    nonempty = size > 0
    if total >= int(nonempty.sum()):
        counts[nonempty & (counts == 0)] = 1
    while counts.sum() < total:
        room = np.where(counts < size, ideal - counts, -np.inf)
        counts[int(np.argmax(room))] += 1
    while counts.sum() > total:
        excess = np.where(counts > 1, counts - ideal, -np.inf)
        counts[int(np.argmax(excess))] -= 1
    return [int(c) for c in counts]


def at_least_two(counts: Sequence[int], sizes: Sequence[int], budget: int) -> list[int]:
    """`counts` with MIN_PER_STRATUM units (or the whole stratum, when smaller) in every stratum, the
    units taken from the strata that have the most beyond theirs; unchanged when the budget cannot give
    every stratum its floor. A stratum of one drawn unit of several has no variance estimate: an
    interval over it would be no number at all."""
    result = [int(c) for c in counts]
    floor = [min(MIN_PER_STRATUM, int(n)) for n in sizes]
    if sum(floor) > min(int(budget), sum(int(n) for n in sizes)):
        return result
    for h, need in enumerate(floor):
        while result[h] < need:
            donor = max((k for k in range(len(result)) if result[k] > floor[k]), key=lambda k: result[k], default=None)
            if donor is None:
                break
            result[donor] -= 1
            result[h] += 1
    return result


def proportional_counts(sizes: Sequence[int], budget: int) -> list[int]:
    """Whole units per stratum in proportion to their sizes, at least two in each (`at_least_two`)."""
    return at_least_two(allocate(sizes, [float(n) for n in sizes], budget), sizes, budget)


def neyman_weights(sizes: Sequence[int], sds: Sequence[float]) -> list[float]:
    """Neyman's optimum allocation: n_h ∝ N_h · S_h."""
    return [float(n) * float(s) for n, s in zip(sizes, sds, strict=True)]


def simple_sample_size(sd: float, width: float, population: int, z: float = Z95) -> int:
    """Units a simple random sample needs for an interval of total width `width` on a mean whose
    unit values have standard deviation `sd`: n0 = (2·z·S / W)², n = n0 / (1 + n0 / N)."""
    if population <= 0:
        return 0
    if sd <= 0:
        return min(population, 2)
    ratio = 2.0 * z * sd / width
    n0 = ratio * ratio  # a product overflows to inf where ** raises (a width of 1e-300)
    if not math.isfinite(n0):
        return population
    return min(population, max(2, math.ceil(n0 / (1.0 + n0 / population))))


def stratified_sample_size(sizes: Sequence[int], sds: Sequence[float], width: float, z: float = Z95) -> int:
    """Units a stratified sample with Neyman allocation needs for an interval of total width
    `width` on the pool mean: n = (Σ W_h S_h)² / (V + Σ W_h S_h² / N), W_h = N_h / N, V = (W / 2z)²."""
    size = np.asarray(sizes, dtype=float)
    sd = np.asarray(sds, dtype=float)
    population = float(size.sum())
    if population <= 0:
        return 0
    share = size / population
    spread = float((share * sd).sum())
    if spread <= 0:
        return min(int(population), int((size > 0).sum()))
    half = width / (2.0 * z)
    variance = half * half  # a product overflows to inf where ** raises (a width of 1e308)
    n = spread**2 / (variance + float((share * sd**2).sum()) / population)
    return min(int(population), max(int((size > 0).sum()), math.ceil(n)))
