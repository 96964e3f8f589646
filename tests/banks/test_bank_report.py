"""`studio bank report`: spurious items, uncovered relevant documents, each item's effect on τ."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from fakes import ScriptedBackend
from helpers import cli, judge_all

from studio import Project
from studio.domain.judging import JudgeConfig
from studio.domain.models import BankItem
from studio.judges.backend import ChatRequest
from studio.metrics.correlation import kendall_tau_b
from studio.services.evaluation.engine import measure_of
from studio.store import banks as bank_store

TOPIC = "1007"


def scripted_grades(spurious_item: str, reference: dict[str, float]) -> ScriptedBackend:
    """Grades one chosen item 5 on every document (a spurious item), every other item 5 only on
    documents the reference grades 3, and 0 elsewhere."""

    def reply(request: ChatRequest) -> str:
        _, docid, item_id = request.subject
        return "5" if item_id == spurious_item or reference.get(docid) == 3 else "0"

    return ScriptedBackend(reply)


def grade_with_a_spurious_item(project: Project) -> tuple[list[BankItem], dict[str, float]]:
    """Judge TOPIC into label set `nug` with scripted_grades; the topic's items and human grades."""
    con = project.db.cursor()
    bank = bank_store.bank_id(con, "nuggets")
    assert bank is not None
    items = [i for i in bank_store.current_items(con, bank) if i.qid == TOPIC]
    reference = dict(
        con.execute(
            "SELECT l.docid, l.grade FROM labels l JOIN label_sets s USING (label_set_id)"
            " WHERE s.name = 'human' AND l.qid = ?",
            [TOPIC],
        ).fetchall()
    )
    config = JudgeConfig(method="exam-nugget", backend="scripted", name="nug", bank="nuggets", topics=[TOPIC])
    judge_all(project.db, config, scripted_grades(items[0].item_id, reference))
    return items, reference


def test_report_finds_the_spurious_item_and_the_uncovered_relevant_documents(sample: Path) -> None:
    db = sample  # a copy of the sample project, built once per test process
    with Project.sample(db) as project:
        items, reference = grade_with_a_spurious_item(project)
        report = project.bank_report("nuggets", "nug", topics=[TOPIC])
        # the τ of all items is the τ of the Exam-Binary label set derived from the same grades
        project.derive("nug", "nuggets", "exam-binary", "eb")
        assert report["tau_all_items"] == project.correlation("human", "eb", "nDCG@10", details=False)["kendall_tau"]

    assert report["relevant_at"] == 2.0
    assert [s["item_id"] for s in report["spurious"]] == [items[0].item_id]
    nonrelevant = sorted(d for d, g in reference.items() if g < 2)
    assert report["spurious"][0]["nonrelevant_docs"] == nonrelevant
    # grade-2 documents are relevant, and only the spurious item (which covers everything) covers them
    assert report["uncovered_relevant"] == []
    assert {e["item_id"] for e in report["item_effect"]} == {i.item_id for i in items}
    grid = report["grid"][TOPIC]
    assert set(grid) == set(reference) and all(len(per) == len(items) for per in grid.values())

    result = cli(db, "bank", "report", "nuggets", "--from", "nug", "--topic", TOPIC, "-f", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["spurious"][0]["item_id"] == items[0].item_id


def test_report_needs_item_grades(sample: Path) -> None:
    db = sample  # a copy of the sample project, built once per test process
    result = cli(db, "bank", "report", "nuggets", "--from", "human")
    assert result.exit_code == 2 and "no item grades" in result.stderr
    with Project.open(db) as project:
        assert project.label_sets()[0]["name"] == "human"


def test_cover_leaderboard_counts_items_covered_in_the_top_k(tmp_path: Path) -> None:
    """With the scripted grades, an item is covered by every document (the spurious one) or by the
    documents graded 3: Cover@k of a run is computed here from the run file itself."""
    db = tmp_path / "p.duckdb"
    with Project.sample(db) as project:
        items, reference = grade_with_a_spurious_item(project)
        con = project.db.cursor()
        bank = bank_store.bank_id(con, "nuggets")
        assert bank is not None
        result = project.cover_leaderboard("nug", "nuggets", k=3)
        topics = len({i.qid for i in bank_store.current_items(con, bank)})
        for row in result["leaderboard"]:
            ranked = con.execute(
                "SELECT docid FROM run_rows JOIN runs USING (run_id) WHERE name = ? AND qid = ?"
                " ORDER BY score DESC, docid DESC LIMIT 3",
                [row["run"], TOPIC],
            ).fetchall()
            top = [d for (d,) in ranked]
            covered = 1 + (len(items) - 1) * any(reference.get(d) == 3 for d in top)
            assert row["value"] == pytest.approx(covered / len(items) / topics)
        # τ against the reference stands on the bank's topics the reference labels (all of them here)
        assert result["ref_topics"] == topics
        board = np.array([row["value"] for row in result["leaderboard"]])
        human = project.engine.evaluator("human")
        common = sorted({i.qid for i in bank_store.current_items(con, bank)} & human.labelled_topics())
        gold_board = human.means(measure_of("nDCG@10"), topics=common)
        assert result["kendall_tau"] == pytest.approx(kendall_tau_b(gold_board, board))
