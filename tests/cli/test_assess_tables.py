"""`studio assess report` as a paper prints it, on a campaign of two assessors with overlap pairs
they grade differently and one of them unfinished: one confusion matrix per condition (the
people's integer grades as rows, the LLM's as columns) equal to a count by hand, the pairs whose
assessors differ apart (never a column "1.5"), the assessors' agreement per condition in the
terminal, and warnings in the output itself for an unfinished campaign and for intervals on few
topics."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from cli.cli_helpers import assert_matches_golden, run_clirunner
from cli.test_assess_commands import COUNTS, LLM, PLAN, human_labels, studio, write_grades

from studio.services.audit.assessments import PairGrades
from studio.services.campaigns.confusion import confusion_matrix

Pair = tuple[str, str]


def llm_labels(project: Path, home: Path) -> dict[Pair, float]:
    out = home / "llm.qrels"
    run_clirunner(["--db", str(project), "export", "qrels", LLM, "--out", str(out)], home)
    return {(q, d): float(g) for q, _, d, g in (line.split() for line in out.read_text().splitlines())}


def off_by_one(grade: float, i: int) -> float:
    """Every second pair one grade higher (one lower at 3)."""
    return grade if i % 2 == 0 else grade + 1 if grade < 3 else grade - 1


@pytest.fixture
def graded(sample: Path, tmp_path: Path) -> dict[str, Any]:
    """A campaign of alice and bob (30% overlap): alice grades all her pairs as the people's labels;
    bob grades the first half of his, one grade off on every second pair."""
    studio(sample, tmp_path, *PLAN, *COUNTS, "--assessors", "alice,bob", "--overlap", "0.3")
    truth = human_labels(sample, tmp_path)
    alice = studio(sample, tmp_path, "assess", "pairs", "c1", "--assessor", "alice")
    bob = studio(sample, tmp_path, "assess", "pairs", "c1", "--assessor", "bob")
    bob_done = bob[: len(bob) // 2]
    bob_grades = {(p["qid"], p["docid"]): off_by_one(truth[(p["qid"], p["docid"])], i) for i, p in enumerate(bob_done)}
    for name, pairs, grades in (("alice", alice, truth), ("bob", bob_done, bob_grades)):
        path = write_grades(tmp_path / f"{name}.qrels", pairs, grades)
        studio(sample, tmp_path, "assess", "import", "c1", str(path), "--assessor", name)
    given: dict[Pair, dict[str, float]] = defaultdict(dict)
    for p in alice:
        given[(p["qid"], p["docid"])]["alice"] = truth[(p["qid"], p["docid"])]
    for pair, grade in bob_grades.items():
        given[pair]["bob"] = grade
    shown = alice + [p for p in bob if (p["qid"], p["docid"]) not in {(a["qid"], a["docid"]) for a in alice}]
    return {"given": given, "shown": shown, "llm": llm_labels(sample, tmp_path), "home": tmp_path}


def by_hand(given: dict[Pair, dict[str, float]], pairs: list[Pair], llm: dict[Pair, float]) -> dict[str, Any]:
    """Rows 0–3 × columns 0–3 of pairs whose assessors agree; the others by (mean, LLM grade)."""
    cells = [[0] * 4 for _ in range(4)]
    differ: dict[tuple[float, float], int] = defaultdict(int)
    for pair in pairs:
        grades = set(given[pair].values())
        if len(grades) == 1:
            cells[int(grades.pop())][int(llm[pair])] += 1
        else:
            differ[(sum(given[pair].values()) / len(given[pair]), llm[pair])] += 1
    return {"pairs": cells, "differing": [{"mean": m, "llm": g, "pairs": n} for (m, g), n in sorted(differ.items())]}


def test_each_conditions_matrix_equals_a_count_by_hand(sample: Path, graded: dict[str, Any]) -> None:
    report = studio(sample, graded["home"], "assess", "report", "c1", "-m", "nDCG@10")
    assert any(c["matrix"]["differing"] for c in report["conditions"])  # the test sees differing pairs
    for condition in report["conditions"]:
        pairs = [(p["qid"], p["docid"]) for p in graded["shown"] if p["condition"] == condition["condition"]]
        judged = [pair for pair in pairs if pair in graded["given"]]
        expected = by_hand(graded["given"], judged, graded["llm"])
        matrix = condition["matrix"]
        assert matrix["assessor_grades"] == [0, 1, 2, 3] and matrix["llm_grades"] == [0.0, 1.0, 2.0, 3.0]
        assert matrix["pairs"] == expected["pairs"], condition["condition"]
        assert matrix["differing"] == expected["differing"], condition["condition"]
        assert condition["assessors_differ"] == sum(d["pairs"] for d in expected["differing"])
        agreed = [sum(row) for row in expected["pairs"]]
        assert [g["pairs"] for g in condition["grades"]] == agreed  # Table 1: integer grades only
        assert [g["grade"] for g in condition["grades"]] == [0.0, 1.0, 2.0, 3.0]


def test_the_terminal_report_is_paper_shaped_and_warns(sample: Path, graded: dict[str, Any]) -> None:
    table = studio(sample, graded["home"], "assess", "report", "c1", fmt="table")
    assert_matches_golden("assess_report_overlap.txt", table)
    assert "grade 1.5" not in table and "grade 2.5" not in table  # a mean is never a grade column
    assert "assessors differ, mean" in table
    assert "Agreement of the assessors per condition" in table and "alice–bob" in table
    report = studio(sample, graded["home"], "assess", "report", "c1")
    for condition in report["conditions"]:
        message = f"{condition['condition']}: τ and confusion from {condition['judged']} of {condition['shown']} pairs"
        unfinished = condition["judged"] < condition["shown"]
        assert (message in table) == unfinished, condition
        kinds = {w["kind"] for w in report["warnings"] if w["condition"] == condition["condition"]}
        assert ("unfinished" in kinds) == unfinished


def test_a_finished_campaign_on_many_topics_has_no_warning(sample: Path, tmp_path: Path) -> None:
    studio(sample, tmp_path, *PLAN, "--manual", "5", "--seed", "1")
    pairs = studio(sample, tmp_path, "assess", "pairs", "c1")
    grades = write_grades(tmp_path / "nist.qrels", pairs, human_labels(sample, tmp_path))
    studio(sample, tmp_path, "assess", "import", "c1", str(grades), "--assessor", "nist")
    report = studio(sample, tmp_path, "assess", "report", "c1", "-m", "nDCG@10")
    assert [w for w in report["warnings"] if w["condition"] == "manual"] == []
    assert "Read first" not in studio(sample, tmp_path, "assess", "report", "c1", fmt="table").split("Table 1")[0]


def test_few_topics_warn_only_where_an_interval_is_given(sample: Path, tmp_path: Path) -> None:
    studio(sample, tmp_path, *PLAN, "--manual", "3", "--seed", "1")
    pairs = studio(sample, tmp_path, "assess", "pairs", "c1")
    grades = write_grades(tmp_path / "nist.qrels", pairs, human_labels(sample, tmp_path))
    studio(sample, tmp_path, "assess", "import", "c1", str(grades), "--assessor", "nist")
    report = studio(sample, tmp_path, "assess", "report", "c1", "-m", "nDCG@10")
    few = [w for w in report["warnings"] if w["kind"] == "few_topics"]
    assert [w["condition"] for w in few] == ["manual"]
    assert "rest on 3 topics (fewer than 5)" in few[0]["message"]


def test_the_matrix_keeps_llm_grades_off_the_scale_and_ungraded_pairs_apart() -> None:
    judged = {
        ("q", "a"): PairGrades({"x": 2.0}),
        ("q", "b"): PairGrades({"x": 1.0, "y": 3.0}),  # mean 2: the assessors differ all the same
        ("q", "c"): PairGrades({"x": 0.0, "y": 0.0}),
        ("q", "d"): PairGrades({"x": 3.0}),
        ("q", "e"): PairGrades({"x": 1.0, "y": 2.0}, adjudicated=2.0),
    }
    llm: dict[Pair, float | None] = {("q", "a"): 4.0, ("q", "b"): 1.0, ("q", "c"): 0.0, ("q", "d"): None}
    llm[("q", "e")] = 2.0
    matrix = confusion_matrix(judged, llm)
    assert matrix["llm_grades"] == [0.0, 1.0, 2.0, 3.0, 4.0]
    assert matrix["pairs"] == [[1, 0, 0, 0, 0], [0] * 5, [0, 0, 1, 0, 1], [0] * 5]
    assert matrix["llm_ungraded"] == [0, 0, 0, 1]
    assert matrix["differing"] == [{"mean": 2.0, "llm": 1.0, "pairs": 1}]
    assert json.loads(json.dumps(matrix)) == matrix
