"""Audit designs whose inclusion probabilities are not all equal, and the draws that honour them.

Uncertainty-driven pairs (active statistical inference, Zrnic & Candès 2024; LARA, SIGIR 2025):
the variance of the Horvitz–Thompson rectifier Σ_S e_i/π_i is least when π_i ∝ |e_i|, and the
error e_i = gold − LLM is unknown before the audit, so π follows its prediction: the root expected
squared error of the LLM's grade under its own label distribution, sqrt(Σ_g p_g (g − ŷ)²), or a
pilot's root mean squared error at the LLM's grade. A prediction can be wrong (an LLM confidently
wrong gets a small π), and a unit with a tiny π that turns out to be in error blows the estimate
up by 1/π, so the scores are mixed with the uniform design (UNIFORM_SHARE) before scaling to the
budget: no π falls below UNIFORM_SHARE · n/M. π is capped at 1, the excess handed to the others.

The estimate stays unbiased whatever the scores, as long as the π it divides by are the π the
sample was drawn with: `systematic_draw` (randomised systematic sampling, Goodman & Kish 1950)
draws exactly n = Σ π units and includes each unit with probability exactly π_i.

Topic strata by an LLM-only signal: the topic's count of LLM-relevant pairs, cut at its quantiles
into a few strata of similar size (ties kept together), each sampled on its own with Neyman's
allocation n_h ∝ N_h S_h.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from studio.metrics.sampling import MIN_PER_STRATUM as MIN_PER_STRATUM
from studio.metrics.sampling import allocate, at_least_two, neyman_weights

UNIFORM_SHARE = 0.5  # the uniform design's part in the mixture: π ≥ UNIFORM_SHARE · n/M
TOPIC_STRATA = 3


def predicted_error(distribution: Mapping[int, float], grade: float) -> float:
    """sqrt(E[(Y − ŷ)²]) for Y drawn from the label `distribution` (grade → probability) and ŷ the
    grade the LLM gave: how far off the label is expected to be, by the LLM's own account."""
    total = sum(distribution.values())
    if total <= 0:
        return 0.0
    return float(np.sqrt(sum(p * (g - grade) ** 2 for g, p in distribution.items()) / total))


def mixed_probabilities(scores: np.ndarray, budget: int, uniform_share: float = UNIFORM_SHARE) -> np.ndarray:
    """π_i ∝ uniform_share/M + (1 − uniform_share)·s_i/Σs, scaled so that Σ π = budget, each at most
    1 (a capped unit is drawn for sure and the rest of the budget is shared among the others)."""
    score = np.clip(np.nan_to_num(np.asarray(scores, dtype=np.float64)), 0.0, None)
    count = len(score)
    budget = min(int(budget), count)
    if count == 0 or budget <= 0:
        return np.zeros(count)
    informed = score / score.sum() if score.sum() > 0 else np.full(count, 1.0 / count)
    weight = uniform_share / count + (1.0 - uniform_share) * informed
    pi = np.zeros(count)
    capped = np.zeros(count, dtype=bool)
    for _ in range(count + 1):
        rest = budget - capped.sum()
        free = ~capped
        pi[free] = rest * weight[free] / weight[free].sum()
        over = free & (pi >= 1.0)
        if not over.any():
            break
        capped |= over
        pi[capped] = 1.0
    return pi


def systematic_draw(pi: np.ndarray, trials: int, rng: np.random.Generator) -> np.ndarray:
    """(trials × M) 0/1 masks, each a randomised systematic sample: units in a random order, a
    random start u ∈ [0, 1), unit k drawn when an integer lies in [C_{k−1} − u, C_k − u), C the
    running sum of π. Each unit is drawn with probability π_i, and Σ π (a whole number) units in all."""
    count = len(pi)
    masks = np.zeros((trials, count))
    if count == 0:
        return masks
    order = np.argsort(rng.random((trials, count)), axis=1)
    running = np.cumsum(pi[order], axis=1)
    start = rng.random((trials, 1))
    ends = np.floor(running - start)
    begins = np.floor(np.concatenate([np.zeros((trials, 1)), running[:, :-1]], axis=1) - start)
    np.put_along_axis(masks, order, (ends - begins > 0).astype(np.float64), axis=1)
    return masks


def quantile_strata(signal: Sequence[float], strata: int = TOPIC_STRATA) -> tuple[np.ndarray, list[str]]:
    """Each unit's stratum (0 … H−1) by its `signal` cut at quantiles into at most `strata` groups of
    similar size (equal values share a stratum), and each stratum's range as a name."""
    values = np.asarray(signal, dtype=np.float64)
    if values.size == 0:
        return np.zeros(0, dtype=np.int64), []
    cuts = np.unique(np.quantile(values, np.arange(1, strata) / strata, method="higher"))
    cuts = cuts[cuts > values.min()]
    labels = np.searchsorted(cuts, values, side="right").astype(np.int64)
    used = np.unique(labels)
    labels = np.searchsorted(used, labels).astype(np.int64)  # no empty stratum between two others
    names = [f"{values[labels == h].min():g}–{values[labels == h].max():g}" for h in range(len(used))]
    return labels, names


def neyman_counts(sizes: Sequence[int], spreads: Sequence[float], budget: int) -> list[int]:
    """Whole units per stratum by Neyman's allocation (proportional when no spread is known), with
    at least MIN_PER_STRATUM in every stratum that has as many when the budget allows: a stratum of
    one drawn unit has no variance estimate."""
    weights = neyman_weights(sizes, spreads) if any(s > 0 for s in spreads) else [float(n) for n in sizes]
    return at_least_two(allocate(sizes, weights, budget), sizes, budget)


def stratified_draw(labels: np.ndarray, counts: Sequence[int], trials: int, rng: np.random.Generator) -> np.ndarray:
    """(trials × M) 0/1 masks: `counts[h]` units drawn without replacement from stratum h."""
    masks = np.zeros((trials, len(labels)))
    for h, drawn in enumerate(counts):
        where = np.flatnonzero(labels == h)
        if drawn and len(where):
            chosen = np.argsort(rng.random((trials, len(where))), axis=1)[:, :drawn]
            np.put_along_axis(masks, where[chosen], 1.0, axis=1)
    return masks
