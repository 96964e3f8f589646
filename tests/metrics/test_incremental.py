"""Incremental label edits: after any sequence of `Evaluator.set_label` calls, every cached
per-topic matrix and every mean equals that of an evaluator built afresh from the edited labels."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples
from metric_builders import DOCIDS, QIDS, Collection, collections

from studio.metrics.evaluator import Evaluator
from studio.metrics.names import Measure, parse_measure
from studio.metrics.rankings import rankings_from_lists, trec_order

MEASURES = [
    parse_measure(m)
    for m in ("nDCG@5", "nDCG", "AP", "AP(rel=2)", "P@3", "R@5", "RR", "Rprec", "Judged@5", "Compat(p=0.9)")
]

EDITS = st.lists(
    st.tuples(
        st.sampled_from([*QIDS, "new-topic"]),  # "new-topic": in no run and in no qrels
        st.sampled_from([*DOCIDS, "never-retrieved"]),
        st.one_of(st.none(), st.sampled_from([-1, 0, 1, 2, 3, 0.5, 2.75])),
        st.booleans(),  # read a leaderboard after this edit (exercises the cached path)
    ),
    min_size=1,
    max_size=25,
)


def apply(labels: dict[str, dict[str, float]], qid: str, docid: str, grade: float | None) -> None:
    if grade is None:
        labels.get(qid, {}).pop(docid, None)
        if qid in labels and not labels[qid]:
            del labels[qid]  # as the database would: a topic without labels is no qrels topic
    else:
        labels.setdefault(qid, {})[docid] = grade


def rows_by_qid(evaluator: Evaluator, measure: Measure) -> dict[str, np.ndarray]:
    matrix = evaluator.per_topic(measure)
    return {qid: matrix[i] for i, qid in enumerate(evaluator.qids)}


def assert_same_as_fresh(edited: Evaluator, fresh: Evaluator) -> None:
    for measure in MEASURES:
        got, want = rows_by_qid(edited, measure), rows_by_qid(fresh, measure)
        for qid in set(got) | set(want):
            # A topic known to only one of them (its labels all removed, no run has it) is all NaN.
            empty = np.full(len(fresh.runs), np.nan)
            np.testing.assert_allclose(
                got.get(qid, empty), want.get(qid, empty), rtol=0, atol=1e-12, err_msg=f"{measure} {qid}"
            )
        for complete in (False, True):
            np.testing.assert_allclose(
                edited.means(measure, complete=complete),
                fresh.means(measure, complete=complete),
                rtol=0,
                atol=1e-12,
                err_msg=f"{measure} complete={complete}",
            )


@settings(max_examples=examples(300), deadline=None)
@given(collections(all_negative_topics=True), EDITS)
def test_edits_give_the_same_scores_as_a_fresh_evaluator(
    data: Collection,
    edits: list[tuple[str, str, float | None, bool]],
) -> None:
    qrels, runs = data
    rankings = rankings_from_lists(
        {name: {qid: trec_order(docs.items()) for qid, docs in run.items()} for name, run in runs.items()}
    )
    evaluator = Evaluator(rankings, qrels)
    for measure in MEASURES[::2]:  # some matrices cached before the edits, the others after
        evaluator.per_topic(measure)
    labels = {qid: dict(docs) for qid, docs in qrels.items()}
    for qid, docid, grade, look in edits:
        evaluator.set_label(qid, docid, grade)
        apply(labels, qid, docid, grade)
        if look:
            evaluator.means(MEASURES[0])
    assert_same_as_fresh(evaluator, Evaluator(rankings, labels))


def test_input_labels_are_not_modified_by_edits() -> None:
    qrels = {"1": {"a": 1}}
    rankings = rankings_from_lists({"r": {"1": ["a", "b"]}})
    evaluator = Evaluator(rankings, qrels)
    evaluator.set_label("1", "b", 3)
    evaluator.set_label("1", "a", None)
    assert qrels == {"1": {"a": 1}}


def test_undoing_an_edit_restores_the_previous_values_exactly() -> None:
    qrels = {"1": {"a": 1, "c": 2}, "2": {"b": 3}}
    rankings = rankings_from_lists({"r": {"1": ["a", "b", "c"], "2": ["b"]}, "s": {"1": ["c", "a"]}})
    evaluator = Evaluator(rankings, qrels)
    before = {m: evaluator.per_topic(m).copy() for m in MEASURES}
    evaluator.set_label("1", "b", 3)
    assert not np.array_equal(evaluator.per_topic(MEASURES[0]), before[MEASURES[0]], equal_nan=True)
    evaluator.set_label("1", "b", None)
    for measure, matrix in before.items():
        np.testing.assert_array_equal(evaluator.per_topic(measure), matrix)
