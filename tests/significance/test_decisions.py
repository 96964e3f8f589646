"""Decision agreement between two label sets, on leaderboards built to hold every class, checked
against the classes worked out by hand."""

from __future__ import annotations

import numpy as np
import pytest

from studio.domain.significance import SignificancePlan
from studio.metrics import decisions
from studio.services.significance.pairs import decided_pairs

TOPICS = 30
T_HOLM = SignificancePlan("t", "holm", 0.05, 1, 0)


def label_sets() -> tuple[np.ndarray, np.ndarray]:
    """Five runs A–E under a reference and an audited label set (runs × topics).

    Runs set apart by an offset of 0.1 or more differ significantly (their noise is 0.01); runs
    given the very same values do not (p = 1). Reference: A .3, B .1, C = B, D −.1, E = B.
    Audited: A .3, B .1, C = A, D .2, E = B.
    """
    rng = np.random.default_rng(0)
    topic = rng.random(TOPICS) * 0.5

    def run(offset: float) -> np.ndarray:
        return topic + offset + rng.normal(0, 0.01, TOPICS)

    ref_a, ref_b, ref_d = run(0.3), run(0.1), run(-0.1)
    aud_a, aud_b, aud_d = run(0.3), run(0.1), run(0.2)
    reference = np.vstack([ref_a, ref_b, ref_b, ref_d, ref_b])
    audited = np.vstack([aud_a, aud_b, aud_a, aud_d, aud_b])
    return reference, audited


# Worked out by hand from the offsets above (pair: class).
BY_HAND = {
    ("A", "B"): "both",  # A ahead under both
    ("A", "C"): "ref_only",  # audited: C = A
    ("A", "D"): "both",
    ("A", "E"): "both",
    ("B", "C"): "qrels_only",  # reference: C = B
    ("B", "D"): "opposite",  # reference B ahead, audited D ahead
    ("B", "E"): "neither",  # E = B under both
    ("C", "D"): "both",
    ("C", "E"): "qrels_only",
    ("D", "E"): "opposite",
}


def test_each_pair_gets_the_class_worked_out_by_hand() -> None:
    reference, audited = label_sets()
    result = decided_pairs("llm", "nDCG@10", list("ABCDE"), audited, T_HOLM, ref="human", ref_values=reference)
    found = {tuple(sorted((p["run_a"], p["run_b"]))): p["decision"] for p in result["pairs"]}
    assert found == BY_HAND
    assert result["agreement"] == {
        "both": 4,
        "opposite": 2,
        "ref_only": 1,
        "qrels_only": 2,
        "neither": 1,
        "precision": pytest.approx(4 / 8),  # both / (both + opposite + qrels_only)
        "recall": pytest.approx(4 / 7),  # both / (both + opposite + ref_only)
    }


def test_the_reference_best_run_beats_every_other_under_the_reference_only() -> None:
    reference, audited = label_sets()
    result = decided_pairs("llm", "nDCG@10", list("ABCDE"), audited, T_HOLM, ref="human", ref_values=reference)
    assert result["best_run"] == {"run": "A", "ref": True, "qrels": False, "both": False}  # audited: A = C


def test_top_k_tau_is_null_with_fewer_runs_than_k() -> None:
    reference, audited = label_sets()
    result = decided_pairs("llm", "nDCG@10", list("ABCDE"), audited, T_HOLM, ref="human", ref_values=reference)
    assert result["top_k_tau"] == {"5": pytest.approx(_tau_b_by_hand(reference, audited)), "10": None, "20": None}


def _tau_b_by_hand(reference: np.ndarray, audited: np.ndarray) -> float:
    """Reference means A > B = C = E > D: one three-way tie. Audited: A = C > D > B = E."""
    # Concordant/discordant pairs over the 10 pairs, ties in either ranking counted as neither.
    x, y = reference.mean(axis=1), audited.mean(axis=1)
    concordant = discordant = ties_x = ties_y = 0
    for a in range(5):
        for b in range(a + 1, 5):
            dx, dy = x[a] - x[b], y[a] - y[b]
            tie_x, tie_y = abs(dx) < 1e-12, abs(dy) < 1e-12
            ties_x += tie_x
            ties_y += tie_y
            if not (tie_x or tie_y):
                concordant += dx * dy > 0
                discordant += dx * dy < 0
    return float((concordant - discordant) / np.sqrt((10 - ties_x) * (10 - ties_y)))


def test_top_k_tau_takes_the_reference_k_best_runs() -> None:
    ref_means = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.1])
    means = np.array([0.8, 0.9, 0.7, 0.6, 0.5, 0.95])  # one swap in the top 5; the last run leaps
    assert decisions.top_k_tau(ref_means, means, 5) == pytest.approx(0.8)  # (9 − 1) / 10
    assert decisions.top_k_tau(ref_means, means, 10) is None


def test_precision_and_recall_are_null_without_significant_pairs() -> None:
    counts = decisions.agreement_counts(["neither", "neither", "ref_only"])
    assert counts["precision"] is None and counts["recall"] == 0.0
