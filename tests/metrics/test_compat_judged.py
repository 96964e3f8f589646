"""Judged@k against ir_measures' own Python implementation, and Compat(p=…) on hand-worked cases.

Compat's oracle is the reference implementation's conventions (tests/compat_reference.py,
test_compat_reference.py), not ir_measures: ir_measures sums RBO only to the longer of the run and
the ideal ranking (the reference: always 1000 ranks) and gives a topic without a positive grade 0
(the reference: no value). The Judged@k comparison only uses runs without score ties and with
positive scores, on purpose: ir_measures orders a run by score and then by docid *ascending*
(trec_eval, and so the studio, use docid descending).
"""

from __future__ import annotations

from collections.abc import Mapping

import ir_measures
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples
from metric_builders import Collection, Qrels, Run, collections, evaluator_for, per_topic_dict

from studio.metrics.names import parse_measure

TOLERANCE = 1e-9


@st.composite
def tie_free_collections(draw: st.DrawFn) -> Collection:
    qrels, runs = draw(collections(max_runs=3))
    for run in runs.values():
        for qid, docs in run.items():
            # Distinct positive scores in an order hypothesis chooses.
            order = draw(st.permutations(sorted(docs)))
            run[qid] = {docid: float(len(order) - i) + 0.5 for i, docid in enumerate(order)}
    return qrels, runs


def ir_measures_per_topic(measure: ir_measures.measures.Measure, qrels: Qrels, run: Run) -> dict[str, float]:
    """Per-topic values of the topics in both run and qrels (ir_measures also reports the
    qrels topics the run skipped, as 0: that is its averaging, not a per-topic value)."""
    int_qrels = {q: {d: int(g) for d, g in docs.items()} for q, docs in qrels.items()}
    return {m.query_id: m.value for m in ir_measures.iter_calc([measure], int_qrels, run) if m.query_id in run}


def assert_same_per_topic(ours: str, theirs: ir_measures.measures.Measure, qrels: Qrels, runs: dict[str, Run]) -> None:
    got = per_topic_dict(evaluator_for(qrels, runs), parse_measure(ours))
    for name, run in runs.items():
        want = ir_measures_per_topic(theirs, qrels, run) if run else {}
        assert set(got[name]) == set(want), (ours, name)
        for qid, value in want.items():
            assert got[name][qid] == pytest.approx(value, abs=TOLERANCE, rel=0), (ours, name, qid)


@settings(max_examples=examples(300), deadline=None)
@given(tie_free_collections(), st.sampled_from([1, 2, 3, 5, 10]))
def test_judged_at_k_equals_ir_measures(data: Collection, k: int) -> None:
    qrels, runs = data
    assert_same_per_topic(f"Judged@{k}", ir_measures.Judged @ k, qrels, runs)


def compat(qrels: Mapping[str, float], ranking: list[str], text: str = "Compat(p=0.9)") -> float:
    runs = {"r": {"q": {d: float(len(ranking) - i) for i, d in enumerate(ranking)}}}
    return per_topic_dict(evaluator_for({"q": qrels}, runs), parse_measure(text))["r"]["q"]


def test_run_in_ideal_order_is_fully_compatible() -> None:
    qrels = {"a": 3, "b": 2, "c": 2, "d": 1, "e": 0}
    assert compat(qrels, ["a", "c", "b", "d"]) == pytest.approx(1.0, abs=1e-12)


def test_ideal_order_followed_by_non_relevant_documents_is_fully_compatible() -> None:
    qrels = {"a": 3, "b": 1, "x": 0}
    assert compat(qrels, ["a", "b", "x", "y", "z"]) == pytest.approx(1.0, abs=1e-12)


def test_run_without_relevant_document_is_incompatible() -> None:
    qrels = {"a": 3, "b": 1, "x": 0}
    assert compat(qrels, ["x", "y", "z"]) == 0.0


def test_compat_hand_worked_swap_of_two_grades() -> None:
    # Ideal a(2) b(1); run b a; p = 0.5, summed over ranks 1 … 1000: the overlap is 0 at rank 1
    # and 2 from rank 2 on; the ideal overlaps itself 1 at rank 1 and 2 from rank 2 on.
    tail = sum(0.5**i * 2 / (i + 1) for i in range(1, 1000))
    assert compat({"a": 2, "b": 1}, ["b", "a"], "Compat(p=0.5)") == pytest.approx(tail / (1 + tail), abs=1e-12)


def test_judged_counts_negative_grades_as_judged_and_divides_by_docs_shown() -> None:
    qrels = {"a": -1, "b": 0}
    runs = {"r": {"q": {"a": 3.0, "x": 2.0, "b": 1.0}}}
    got = per_topic_dict(evaluator_for({"q": qrels}, runs), parse_measure("Judged@10"))
    assert got["r"]["q"] == pytest.approx(2 / 3)
