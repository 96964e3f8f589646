"""Agreement between two label sets on the pairs both judged: κ, α, confusion, alignment."""

from __future__ import annotations

from collections.abc import Mapping
from itertools import product
from typing import Literal

import numpy as np

Weights = Literal["linear", "quadratic"] | None


def confusion_matrix(reference: np.ndarray, audited: np.ndarray, categories: list[float]) -> np.ndarray:
    """Counts: rows = reference category, columns = audited category (every value must be one
    of `categories`)."""
    k = len(categories)
    order = np.argsort(np.asarray(categories, dtype=np.float64), kind="stable")
    known = np.asarray(categories, dtype=np.float64)[order]
    rows = _category_index(np.asarray(reference, dtype=np.float64), known, order)
    columns = _category_index(np.asarray(audited, dtype=np.float64), known, order)
    return np.bincount(rows * k + columns, minlength=k * k).reshape(k, k).astype(np.int64)


def _category_index(values: np.ndarray, known: np.ndarray, order: np.ndarray) -> np.ndarray:
    """Each value's position in the categories (`known`: the categories sorted, `order`: where
    each sorted one stands in the list given)."""
    found = np.searchsorted(known, values)
    inside = found < len(known)
    if not (inside.all() and np.array_equal(known[np.minimum(found, len(known) - 1)], values)):
        missing = values[~inside | (known[np.minimum(found, len(known) - 1)] != values)]
        raise KeyError(float(missing[0]))
    return order[found]


def categories_of(*arrays: np.ndarray) -> list[float]:
    """The distinct values of `arrays`, in order (NaN last, once), as `np.unique` gives them:
    sorted here, because `np.unique` imports `numpy.ma` on its first call, a few milliseconds of
    the Review screen's start, which asks κ first."""
    if not arrays:
        return []
    values = np.sort(np.concatenate([np.asarray(a, dtype=np.float64).ravel() for a in arrays]))
    if not len(values):
        return []
    distinct = values[np.concatenate(([True], values[1:] != values[:-1]))]
    nan = np.isnan(distinct)
    return [*distinct[~nan].tolist(), float("nan")] if nan.any() else distinct.tolist()


def cohen_kappa(reference: np.ndarray, audited: np.ndarray, weights: Weights = None) -> float:
    """Cohen's κ over the union of both sides' values (ordered), optionally weighted."""
    categories = categories_of(reference, audited)
    k = len(categories)
    if len(reference) == 0:
        return float("nan")
    if k < 2:
        return 1.0 if len(reference) else float("nan")
    observed = confusion_matrix(reference, audited, categories).astype(np.float64)
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0)) / observed.sum()
    i, j = np.indices((k, k))
    if weights is None:
        w = (i != j).astype(np.float64)
    elif weights == "linear":
        w = np.abs(i - j).astype(np.float64)
    else:
        w = ((i - j) ** 2).astype(np.float64)
    denominator = (w * expected).sum()
    if denominator == 0:
        return float("nan")
    return float(1.0 - (w * observed).sum() / denominator)


def binary_kappa(reference: np.ndarray, audited: np.ndarray, ref_threshold: float, threshold: float) -> float:
    """κ after binarising each side at its own threshold (grade ≥ threshold is relevant)."""
    return cohen_kappa((reference >= ref_threshold).astype(float), (audited >= threshold).astype(float))


def krippendorff_alpha_ordinal(reference: np.ndarray, audited: np.ndarray) -> float:
    """Krippendorff's α with the ordinal metric, two coders, every unit coded by both."""
    if len(reference) == 0:
        return float("nan")
    categories = categories_of(reference, audited)
    k = len(categories)
    if k < 2:
        return 1.0
    pairs = confusion_matrix(reference, audited, categories).astype(np.float64)
    coincidence = pairs + pairs.T  # each unit contributes both ordered pairs
    n_c = coincidence.sum(axis=1)
    n = n_c.sum()
    delta = np.zeros((k, k))
    for c, d in product(range(k), repeat=2):
        low, high = min(c, d), max(c, d)
        delta[c, d] = (n_c[low : high + 1].sum() - (n_c[low] + n_c[high]) / 2) ** 2
    disagreement_observed = (coincidence * delta).sum()
    disagreement_expected = (np.outer(n_c, n_c) * delta).sum() / (n - 1)
    if disagreement_expected == 0:
        return float("nan")
    return float(1.0 - disagreement_observed / disagreement_expected)


CATEGORY_PAIRS = (("best", "unacceptable"), ("acceptable", "unacceptable"), ("best", "acceptable"))


def alignment(
    reference: Mapping[str, Mapping[str, float]],
    audited: Mapping[str, Mapping[str, float]],
    relevant: float = 1.0,
) -> dict[str, dict[str, float | int]]:
    """Agreement with the human order (Arabzadeh & Clarke 2025).

    Per topic, the reference grades sort documents into Best (the topic's highest grade, if
    relevant), Acceptable (other grades ≥ `relevant`) and Unacceptable (below `relevant`).
    For every pair of documents from two categories, judged by both sides, the audited labels
    agree (order them the same way), tie, or disagree. Rates are over all such pairs.
    """
    counts = {f"{a}_vs_{b}": {"agree": 0, "tie": 0, "disagree": 0} for a, b in CATEGORY_PAIRS}
    for qid, ref_grades in reference.items():
        other = audited.get(qid, {})
        shared = [d for d in ref_grades if d in other]
        if not shared:
            continue
        top = max(ref_grades[d] for d in shared)
        groups: dict[str, list[float]] = {"best": [], "acceptable": [], "unacceptable": []}
        for docid in shared:
            grade = ref_grades[docid]
            name = "unacceptable" if grade < relevant else "best" if grade == top else "acceptable"
            groups[name].append(other[docid])
        for higher, lower in CATEGORY_PAIRS:
            hi = np.array(groups[higher])[:, None]
            lo = np.array(groups[lower])[None, :]
            if hi.size and lo.size:
                bucket = counts[f"{higher}_vs_{lower}"]
                bucket["agree"] += int((hi > lo).sum())
                bucket["tie"] += int((hi == lo).sum())
                bucket["disagree"] += int((hi < lo).sum())
    result: dict[str, dict[str, float | int]] = {}
    for key, bucket in counts.items():
        total = sum(bucket.values())
        result[key] = {"pairs": total, **{k: (v / total if total else float("nan")) for k, v in bucket.items()}}
    return result
