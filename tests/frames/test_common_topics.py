"""Every comparison of two label sets that label different topics stands on the topics both label:
its figures are trec_eval's (pytrec_eval) on the label sets cut to those topics, in either direction;
`--topics own` keeps each side's own topics."""

from __future__ import annotations

import numpy as np
import pytest
from evaluation_builders import Qrels, Run, shared_pairs, trec_eval_means, trec_eval_per_topic
from frames.conftest import Collection
from frames.frame_builders import COMMON, LLM_TOPICS, PEOPLE_TOPICS, RUNS, cut
from helpers import known
from scipy import stats

from studio import Project
from studio.domain.frames import TopicChoice, TopicScope
from studio.domain.specs import AgreementSpec, CalibrationSpec, ComparisonSpec, DecisionTest, EstimateSpec
from studio.metrics import correlation as corr

DIRECTIONS = [("people", "llm"), ("llm", "people")]
MEASURES = ["nDCG@10", "AP", "P@5"]


def qrels_of(collection: Collection, name: str) -> Qrels:
    return collection[1] if name == "people" else collection[2]


def common_means(collection: Collection, name: str, measure: str) -> np.ndarray:
    """trec_eval's mean per run (in the project's run order) on the label set cut to the common topics."""
    means = trec_eval_means(collection[0], cut(qrels_of(collection, name), COMMON), measure)
    return np.array([means[run] for run in RUNS])


def common_matrix(runs: dict[str, Run], qrels: Qrels, measure: str) -> np.ndarray:
    """(common topics × runs) of trec_eval's per-topic values, NaN where a run skips a topic."""
    values = trec_eval_per_topic(runs, cut(qrels, COMMON), measure)
    return np.array([[values[run].get(qid, np.nan) for run in RUNS] for qid in COMMON])


def test_the_frame_is_the_topics_both_label_and_names_what_each_side_left_out(overlapping_project: Project) -> None:
    frame = overlapping_project.comparison_frame("people", "llm")
    assert frame.common == tuple(COMMON)
    assert frame.ref_only == tuple(t for t in PEOPLE_TOPICS if t not in COMMON)
    assert frame.qrels_only == tuple(t for t in LLM_TOPICS if t not in COMMON)
    shown = frame.as_json()
    assert shown["topics"] == len(COMMON) and shown["left_out"] == {
        "ref": list(frame.ref_only),
        "qrels": list(frame.qrels_only),
    }
    assert "--topics own" in frame.warnings()[0]
    own = overlapping_project.comparison_frame("people", "llm", TopicChoice(TopicScope.own))
    assert own.as_json()["left_out"] == {"ref": [], "qrels": []} and own.warnings() == []
    assert own.ref_topics() == tuple(PEOPLE_TOPICS) and own.qrels_topics() == tuple(LLM_TOPICS)


@pytest.mark.parametrize(("ref", "qrels"), DIRECTIONS)
@pytest.mark.parametrize("measure", MEASURES)
def test_correlate_is_trec_evals_on_the_common_topics(
    overlapping_project: Project, overlapping: Collection, ref: str, qrels: str, measure: str
) -> None:
    result = overlapping_project.correlation(ref, qrels, measure)
    x, y = common_means(overlapping, ref, measure), common_means(overlapping, qrels, measure)
    board = result.get("leaderboard", [])
    assert [row["run"] for row in board] == RUNS
    assert [row["ref"] for row in board] == pytest.approx(x.tolist(), abs=1e-12)
    assert [row["qrels"] for row in board] == pytest.approx(y.tolist(), abs=1e-12)
    assert result["kendall_tau"] == pytest.approx(stats.kendalltau(x, y).statistic)
    assert result["topics"] == len(COMMON)
    ref_m = common_matrix(overlapping[0], qrels_of(overlapping, ref), measure)
    aud_m = common_matrix(overlapping[0], qrels_of(overlapping, qrels), measure)
    assert result.get("per_topic_tau") == pytest.approx(corr.per_topic_tau(ref_m, aud_m))
    both = ~np.isnan(ref_m) & ~np.isnan(aud_m)
    assert result.get("pooled_tau") == pytest.approx(stats.kendalltau(ref_m[both], aud_m[both]).statistic)


@pytest.mark.parametrize(("ref", "qrels"), DIRECTIONS)
def test_topics_own_gives_each_side_its_own_means(
    overlapping_project: Project, overlapping: Collection, ref: str, qrels: str
) -> None:
    result = overlapping_project.correlation(ref, qrels, "nDCG@10", topics=TopicChoice(TopicScope.own))
    runs = overlapping[0]
    own_x = trec_eval_means(runs, qrels_of(overlapping, ref), "nDCG@10")
    own_y = trec_eval_means(runs, qrels_of(overlapping, qrels), "nDCG@10")
    board = result.get("leaderboard", [])
    assert [row["ref"] for row in board] == pytest.approx([own_x[r] for r in RUNS], abs=1e-12)
    assert [row["qrels"] for row in board] == pytest.approx([own_y[r] for r in RUNS], abs=1e-12)
    assert result["frame"] is not None and result["frame"]["scope"] == "own"
    assert not any("left out" in warning for warning in result.get("warnings", []))


@pytest.mark.parametrize(("ref", "qrels"), DIRECTIONS)
def test_compare_gives_the_tau_and_interval_of_the_cut_label_sets(
    overlapping_project: Project, overlapping: Collection, ref: str, qrels: str
) -> None:
    [row] = overlapping_project.compare(ComparisonSpec(ref, [qrels], "nDCG@10", resamples=300))
    [by_hand] = overlapping_project.compare(ComparisonSpec(f"{ref}-cut", [f"{qrels}-cut"], "nDCG@10", resamples=300))
    x, y = common_means(overlapping, ref, "nDCG@10"), common_means(overlapping, qrels, "nDCG@10")
    assert row["kendall_tau"] == pytest.approx(stats.kendalltau(x, y).statistic)
    for key in ("kendall_tau", "kendall_tau_low", "kendall_tau_high", "tau_ap", "tau_ap_low", "tau_ap_high"):
        assert row[key] == by_hand[key], key
    assert row["topics"] == len(COMMON) and row["frame"]["left_out"]["ref"]


@pytest.mark.parametrize(("ref", "qrels"), DIRECTIONS)
def test_significance_tests_the_common_topics_with_trec_evals_values(
    overlapping_project: Project, overlapping: Collection, ref: str, qrels: str
) -> None:
    tested = overlapping_project.significance(qrels, "AP", ref=ref)
    assert tested.get("topics") == len(COMMON) and tested.get("frame") is not None
    by_hand = overlapping_project.significance(f"{qrels}-cut", "AP", ref=f"{ref}-cut")
    assert [p | {} for p in tested["pairs"]] == [p | {} for p in by_hand["pairs"]]
    values = trec_eval_per_topic(overlapping[0], cut(qrels_of(overlapping, qrels), COMMON), "AP")
    for pair in tested["pairs"]:
        a, b = values[pair["run_a"]], values[pair["run_b"]]
        shared = [q for q in COMMON if q in a and q in b]
        expected = stats.ttest_rel([a[q] for q in shared], [b[q] for q in shared]).pvalue
        assert pair["p_value"] == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize(("ref", "qrels"), DIRECTIONS)
def test_reviews_header_and_queue_stand_on_the_common_topics(
    overlapping_project: Project, overlapping: Collection, ref: str, qrels: str
) -> None:
    session = overlapping_project.review(ref, qrels)
    session.load()
    figures = session.stats()
    x, y = common_means(overlapping, ref, "nDCG@10"), common_means(overlapping, qrels, "nDCG@10")
    assert figures.tau == pytest.approx(stats.kendalltau(x, y).statistic)
    assert figures.frame is not None and figures.frame.common == tuple(COMMON)
    assert {p["qid"] for p in session.queue} <= set(COMMON)
    queue = overlapping_project.disagreements(ref, qrels)
    by_hand = overlapping_project.disagreements(f"{ref}-cut", f"{qrels}-cut")
    assert [(p["qid"], p["docid"], p["delta_tau"]) for p in queue] == [
        (p["qid"], p["docid"], p["delta_tau"]) for p in by_hand
    ]


def test_a_disagreements_delta_tau_is_the_change_its_fix_makes_on_the_common_topics(
    overlapping_project: Project,
) -> None:
    for pair in overlapping_project.disagreements("people", "llm")[:5]:
        before = known(overlapping_project.correlation("people", "llm", details=False)["kendall_tau"])
        overlapping_project.set_label("llm", pair["qid"], pair["docid"], pair["ref_grade"])
        after = known(overlapping_project.correlation("people", "llm", details=False)["kendall_tau"])
        assert after - before == pytest.approx(pair["delta_tau"], abs=1e-12)
        overlapping_project.undo()


def test_agreement_and_the_leaderboard_screen_say_their_frame(
    overlapping_project: Project, overlapping: Collection
) -> None:
    agreed = overlapping_project.agreement(AgreementSpec("people", "llm"))
    assert agreed["pairs"] == len(shared_pairs(overlapping[1], overlapping[2]))
    assert agreed["topics"] == len(COMMON) and agreed["frame"]["left_out"]["qrels"]
    view = overlapping_project.leaderboard_view("people", "llm", "nDCG@10")
    assert view.frame is not None and not view.frame.whole
    x = common_means(overlapping, "people", "nDCG@10")
    assert {row.run: row.ref_score for row in view.runs} == pytest.approx(dict(zip(RUNS, x.tolist(), strict=True)))


def test_a_subset_narrows_every_comparison_to_its_topics(overlapping_project: Project, overlapping: Collection) -> None:
    chosen = TopicChoice(subset=(COMMON[1], COMMON[2], "t08"))
    frame = overlapping_project.comparison_frame("people", "llm", chosen)
    assert frame.common == (COMMON[1], COMMON[2]) and frame.qrels_only == ("t08",) and frame.ref_only == ()
    result = overlapping_project.correlation("people", "llm", "nDCG@10", topics=chosen)
    means = trec_eval_means(overlapping[0], cut(overlapping[1], [COMMON[1], COMMON[2]]), "nDCG@10")
    assert [row["ref"] for row in result.get("leaderboard", [])] == pytest.approx([means[r] for r in RUNS])
    rows = overlapping_project.evaluate("llm", ["nDCG@10"], topics=chosen.subset)
    expected = trec_eval_means(overlapping[0], cut(overlapping[2], set(chosen.subset or ())), "nDCG@10")
    assert {row["run"]: row["value"] for row in rows} == pytest.approx(expected)
    assert {row["topics"] for row in rows if row["run"] != "shuffle"} == {3}


def test_calibrates_tau_stands_on_the_topics_of_the_shared_pairs(overlapping_project: Project) -> None:
    """The gold leaderboard calibrate compares with is the gold set's mean on the topics the shared pairs
    lie on: a gold set that also labels other topics gives the τ of the gold set cut to those topics."""
    whole = overlapping_project.calibrate(CalibrationSpec("llm", "people", "cal-people"))
    cut_by_hand = overlapping_project.calibrate(CalibrationSpec("llm", "people-cut", "cal-people-cut"))
    assert whole["topics"] == len(COMMON)
    for key in ("tau_raw", "tau_calibrated"):
        assert whole[key] == cut_by_hand[key], key


def test_estimate_decisions_ask_the_reference_on_the_topics_it_shares_with_the_audited_set(
    overlapping_project: Project,
) -> None:
    spec = EstimateSpec("llm", "people-cut")
    whole = overlapping_project.estimate_decisions(spec, DecisionTest(ref="people"))
    cut_by_hand = overlapping_project.estimate_decisions(spec, DecisionTest(ref="people-cut"))
    assert whole["ref_topics"] == cut_by_hand["ref_topics"] == len(COMMON)
    assert whole == dict(cut_by_hand, ref="people")
