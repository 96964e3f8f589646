"""The review session without a screen: queue order, decisions as audited label edits, undo,
resuming where a review stopped, filters, and the live τ and κ."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from helpers import cli, judge_all

from studio import Project
from studio.domain.judging import JudgeConfig
from studio.domain.views import ReviewFilters
from studio.metrics.agreement import cohen_kappa
from studio.services.meta.review_queue import disagreements
from studio.services.review.session import ReviewSession


@pytest.fixture()
def db(simulated_sample: Path) -> Path:
    return simulated_sample


def session(project: Project, filters: ReviewFilters | None = None) -> ReviewSession:
    review = ReviewSession(project, "human", "sim", person="ana", filters=filters)
    review.load()
    return review


def label(project: Project, name: str, qid: str, docid: str) -> float | None:
    return project.engine.evaluator(name).labels[qid].judged.get(docid)


def test_the_queue_is_the_disagreements_order(db: Path) -> None:
    with Project.open(db) as project:
        review = session(project)
        want = [(d["qid"], d["docid"]) for d in disagreements(project.engine, "human", "sim")]
        assert [(p["qid"], p["docid"]) for p in review.queue] == want and want


def test_a_grade_is_an_audited_edit_and_the_statistics_follow(db: Path) -> None:
    with Project.open(db) as project:
        review = session(project)
        first = review.current()
        assert first is not None
        before = review.stats()
        review.set_grade(3.0)
        assert label(project, "sim", first["qid"], first["docid"]) == 3.0
        assert review.position == 1 and review.decisions_made == 1
        history = project.label_history("sim")
        assert history[0]["grade"] == 3.0 and history[0]["source"] == "ana" and "review" in (history[0]["note"] or "")
        after = review.stats()
        assert after.tau == project.correlation("human", "sim")["kendall_tau"]
        a, b = [], []
        for qid, topic in project.engine.evaluator("human").labels.items():
            for docid, grade in topic.judged.items():
                a.append(grade)
                b.append(project.engine.evaluator("sim").labels[qid].judged[docid])
        assert after.kappa == pytest.approx(cohen_kappa(np.array(a), np.array(b)))
        assert after.tau is not None and before.tau is not None
        assert after.tau_change == pytest.approx(after.tau - before.tau)


def test_accept_keep_reference_skip_and_undo(db: Path) -> None:
    with Project.open(db) as project:
        review = session(project)
        pairs = review.queue[:3]
        llm_grade = label(project, "sim", pairs[0]["qid"], pairs[0]["docid"])
        review.accept()
        assert label(project, "sim", pairs[0]["qid"], pairs[0]["docid"]) == llm_grade
        review.keep_reference()
        assert label(project, "sim", pairs[1]["qid"], pairs[1]["docid"]) == pairs[1]["ref_grade"]
        review.skip()
        assert review.position == 3
        skipped, kept = review.undo(), review.undo()
        assert skipped is not None and skipped["action"] == "skip"
        assert kept is not None and kept["action"] == "reference"
        assert label(project, "sim", pairs[1]["qid"], pairs[1]["docid"]) == pairs[1]["grade"]
        assert review.current() == pairs[1]
        assert project.label_history("sim")[0]["origin"] == "undo"


def test_reopening_resumes_where_the_review_stopped(db: Path) -> None:
    with Project.open(db) as project:
        review = session(project)
        decided = [review.queue[0], review.queue[1]]
        skipped = review.queue[2]
        review.accept()
        review.set_grade(1.0)
        review.skip()
        review.flag()
        review.note("check the title")
        fourth = review.current()
    with Project.open(db) as project:
        again = session(project)
        keys = [(p["qid"], p["docid"]) for p in again.queue]
        # The undecided pairs, re-ranked by their effect on τ now, then the skipped one.
        fresh = [(d["qid"], d["docid"]) for d in disagreements(project.engine, "human", "sim")]
        done = {(d["qid"], d["docid"]) for d in decided}
        skip = (skipped["qid"], skipped["docid"])
        assert keys == [k for k in fresh if k not in done and k != skip] + [skip]
        assert fourth is not None and (fourth["qid"], fourth["docid"]) in keys
        again.revisit(fourth["qid"], fourth["docid"])
        view = again.view()
        assert view is not None and view.flagged and view.notes == ["check the title"]


def test_filters_slice_the_queue(db: Path) -> None:
    with Project.open(db) as project:
        by_topic = session(project, filters=ReviewFilters(topic="1003"))
        assert by_topic.queue and {p["qid"] for p in by_topic.queue} == {"1003"}
        by_grades = session(project, filters=ReviewFilters(ref_grade=3.0, grade=0.0))
        assert all(p["ref_grade"] == 3.0 and p["grade"] == 0.0 for p in by_grades.queue)
        by_run = session(project, filters=ReviewFilters(run="lexical-bm25"))
        retrieved = set(
            project.db.cursor()
            .execute("SELECT qid, docid FROM run_rows JOIN runs USING (run_id) WHERE name = 'lexical-bm25'")
            .fetchall()
        )
        assert by_run.queue and all((p["qid"], p["docid"]) in retrieved for p in by_run.queue)


def with_exam_judge(project: Project) -> ReviewSession:
    """The review again after a rubric judge (exam-nugget, `exam`) graded the first pair's topic."""
    first = session(project).current()
    assert first is not None
    judge_all(
        project.db,
        JudgeConfig(method="exam-nugget", backend="simulated", name="exam", bank="nuggets", topics=[first["qid"]]),
    )
    project.engine.forget_labels()
    return session(project)


def test_the_pair_view_shows_every_judge_and_the_item_grades(db: Path) -> None:
    with Project.open(db) as project:
        review = with_exam_judge(project)
        view = review.view()
        assert view is not None and view.query and view.passage
        # Every judge of the pair (the rubric judge grades items, not the pair).
        assert {j["label_set"] for j in view.judges} == {"sim", "umbrela-smol"}
        assert (next(j for j in view.judges if j["label_set"] == "sim")["output"] or "").startswith("##final score:")
        assert view.items and all(i["label_set"] == "exam" and i["text"] for i in view.items)


@pytest.mark.slow  # a rubric judge run on the simulated sample
def test_pairs_read_together_are_the_pairs_read_one_by_one(db: Path) -> None:
    """The Review screen reads its first pairs in one set of queries: each view is the one its pair
    gets alone, judges, item grades (with their texts, across topics) and prompts sorted to it."""
    with Project.open(db) as project:
        review = with_exam_judge(project)
        pairs = review.queue[:12]
        assert len({pair["qid"] for pair in pairs}) > 1  # not vacuous: several topics in one read
        together = review.pair_views(pairs)
        assert together == [review.pair_view(pair) for pair in pairs]
        assert any(view.items for view in together) and any(not view.items for view in together)
        assert all(view.judges for view in together)


def test_studio_disagreements_marks_the_pairs_a_review_decided(db: Path) -> None:
    with Project.open(db) as project:
        review = session(project)
        first, second = review.queue[0], review.queue[1]
        review.accept()  # the LLM's grade kept: the pair still disagrees
        review.skip()
        queue = {(p["qid"], p["docid"]): p for p in project.disagreements("human", "sim")}
        assert queue[(first["qid"], first["docid"])]["decided"] == "accept"
        assert queue[(second["qid"], second["docid"])]["decided"] == "skip"
        assert sum(p["decided"] is None for p in queue.values()) == len(queue) - 2
        review.undo()  # the skip taken back
        queue = {(p["qid"], p["docid"]): p for p in project.disagreements("human", "sim")}
        assert queue[(second["qid"], second["docid"])]["decided"] is None
    table = cli(db, "disagreements", "--ref", "human", "--qrels", "sim", "--limit", "3")
    assert table.exit_code == 0 and "decided" in table.stdout
