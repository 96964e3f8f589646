"""Bank edits mark only the edited item's grades stale; `studio judge --stale` grades exactly
those cells, carries every other grade over, and derived label sets follow."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fakes import ScriptedBackend, prompt_of
from helpers import cli, judge_all, scalar

from studio import Project
from studio.banks.stale import StaleCell, kept_cells, stale_cells
from studio.domain.judge_results import JudgeSummaryDict
from studio.domain.judging import JudgeConfig
from studio.domain.models import BankItem, item_text_hash
from studio.judges.backend import ChatRequest
from studio.services.rubric.editing import BankEditor


@pytest.fixture()
def db(sample: Path) -> Path:
    """A copy of the sample project (built once per test process)."""
    return sample


def studio(db: Path, *args: str) -> Any:
    result = cli(db, *args, "-f", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def item_grades(db: Path, label_set: str) -> dict[tuple[str, str, str], float | None]:
    with Project.open(db) as project:
        rows = (
            project.db.cursor()
            .execute(
                """SELECT qid, docid, item_id, label FROM judgments WHERE judge_run_id =
               (SELECT max(judge_run_id) FROM judge_runs JOIN label_sets USING (label_set_id) WHERE name = ?)
               AND item_id IS NOT NULL""",
                [label_set],
            )
            .fetchall()
        )
    return {(q, d, i): label for q, d, i, label in rows}


def labels(db: Path, label_set: str) -> dict[tuple[str, str], float]:
    with Project.open(db) as project:
        set_id = scalar(project.db.cursor(), "SELECT label_set_id FROM label_sets WHERE name = ?", [label_set])
        rows = (
            project.db.cursor()
            .execute("SELECT qid, docid, grade FROM labels WHERE label_set_id = ?", [set_id])
            .fetchall()
        )
    return {(q, d): g for q, d, g in rows}


# --- the pure rule ---------------------------------------------------------------------------


def test_stale_cells_names_edited_new_and_deleted_cells() -> None:
    a, b = BankItem("q", "q/a", "nugget", "alpha"), BankItem("q", "q/b", "nugget", "beta (reworded)")
    c = BankItem("q", "q/c", "nugget", "gamma")
    graded = {
        ("q", "d1", "q/a"): item_text_hash("alpha"),
        ("q", "d1", "q/b"): item_text_hash("beta"),
        ("q", "d1", "q/gone"): item_text_hash("old"),
        ("q", "d1", "q/legacy"): None,
    }
    items = [a, b, c, BankItem("q", "q/legacy", "nugget", "kept from before hashes")]
    stale = stale_cells(graded, [("q", "d1")], items)
    assert stale == [
        StaleCell("q", "d1", "q/b", "edited"),
        StaleCell("q", "d1", "q/c", "new"),
        StaleCell("q", "d1", "q/gone", "deleted"),
    ]
    assert kept_cells(graded, [("q", "d1")], items, stale) == {("q", "d1", "q/a"), ("q", "d1", "q/legacy")}


def test_a_pair_new_to_the_pool_is_stale_in_every_item() -> None:
    items = [BankItem("q", "q/a", "nugget", "alpha"), BankItem("p", "p/a", "nugget", "other topic")]
    graded = {("q", "d1", "q/a"): item_text_hash("alpha")}
    assert stale_cells(graded, [("q", "d1"), ("q", "d2")], items) == [StaleCell("q", "d2", "q/a", "new")]
    assert kept_cells(graded, [("q", "d2")], items, []) == set()  # d1 left the pool: not carried


# --- through the judge ------------------------------------------------------------------------


def test_editing_one_nugget_regrades_only_its_cells_and_derived_sets_follow(db: Path) -> None:
    first = studio(
        db,
        "judge",
        "--method",
        "exam-nugget",
        "--backend",
        "simulated",
        "--bank",
        "nuggets",
        "--topic",
        "1006",
        "--limit",
        "5",
        "--name",
        "nug",
    )
    studio(
        db, "derive", "--from", "nug", "--bank", "nuggets", "--score", "exam-binary", "--min-grade", "4", "--name", "eb"
    )
    assert studio(db, "bank", "stale", "--from", "nug") == []
    before = item_grades(db, "nug")
    with Project.open(db) as project:
        editor = BankEditor(project.db, "nuggets", person="ana")
        edited = editor.items("1006")[0]
        editor.edit(edited["item_id"], text=edited["text"] + " (reworded)")
    listed = studio(db, "bank", "stale", "--from", "nug")
    assert {(c["docid"], c["item_id"], c["reason"]) for c in listed} == {
        (d, edited["item_id"], "edited") for (_, d, _) in before
    }
    stale = studio(db, "judge", "--name", "nug", "--stale")
    assert stale["pairs"] == first["pairs"] == 5
    assert stale["calls"] == stale["stale_cells"] == 5  # the edited item, once per judged document
    assert stale["kept_cells"] == first["calls"] - 5
    assert stale["derived_updated"] == ["eb"]
    after = item_grades(db, "nug")
    assert after.keys() == before.keys()
    assert {k: v for k, v in after.items() if k[2] != edited["item_id"]} == {
        k: v for k, v in before.items() if k[2] != edited["item_id"]
    }
    assert studio(db, "bank", "stale", "--from", "nug") == []
    assert studio(db, "judge", "--name", "nug", "--stale")["calls"] == 0
    # The derived set equals a fresh derivation from the re-graded cells.
    studio(
        db,
        "derive",
        "--from",
        "nug",
        "--bank",
        "nuggets",
        "--score",
        "exam-binary",
        "--min-grade",
        "4",
        "--name",
        "eb-fresh",
    )
    assert labels(db, "eb") == labels(db, "eb-fresh")


def test_stale_assigner_sends_only_stale_nuggets_and_keeps_the_window_mates(db: Path) -> None:
    first = studio(
        db,
        "judge",
        "--method",
        "nugget-assign",
        "--backend",
        "simulated",
        "--bank",
        "nuggets",
        "--topic",
        "1003",
        "--limit",
        "4",
        "--name",
        "assign",
    )
    before = item_grades(db, "assign")
    with Project.open(db) as project:
        editor = BankEditor(project.db, "nuggets", person="ana")
        topic_items = editor.items("1003")
        editor.edit(topic_items[1]["item_id"], text=topic_items[1]["text"] + " indeed")
        editor.delete(topic_items[2]["item_id"])
    stale = studio(db, "judge", "--name", "assign", "--stale")
    assert first["calls"] >= 4
    assert stale["calls"] == 4 and stale["stale_cells"] == 4 and stale["deleted_cells"] == 4
    after = item_grades(db, "assign")
    assert not any(k[2] == topic_items[2]["item_id"] for k in after)
    untouched = {k: v for k, v in before.items() if k[2] not in (topic_items[1]["item_id"], topic_items[2]["item_id"])}
    assert {k: after[k] for k in untouched} == untouched


def test_an_added_item_is_graded_for_every_judged_document(db: Path) -> None:
    studio(
        db,
        "judge",
        "--method",
        "exam-question",
        "--backend",
        "simulated",
        "--bank",
        "questions",
        "--topic",
        "1002",
        "--limit",
        "3",
        "--name",
        "exam",
    )
    with Project.open(db) as project:
        BankEditor(project.db, "questions", person="ana").add("1002", "What else matters?", kind="question")
    stale = studio(db, "judge", "--name", "exam", "--stale")
    assert stale["calls"] == stale["stale_cells"] == 3


def test_stale_refuses_a_method_without_a_bank(db: Path) -> None:
    studio(db, "judge", "--method", "umbrela", "--backend", "simulated", "--topic", "1001", "--name", "u")
    result = cli(db, "judge", "--name", "u", "--stale")
    assert result.exit_code == 2 and "nothing can be stale" in result.stderr


def grade_coverage(request: ChatRequest) -> str:
    """Rates a nugget 5 when every word of it longer than three letters occurs in the passage,
    else 0: an edit that changes the words changes the grades predictably."""
    text = prompt_of(request)
    nugget = text.split("Key fact: ")[-1].split("\n")[0] if "Key fact: " in text else ""
    passage = text.split("Context: ")[-1].lower()
    words = [w for w in nugget.lower().split() if len(w) > 3]
    return "5" if words and all(w in passage for w in words) else "0"


def test_an_edit_moves_the_derived_leaderboard_exactly_as_a_fresh_grading_would(db: Path) -> None:
    def grade(project: Project, name: str, stale_only: bool = False) -> JudgeSummaryDict:
        config = JudgeConfig(method="exam-nugget", backend="coverage", name=name, bank="nuggets", topics=["1001"])
        backend = ScriptedBackend(grade_coverage, name="coverage", model="coverage")
        return judge_all(project.db, config, backend, stale_only=stale_only).as_dict()

    with Project.open(db) as project:
        grade(project, "cover")
    studio(db, "derive", "--from", "cover", "--bank", "nuggets", "--score", "exam-binary", "--name", "eb")
    before_labels = labels(db, "eb")
    with Project.open(db) as project:
        before = project.leaderboard("eb", "nDCG@10")
        editor = BankEditor(project.db, "nuggets", person="ana")
        vital = next(i for i in editor.items("1001") if "boil" in i["text"].lower())
        editor.edit(vital["item_id"], text="Pressure cookers weld glaciers together")  # covered nowhere
        summary = grade(project, "cover", stale_only=True)
        assert summary["calls"] == summary["stale_cells"] == 28 and summary["derived_updated"] == ["eb"]
        project.engine.forget_labels()
        after = project.leaderboard("eb", "nDCG@10")
        assert after != before
        grade(project, "fresh")  # the whole bank graded from scratch, as it is now
    studio(db, "derive", "--from", "fresh", "--bank", "nuggets", "--score", "exam-binary", "--name", "eb-fresh")
    with Project.open(db) as project:
        assert project.leaderboard("eb", "nDCG@10") == project.leaderboard("eb-fresh", "nDCG@10")
    after_labels = labels(db, "eb")
    # Documents that covered the old wording lost one of the topic's items; no document gained.
    assert all(after_labels[pair] <= grade_before for pair, grade_before in before_labels.items())
    assert any(after_labels[pair] < grade_before for pair, grade_before in before_labels.items())
