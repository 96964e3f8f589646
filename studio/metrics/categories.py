"""Best, Acceptable and Unacceptable passages of a topic under reference grades, and the tally of how
a method orders passage pairs across two categories (Arabzadeh & Clarke, "A Comparison of Methods for
Evaluating Generative IR", Section 3: a method is validated on the categories before it is trusted).

Best: the passages with the topic's top grade, when that grade is relevant (≥ `relevant`);
Acceptable: the other relevant passages; Unacceptable: the passages graded below `relevant`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

CATEGORY_PAIRS = (("best", "unacceptable"), ("acceptable", "unacceptable"), ("best", "acceptable"))
# +1: ordered as the categories are; 0: a tie; -1: the other way; None: the pair cannot be compared.
Order = Callable[[str, str, str], int | None]


def categories(grades: Mapping[str, float], relevant: float = 1.0) -> dict[str, list[str]]:
    """{category: passages, sorted} of one topic."""
    top = max(grades.values(), default=0.0)
    found: dict[str, list[str]] = {"best": [], "acceptable": [], "unacceptable": []}
    for docid in sorted(grades):
        grade = grades[docid]
        name = "unacceptable" if grade < relevant else "best" if grade == top else "acceptable"
        found[name].append(docid)
    return found


@dataclass
class Tally:
    """What a method did with the pairs of one category pair."""

    agree: int = 0
    tie: int = 0
    disagree: int = 0
    higher: set[tuple[str, str]] = field(default_factory=set)  # (qid, docid) of the passages compared
    lower: set[tuple[str, str]] = field(default_factory=set)
    topics: set[str] = field(default_factory=set)

    @property
    def pairs(self) -> int:
        return self.agree + self.tie + self.disagree

    def add(self, qid: str, higher: list[str], lower: list[str], signs: np.ndarray) -> None:
        """Signs of every (higher, lower) pair, NaN where the pair was not compared."""
        compared = ~np.isnan(signs)
        if not compared.any():
            return
        self.agree += int((signs == 1).sum())
        self.tie += int((signs == 0).sum())
        self.disagree += int((signs == -1).sum())
        self.higher |= {(qid, higher[i]) for i in np.flatnonzero(compared.any(axis=1))}
        self.lower |= {(qid, lower[j]) for j in np.flatnonzero(compared.any(axis=0))}
        self.topics.add(qid)


def grade_signs(values: Mapping[str, float], higher: list[str], lower: list[str]) -> np.ndarray:
    """sign(value(h) − value(l)) of every pair, NaN where the method gave either no value."""
    hi = np.array([values.get(d, np.nan) for d in higher], dtype=np.float64)[:, None]
    lo = np.array([values.get(d, np.nan) for d in lower], dtype=np.float64)[None, :]
    return np.sign(hi - lo)


def order_signs(order: Order, qid: str, higher: list[str], lower: list[str]) -> np.ndarray:
    """What `order` says of every pair, NaN where it says nothing."""
    signs = np.full((len(higher), len(lower)), np.nan)
    for i, h in enumerate(higher):
        for j, low in enumerate(lower):
            found = order(qid, h, low)
            if found is not None:
                signs[i, j] = found
    return signs


def tally(
    reference: Mapping[str, Mapping[str, float]],
    signs: Callable[[str, list[str], list[str]], np.ndarray],
    relevant: float = 1.0,
) -> dict[str, Tally]:
    """{"best_vs_unacceptable": Tally, …} over every topic of the reference."""
    found = {f"{a}_vs_{b}": Tally() for a, b in CATEGORY_PAIRS}
    for qid in sorted(reference, key=lambda q: q.encode("utf-8")):
        groups = categories(reference[qid], relevant)
        for higher, lower in CATEGORY_PAIRS:
            if groups[higher] and groups[lower]:
                found[f"{higher}_vs_{lower}"].add(
                    qid, groups[higher], groups[lower], signs(qid, groups[higher], groups[lower])
                )
    return found
