"""Rubric methods: item-level grades per (topic, document, item), the judge's best-grade label set,
and derived label sets that every measure works on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import cli, judge_all, scalar

from studio import Project
from studio.banks.derived import exam_binary
from studio.domain.judging import JudgeConfig
from studio.judges.parsing import parse_rating
from studio.store import banks as bank_store


@pytest.fixture()
def db(sample: Path) -> Path:
    """A copy of the sample project (built once per test process)."""
    return sample


@pytest.mark.parametrize(
    "text, grade",
    [
        ("4", 4.0),
        ("- 5: The answer is highly relevant", 5.0),
        ("3/5", 3.0),
        ("Rating: 0", 0.0),
        ("", None),
        ("seven", None),
        ("9", None),
    ],
)
def test_parse_rating(text: str, grade: float | None) -> None:
    assert parse_rating(text).label == grade


def test_exam_judge_grades_every_item_of_every_pair(db: Path) -> None:
    with Project.open(db) as project:
        summary = judge_all(
            project.db,
            JudgeConfig(
                method="exam-question",
                backend="simulated",
                name="exam-sim",
                bank="questions",
                topics=["1001", "1002"],
                limit=6,
                kappa=1.0,
            ),
        )
        assert summary.pairs == 6 and summary.failures == 0
        rows = (
            project.db.cursor()
            .execute("SELECT qid, docid, item_id, label FROM judgments WHERE item_id IS NOT NULL")
            .fetchall()
        )
        bank = bank_store.bank_id(project.db.cursor(), "questions")
        assert bank is not None
        per_topic: dict[str, int] = {}
        for item in bank_store.current_items(project.db.cursor(), bank):
            per_topic[item.qid] = per_topic.get(item.qid, 0) + 1
        pairs = {(q, d) for q, d, _, _ in rows}
        assert len(rows) == sum(per_topic[q] for q, _ in pairs)  # one grade per pair and item
        assert all(0 <= label <= 5 for *_, label in rows)
        # the judge's own label set holds each document's best item grade
        best: dict[tuple[str, str], float] = {}
        for q, d, _, label in rows:
            best[(q, d)] = max(best.get((q, d), 0.0), label)
        labels = {
            (q, d): g
            for q, d, g in project.db.cursor()
            .execute(
                "SELECT l.qid, l.docid, l.grade FROM labels l JOIN label_sets s USING (label_set_id)"
                " WHERE s.name = 'exam-sim'"
            )
            .fetchall()
        }
        assert labels == best


def test_exam_methods_need_a_bank(db: Path) -> None:
    result = cli(db, "judge", "--method", "exam-nugget", "--backend", "simulated", "--name", "x", "--limit", "2")
    assert result.exit_code == 2 and "--bank" in result.stderr


def test_derived_label_sets_follow_the_item_grades_and_evaluate(db: Path) -> None:
    with Project.open(db) as project:
        judge_all(
            project.db,
            JudgeConfig(
                method="exam-nugget", backend="simulated", name="nug-sim", bank="nuggets", topics=["1003"], kappa=0.8
            ),
        )
    result = cli(
        db,
        "derive",
        "--from",
        "nug-sim",
        "--bank",
        "nuggets",
        "--score",
        "exam-binary",
        "--min-grade",
        "3",
        "--name",
        "eb",
        "-f",
        "json",
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["labels"] > 0
    with Project.open(db) as project:
        con = project.db.cursor()
        run = scalar(con, "SELECT max(judge_run_id) FROM judge_runs")
        grades: dict[str, dict[str, dict[str, float]]] = {}
        for q, d, i, g in con.execute(
            "SELECT qid, docid, item_id, label FROM judgments WHERE judge_run_id = ?"
            " AND item_id IS NOT NULL AND label IS NOT NULL",
            [run],
        ).fetchall():
            grades.setdefault(q, {}).setdefault(d, {})[i] = g
        bank = bank_store.bank_id(con, "nuggets")
        assert bank is not None
        want = exam_binary(grades, bank_store.current_items(con, bank), 3)
        got = {
            (q, d): g
            for q, d, g in con.execute(
                "SELECT l.qid, l.docid, l.grade FROM labels l JOIN label_sets s USING (label_set_id)"
                " WHERE s.name = 'eb'"
            ).fetchall()
        }
        assert got == {(q, d): s for q, docs in want.items() for d, s in docs.items()}
        assert set(project.leaderboard("eb", "nDCG@10")) == {r["name"] for r in project.runs()}
    again = cli(db, "derive", "--from", "nug-sim", "--bank", "nuggets", "--name", "eb")
    assert again.exit_code == 2 and "--replace" in again.stderr
