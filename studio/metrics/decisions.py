"""Do two label sets lead to the same significance decisions? Pair by pair, and in all.

A pair's class compares the reference's decision with the audited set's:
* `both`: significant under both, the same run ahead;
* `opposite`: significant under both, different runs ahead;
* `ref_only` / `qrels_only`: significant under one set only;
* `neither`.

Precision and recall treat the audited set's significant pairs as predictions of the
reference's: precision = both / (both + opposite + qrels_only), recall = both / (both + opposite +
ref_only). An `opposite` pair counts against both (the audited set claims a difference the
reference supports the other way round: a wrong claim and a missed one).
"""

from __future__ import annotations

import numpy as np

from studio.metrics import correlation as corr

CLASSES = ("both", "opposite", "ref_only", "qrels_only", "neither")


def decision_classes(
    ref_significant: np.ndarray, ref_delta: np.ndarray, significant: np.ndarray, delta: np.ndarray
) -> list[str]:
    """The class of each pair (see the module's docstring); deltas in the same orientation."""
    classes = []
    for ref_sig, ref_d, sig, d in zip(ref_significant, ref_delta, significant, delta, strict=True):
        if ref_sig and sig:
            classes.append("both" if np.sign(ref_d) == np.sign(d) else "opposite")
        elif ref_sig:
            classes.append("ref_only")
        elif sig:
            classes.append("qrels_only")
        else:
            classes.append("neither")
    return classes


def agreement_counts(classes: list[str]) -> dict[str, int | float | None]:
    """Pairs of each class, and the audited set's precision and recall against the reference."""
    counts: dict[str, int | float | None] = {name: classes.count(name) for name in CLASSES}
    both, opposite = classes.count("both"), classes.count("opposite")
    claimed = both + opposite + classes.count("qrels_only")
    supported = both + opposite + classes.count("ref_only")
    counts["precision"] = both / claimed if claimed else None
    counts["recall"] = both / supported if supported else None
    return counts


def top_k_tau(ref_means: np.ndarray, means: np.ndarray, k: int) -> float | None:
    """Kendall τ-b of the two leaderboards over the reference's k best runs (None: fewer runs, or
    undefined). Ties at the k-th place go by run order (a stable sort)."""
    if len(ref_means) < k:
        return None
    top = np.argsort(-ref_means, kind="stable")[:k]
    tau = corr.kendall_tau_b(ref_means[top], means[top])
    return None if np.isnan(tau) else float(tau)


def beats_every_other(best: int, i: np.ndarray, j: np.ndarray, delta: np.ndarray, significant: np.ndarray) -> bool:
    """Whether run `best` is significantly ahead of every other run (pairs (i, j), delta = i − j)."""
    mine = (i == best) | (j == best)
    ahead = np.where(i[mine] == best, delta[mine], -delta[mine]) > 0
    return bool(mine.any() and (significant[mine] & ahead).all())
