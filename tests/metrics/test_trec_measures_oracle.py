"""Every trec_eval measure, per topic and averaged, against trec_eval's own C code (pytrec_eval).

pytrec_eval receives each run as {qid: {docid: score}} and sorts it itself, so these tests also
check that `trec_order` ranks exactly as trec_eval does (score descending, docid descending
by bytes). Float grades, which pytrec_eval cannot read, are checked against a direct Python
transcription of trec_eval's formulas (`metric_builders.reference_measure`).
"""

from __future__ import annotations

import pytest
import pytrec_eval
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples
from metric_builders import (
    FLOAT_GRADES,
    Collection,
    Qrels,
    Run,
    collections,
    evaluator_for,
    mean,
    per_topic_dict,
    reference_measure,
    trec_ranking,
)

from studio.metrics.names import parse_measure

TOLERANCE = 1e-9
CUTOFFS = st.sampled_from([1, 2, 3, 5, 10])


def ours_and_trec_eval(k: int, level: int) -> list[tuple[str, str, str]]:
    """(our measure name, pytrec_eval request, pytrec_eval result key)."""
    if level == 1:
        return [
            (f"nDCG@{k}", f"ndcg_cut.{k}", f"ndcg_cut_{k}"),
            ("nDCG", "ndcg", "ndcg"),
            (f"P@{k}", f"P.{k}", f"P_{k}"),
            (f"R@{k}", f"recall.{k}", f"recall_{k}"),
            ("AP", "map", "map"),
            (f"AP@{k}", f"map_cut.{k}", f"map_cut_{k}"),
            ("RR", "recip_rank", "recip_rank"),
            ("Rprec", "Rprec", "Rprec"),
        ]
    return [
        (f"P(rel={level})@{k}", f"P.{k}", f"P_{k}"),
        (f"AP(rel={level})", "map", "map"),
        (f"R(rel={level})@{k}", f"recall.{k}", f"recall_{k}"),
        (f"RR(rel={level})", "recip_rank", "recip_rank"),
        (f"Rprec(rel={level})", "Rprec", "Rprec"),
    ]


def trec_eval_per_topic(
    qrels: Qrels, runs: dict[str, Run], names: list[tuple[str, str, str]], level: int
) -> dict[str, dict[str, dict[str, float]]]:
    """{run: {qid: {key: value}}} as trec_eval computes it."""
    int_qrels = {q: {d: int(g) for d, g in docs.items()} for q, docs in qrels.items()}
    evaluator = pytrec_eval.RelevanceEvaluator(int_qrels, {request for _, request, _ in names}, relevance_level=level)
    return {name: evaluator.evaluate(run) if run else {} for name, run in runs.items()}


def assert_matches_trec_eval(qrels: Qrels, runs: dict[str, Run], k: int, level: int) -> None:
    names = ours_and_trec_eval(k, level)
    expected = trec_eval_per_topic(qrels, runs, names, level)
    evaluator = evaluator_for(qrels, runs)
    for ours, _, key in names:
        measure = parse_measure(ours)
        got = per_topic_dict(evaluator, measure)
        for run in runs:
            want = {qid: values[key] for qid, values in expected[run].items()}
            assert set(got[run]) == set(want), (ours, run)
            for qid, value in want.items():
                assert got[run][qid] == pytest.approx(value, abs=TOLERANCE, rel=0), (ours, run, qid)


@settings(max_examples=examples(500), deadline=None)
@given(collections(), CUTOFFS)
def test_per_topic_values_equal_trec_eval(data: Collection, k: int) -> None:
    qrels, runs = data
    assert_matches_trec_eval(qrels, runs, k, level=1)


@settings(max_examples=examples(300), deadline=None)
@given(collections(), CUTOFFS)
def test_per_topic_values_at_relevance_level_2_equal_trec_eval(data: Collection, k: int) -> None:
    qrels, runs = data
    assert_matches_trec_eval(qrels, runs, k, level=2)


@settings(max_examples=examples(250), deadline=None)
@given(collections(), CUTOFFS, st.sampled_from([1, 2]))
def test_means_over_shared_topics_equal_trec_eval(data: Collection, k: int, level: int) -> None:
    qrels, runs = data
    names = ours_and_trec_eval(k, level)
    expected = trec_eval_per_topic(qrels, runs, names, level)
    evaluator = evaluator_for(qrels, runs)
    for ours, _, key in names:
        means = dict(zip(evaluator.runs, evaluator.means(parse_measure(ours)).tolist(), strict=True))
        for run in runs:
            want = mean([values[key] for values in expected[run].values()])
            assert means[run] == pytest.approx(want, abs=TOLERANCE, rel=0), (ours, run)


@settings(max_examples=examples(250), deadline=None)
@given(collections(), CUTOFFS, st.sampled_from([1, 2]))
def test_complete_means_count_missing_qrels_topics_as_zero(data: Collection, k: int, level: int) -> None:
    qrels, runs = data
    names = ours_and_trec_eval(k, level)
    expected = trec_eval_per_topic(qrels, runs, names, level)
    evaluator = evaluator_for(qrels, runs)
    for ours, _, key in names:
        means = evaluator.means(parse_measure(ours), complete=True).tolist()
        for run, value in zip(evaluator.runs, means, strict=True):
            # trec_eval -c: every qrels topic counts, a topic the run skipped as 0.
            want = sum(values[key] for values in expected[run].values()) / len(qrels)
            assert value == pytest.approx(want, abs=TOLERANCE, rel=0), (ours, run)


FLOAT_MEASURES = [
    ("nDCG", "k"),
    ("nDCG", None),
    ("P", "k"),
    ("R", "k"),
    ("AP", None),
    ("AP", "k"),
    ("RR", None),
    ("RR", "k"),
    ("Rprec", None),
]


@settings(max_examples=examples(400), deadline=None)
@given(collections(grades=FLOAT_GRADES, all_negative_topics=True), CUTOFFS, st.sampled_from([1.0, 2.0, 1.25]))
def test_float_grades_follow_trec_eval_formulas(data: Collection, k: int, level: float) -> None:
    qrels, runs = data
    evaluator = evaluator_for(qrels, runs)
    for name, cut in FLOAT_MEASURES:
        cutoff = k if cut else None
        text = name + (f"(rel={level:g})" if level != 1 and name != "nDCG" else "")
        text += f"@{cutoff}" if cutoff else ""
        got = per_topic_dict(evaluator, parse_measure(text))
        for run_name, run in runs.items():
            want = {
                qid: reference_measure(name, cutoff, level if name != "nDCG" else 1, trec_ranking(docs), qrels[qid])
                for qid, docs in run.items()
                if qid in qrels
            }
            assert set(got[run_name]) == set(want), text
            for qid, value in want.items():
                assert got[run_name][qid] == pytest.approx(value, abs=TOLERANCE, rel=0), (text, qid)


def test_ties_are_broken_by_descending_docid_bytes() -> None:
    # '999' > '1000' and 'a' > 'B' byte-wise: trec_eval ranks a, 999, B, 1000 here.
    qrels = {"1": {"1000": 1}}
    runs = {"r": {"1": {"1000": 1.0, "999": 1.0, "a": 1.0, "B": 1.0}}}
    rr = per_topic_dict(evaluator_for(qrels, runs), parse_measure("RR"))["r"]["1"]
    assert rr == 1 / 4


# trec_eval stores run scores as C `float` (TEXT_RESULTS.sim, DOCNO_INFO.sim): scores that differ
# only beyond single precision tie and fall back to the docid order.
@pytest.mark.parametrize("scores", [(1.0 + 1e-12, 1.0), (16777217.0, 16777216.0), (1e-300, 0.0)])
def test_scores_equal_in_single_precision_tie_as_in_trec_eval(scores: tuple[float, float]) -> None:
    qrels = {"1": {"a": 1}}
    runs = {"r": {"1": {"a": scores[0], "b": scores[1]}}}  # tied in float32: b before a
    want = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(runs["r"])["1"]["recip_rank"]
    assert want == 0.5
    assert per_topic_dict(evaluator_for(qrels, runs), parse_measure("RR"))["r"]["1"] == want
