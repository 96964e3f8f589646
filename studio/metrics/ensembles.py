"""Combining several grades of one pair (judges of an ensemble, or one judge's samples) and
measuring how far apart they are."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from statistics import median, pstdev
from typing import NamedTuple

HOWS = ("majority", "mean", "median")


class Spread(NamedTuple):
    """How far apart a pair's grades are: how many there were, their population standard
    deviation, and the lowest and highest."""

    judges: int
    std: float
    low: float
    high: float


def majority(grades: Sequence[float]) -> float:
    """The most frequent grade. A tie between grades is broken towards the median of all the
    grades (the tied grade nearest to it), and if still tied, towards the lower grade: a pair
    is never raised without a majority for it."""
    counts = Counter(grades)
    top = max(counts.values())
    tied = [g for g, c in counts.items() if c == top]
    if len(tied) == 1:
        return tied[0]
    middle = median(grades)
    return min(tied, key=lambda g: (abs(g - middle), g))


def combine(grades: Sequence[float], how: str) -> float:
    """One grade for a pair from its grades: `majority`, `mean` or `median` (of two middle grades,
    their mean)."""
    if not grades:
        raise ValueError("no grades to combine")
    if how == "majority":
        return float(majority(grades))
    if how == "mean":
        return float(sum(grades) / len(grades))
    if how == "median":
        return float(median(grades))
    raise ValueError(f"unknown way to combine grades {how!r} (known: {', '.join(HOWS)})")


def spread(grades: Sequence[float]) -> Spread:
    return Spread(
        len(grades), float(pstdev(grades)) if len(grades) > 1 else 0.0, float(min(grades)), float(max(grades))
    )


def distribution_spread(probs: Mapping[float, float], floor: float = 0.05) -> Spread:
    """The spread of one answer's label distribution: its standard deviation over the label values,
    and the lowest and highest label holding at least `floor` of the probability (0 judges: no
    sample was drawn)."""
    total = sum(probs.values())
    if total <= 0:
        raise ValueError("an empty label distribution")
    mean = sum(v * p for v, p in probs.items()) / total
    variance = sum(p * (v - mean) ** 2 for v, p in probs.items()) / total
    held = [v for v, p in probs.items() if p / total >= floor] or [max(probs, key=lambda v: probs[v])]
    return Spread(0, float(variance**0.5), float(min(held)), float(max(held)))


def combine_sets(
    members: Sequence[Mapping[str, Mapping[str, float]]], how: str
) -> tuple[dict[str, dict[str, float]], dict[tuple[str, str], Spread]]:
    """The combined label set of several ({qid: {docid: grade}}) and each pair's spread. A pair is
    combined from the members that judged it (a member without a label for it does not vote)."""
    gathered: dict[tuple[str, str], list[float]] = {}
    for labels in members:
        for qid, docs in labels.items():
            for docid, grade in docs.items():
                gathered.setdefault((qid, docid), []).append(float(grade))
    combined: dict[str, dict[str, float]] = {}
    spreads: dict[tuple[str, str], Spread] = {}
    for (qid, docid), grades in gathered.items():
        combined.setdefault(qid, {})[docid] = combine(grades, how)
        spreads[(qid, docid)] = spread(grades)
    return combined, spreads
