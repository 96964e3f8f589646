"""The evaluation engine through the Python API, on a real project file.

Oracles: trec_eval's C code (pytrec_eval) on the same runs and qrels given as dicts, scipy for
Kendall τ, scikit-learn for κ, and the label edits actually applied.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from evaluation_builders import (
    QRELS_TOPICS,
    RUN_NAMES,
    RUN_TOPICS,
    TREC_EVAL_NAMES,
    Collection,
    edited,
    shared_pairs,
    trec_eval_means,
    trec_eval_per_topic,
)
from helpers import known
from scipy import stats
from sklearn.metrics import cohen_kappa_score

from studio import Project
from studio.domain.errors import UsageError
from studio.domain.specs import AgreementSpec

TOLERANCE = 1e-12


def assert_same_board(got: dict[str, float], want: dict[str, float]) -> None:
    assert list(got) == sorted(want)
    for run, value in want.items():
        assert got[run] == pytest.approx(value, abs=TOLERANCE, rel=0), run


def an_edit(collection: Collection) -> tuple[str, str, int]:
    """A label change that moves bm25's nDCG@10 on topic 1 (every retrieved doc is in its top 10)."""
    runs, human, _ = collection
    docid = sorted(runs["bm25"]["1"])[0]
    return "1", docid, 0 if human["1"].get(docid, 0) > 0 else 3


# -- leaderboards ------------------------------------------------------------------------------


@pytest.mark.parametrize("measure", sorted(TREC_EVAL_NAMES))
@pytest.mark.parametrize("label_set", ["human", "llm"])
def test_leaderboard_equals_trec_eval_means(
    project: Project, collection: Collection, measure: str, label_set: str
) -> None:
    runs, human, llm = collection
    qrels = {"human": human, "llm": llm}[label_set]
    assert_same_board(project.leaderboard(label_set, measure), trec_eval_means(runs, qrels, measure))


@pytest.mark.parametrize("measure", ["nDCG@10", "AP", "P(rel=2)@5"])
def test_complete_leaderboard_counts_unretrieved_qrels_topics_as_zero(
    project: Project, collection: Collection, measure: str
) -> None:
    runs, human, _ = collection
    got = project.leaderboard("human", measure, complete=True)
    assert_same_board(got, trec_eval_means(runs, human, measure, complete=True))
    assert got != project.leaderboard("human", measure)  # topic 1000 is in no run
    rows = project.evaluate("human", [measure], complete=True)
    assert {row["topics"] for row in rows} == {len(human)}


def test_evaluate_rows_have_the_documented_shape(project: Project, collection: Collection) -> None:
    runs, human, _ = collection
    rows = project.evaluate("human", ["nDCG@10", "AP"])
    assert len(rows) == 2 * len(RUN_NAMES)
    for row in rows:
        assert set(row) == {"run", "measure", "value", "topics"}
        assert isinstance(row["run"], str) and isinstance(row["value"], float)
        assert isinstance(row["topics"], int)
        assert row["value"] == pytest.approx(
            trec_eval_means(runs, human, row["measure"])[row["run"]], abs=TOLERANCE, rel=0
        )
        # Topics judged and retrieved by this run.
        assert row["topics"] == len(set(runs[row["run"]]) & set(human))


def test_evaluate_per_topic_rows_carry_the_topic(project: Project, collection: Collection) -> None:
    runs, human, _ = collection
    rows = project.evaluate("human", ["RR"], per_topic=True)
    per_topic = trec_eval_per_topic(runs, human, "RR")
    for row in rows:
        assert set(row) == {"run", "measure", "value", "topics", "topic"}
        if row["topic"] == "all":
            assert row["value"] == pytest.approx(trec_eval_means(runs, human, "RR")[row["run"]])
        else:
            assert row["topics"] == 1
            assert row["value"] == pytest.approx(per_topic[row["run"]][row["topic"]], abs=TOLERANCE, rel=0)
    topic_rows = {(r["run"], r["topic"]) for r in rows if r["topic"] != "all"}
    assert topic_rows == {(run, qid) for run, values in per_topic.items() for qid in values}


# -- audited edits -----------------------------------------------------------------------------


def test_set_label_is_reflected_by_the_leaderboard(project: Project, collection: Collection) -> None:
    runs, human, _ = collection
    qid, docid, grade = an_edit(collection)
    before = project.leaderboard("human", "nDCG@10")
    project.set_label("human", qid, docid, grade, note="checked")
    after = project.leaderboard("human", "nDCG@10")
    assert after != before
    assert_same_board(after, trec_eval_means(runs, edited(human, qid, docid, grade), "nDCG@10"))


def test_edited_labels_persist_in_the_project_file(db: Path, collection: Collection) -> None:
    qid, docid, grade = an_edit(collection)
    with Project.open(db) as project:
        project.leaderboard("human", "AP")  # cached, then updated incrementally
        project.set_label("human", qid, docid, grade)
        incremental = {m: project.leaderboard("human", m) for m in ("AP", "nDCG@10", "Rprec")}
    with Project.open(db) as reopened:  # computed afresh from the file
        for measure, board in incremental.items():
            assert_same_board(reopened.leaderboard("human", measure), board)


def test_undo_restores_the_previous_leaderboard_exactly(project: Project, collection: Collection) -> None:
    qid, docid, grade = an_edit(collection)
    before = {m: project.leaderboard("human", m) for m in ("nDCG@10", "AP", "RR")}
    project.set_label("human", qid, docid, grade)
    event = project.undo()
    assert event is not None and event["qrels"] == "human"
    assert {m: project.leaderboard("human", m) for m in before} == before


def test_two_undos_revert_two_edits_in_reverse_order(project: Project, collection: Collection) -> None:
    runs, human, _ = collection
    qid, docid, _ = an_edit(collection)
    original = project.leaderboard("human", "nDCG@10")
    project.set_label("human", qid, docid, 3)
    after_first = project.leaderboard("human", "nDCG@10")
    second = project.set_label("human", qid, docid, None)  # then removed altogether
    undone = project.undo()
    assert undone is not None and undone["undoes"] == second["event"]
    assert project.leaderboard("human", "nDCG@10") == after_first
    assert_same_board(after_first, trec_eval_means(runs, edited(human, qid, docid, 3), "nDCG@10"))
    project.undo()
    assert project.leaderboard("human", "nDCG@10") == original


def test_undo_with_nothing_left_returns_none(project: Project, collection: Collection) -> None:
    assert project.undo() is None
    qid, docid, grade = an_edit(collection)
    project.set_label("llm", qid, docid, grade)
    assert project.undo() is not None
    assert project.undo() is None


def test_label_history_lists_edits_and_undos_newest_first(project: Project) -> None:
    first = project.set_label("human", "1", "x", 2, note="first")
    second = project.set_label("llm", "2", "a", 1, note="second")
    undo = project.undo()
    assert undo is not None
    history = project.label_history()
    assert [h["event"] for h in history] == [undo["event"], second["event"], first["event"]]
    assert [h["origin"] for h in history] == ["undo", "person", "person"]
    assert history[0]["undoes"] == second["event"]
    assert history[2]["note"] == "first" and history[2]["qrels"] == "human"
    assert [h["event"] for h in project.label_history("human")] == [first["event"]]


def test_label_edit_records_the_grade_it_replaces(project: Project, collection: Collection) -> None:
    _, human, _ = collection
    qid, docid = "1", next(iter(human["1"]))
    event = project.set_label("human", qid, docid, 2.5)
    assert event["previous"] == human[qid][docid]
    assert event["grade"] == 2.5


@pytest.mark.parametrize(
    "call",
    [
        lambda p: p.set_label("nope", "1", "a", 1),
        lambda p: p.leaderboard("nope", "AP"),
        lambda p: p.undo("nope"),
        lambda p: p.correlation("human", "nope"),
        lambda p: p.leaderboard("human", "Foo@3"),
    ],
)
def test_unknown_label_set_or_measure_is_a_usage_error(project: Project, call: Callable[[Project], object]) -> None:
    with pytest.raises(UsageError):
        call(project)


def test_edit_of_a_topic_no_run_retrieved_changes_only_complete_means(project: Project) -> None:
    before = project.leaderboard("human", "AP")
    complete_before = project.leaderboard("human", "AP", complete=True)
    project.set_label("human", "new-topic", "a", 3)
    assert project.leaderboard("human", "AP") == before
    ratio = len(QRELS_TOPICS) / (len(QRELS_TOPICS) + 1)  # one more qrels topic, scored 0
    for run, value in project.leaderboard("human", "AP", complete=True).items():
        assert value == pytest.approx(complete_before[run] * ratio, abs=TOLERANCE)


# -- comparing label sets ----------------------------------------------------------------------


def test_correlation_has_the_documented_keys_and_kendall_tau_b(project: Project) -> None:
    result = project.correlation("human", "llm", "nDCG@10", details=False)
    assert {"ref", "qrels", "measure", "runs", "kendall_tau", "spearman_rho", "tau_ap"} <= set(result)
    assert (result["ref"], result["qrels"], result["measure"], result["runs"]) == ("human", "llm", "nDCG@10", 6)
    ref, aud = project.leaderboard("human", "nDCG@10"), project.leaderboard("llm", "nDCG@10")
    x, y = [ref[r] for r in RUN_NAMES], [aud[r] for r in RUN_NAMES]
    assert result["kendall_tau"] == pytest.approx(stats.kendalltau(x, y).statistic, abs=TOLERANCE)
    assert result["spearman_rho"] == pytest.approx(stats.spearmanr(x, y).statistic, abs=TOLERANCE)


def test_correlation_of_a_label_set_with_itself_is_perfect(project: Project) -> None:
    result = project.correlation("human", "human", "AP", details=False)
    assert result["kendall_tau"] == pytest.approx(1.0)
    assert result["tau_ap"] == pytest.approx(1.0)


def test_agreement_has_the_documented_keys_and_sklearn_kappa(project: Project, collection: Collection) -> None:
    _, human, llm = collection
    result = project.agreement(AgreementSpec("human", "llm"))
    keys = {"ref", "qrels", "pairs", "kappa_binary", "kappa_graded", "krippendorff_alpha", "confusion", "alignment"}
    assert keys <= set(result)
    pairs = shared_pairs(human, llm)
    assert result["pairs"] == len(pairs)
    a, b = [p[2] for p in pairs], [p[3] for p in pairs]
    assert result["kappa_graded"] == pytest.approx(cohen_kappa_score(a, b), abs=TOLERANCE)
    # Default binary threshold on a 0-3 scale is 2 on both sides.
    binary = cohen_kappa_score([g >= 2 for g in a], [g >= 2 for g in b])
    assert result["kappa_binary"] == pytest.approx(binary, abs=TOLERANCE)
    assert sum(map(sum, result["confusion"])) == len(pairs)


def test_agreement_follows_label_edits(project: Project, collection: Collection) -> None:
    _, human, llm = collection
    qid, docid, ref_grade, _ = next(p for p in shared_pairs(human, llm) if p[2] != p[3])
    project.set_label("llm", qid, docid, ref_grade)
    pairs = shared_pairs(human, edited(llm, qid, docid, ref_grade))
    kappa = cohen_kappa_score([p[2] for p in pairs], [p[3] for p in pairs])
    assert project.agreement(AgreementSpec("human", "llm"))["kappa_graded"] == pytest.approx(kappa, abs=TOLERANCE)


def test_disagreements_are_exactly_the_pairs_graded_differently(project: Project, collection: Collection) -> None:
    _, human, llm = collection
    queue = project.disagreements("human", "llm")
    expected = {(q, d, g, h) for q, d, g, h in shared_pairs(human, llm) if g != h}
    assert {(e["qid"], e["docid"], e["ref_grade"], e["grade"]) for e in queue} == expected
    assert len(queue) == len(expected)
    for entry in queue:
        ref_grade, grade = entry["ref_grade"], entry["grade"]
        assert ref_grade is not None and grade is not None
        assert entry["distance"] == abs(ref_grade - grade)


def test_disagreements_put_the_largest_tau_change_first_then_the_largest_distance(project: Project) -> None:
    keys = [(abs(e["delta_tau"]), e["distance"]) for e in project.disagreements("human", "llm")]
    assert keys == sorted(keys, reverse=True)
    assert keys[0][0] > 0  # the collection has pairs that move the leaderboard


def test_first_disagreement_delta_tau_is_the_change_its_fix_makes(project: Project) -> None:
    first = project.disagreements("human", "llm", "nDCG@10", limit=1)[0]
    before = known(project.correlation("human", "llm", "nDCG@10", details=False)["kendall_tau"])
    project.set_label("llm", first["qid"], first["docid"], first["ref_grade"])
    after = known(project.correlation("human", "llm", "nDCG@10", details=False)["kendall_tau"])
    assert after - before == pytest.approx(first["delta_tau"], abs=1e-12)
    project.undo()
    assert project.correlation("human", "llm", "nDCG@10", details=False)["kendall_tau"] == before


def test_every_disagreements_delta_tau_is_the_change_its_fix_makes(project: Project) -> None:
    """The queue's Δτ come from per-topic batches and running totals: each equals a real edit's."""
    before = known(project.correlation("human", "llm", "nDCG@10", details=False)["kendall_tau"])
    queue = project.disagreements("human", "llm", "nDCG@10")
    assert len(queue) > 5
    for entry in queue:
        project.set_label("llm", entry["qid"], entry["docid"], entry["ref_grade"])
        after = known(project.correlation("human", "llm", "nDCG@10", details=False)["kendall_tau"])
        assert after - before == pytest.approx(entry["delta_tau"], abs=1e-12), entry
        project.undo()


def test_run_topics_without_qrels_are_ignored(project: Project, collection: Collection) -> None:
    _, human, _ = collection
    only_in_runs = set(RUN_TOPICS) - set(human)
    assert only_in_runs  # the collection has one
    rows = project.evaluate("human", ["P@5"], per_topic=True)
    assert not {r["topic"] for r in rows} & only_in_runs


@pytest.mark.parametrize("scores", [("1.000000000001", "1.0"), ("16777217", "16777216"), ("1e300", "1e301")])
def test_project_ranks_scores_in_single_precision_as_trec_eval(tmp_path: Path, scores: tuple[str, str]) -> None:
    """Scores equal as C floats (trec_eval's TEXT_RESULTS.sim) tie and fall to the docid order,
    in the DuckDB ranking too; doubles beyond float range become infinity, as in C."""
    run_file = tmp_path / "run.txt"
    run_file.write_text(f"1 Q0 a 1 {scores[0]} r\n1 Q0 b 2 {scores[1]} r\n")
    qrels_file = tmp_path / "qrels.txt"
    qrels_file.write_text("1 0 a 1\n")
    import pytrec_eval

    want = pytrec_eval.RelevanceEvaluator({"1": {"a": 1}}, {"recip_rank"}).evaluate(
        {"1": {"a": float(scores[0]), "b": float(scores[1])}}
    )["1"]["recip_rank"]
    with Project.open(tmp_path / "p.duckdb") as project:
        project.import_runs(run_file)
        project.import_qrels(qrels_file, name="q")
        assert project.leaderboard("q", "RR") == {"r": want}
