"""`studio eval | correlate | agree | disagreements | label | undo | history` on a project file.

The JSON each command prints must be what the Python API returns (itself checked against
trec_eval, scipy and scikit-learn in test_project_evaluation.py); errors exit with 2 and say why
on stderr.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NoReturn

import pytest
from evaluation_builders import RUN_NAMES, Collection, trec_eval_means
from helpers import Studio, cli
from typer.testing import Result

from studio import Project
from studio.domain.specs import AgreementSpec


@pytest.fixture
def studio(db: Path) -> Studio:
    def invoke(*args: str) -> Result:
        return cli(db, *args)

    return invoke


def strict_json(text: str) -> Any:
    """JSON as the standard defines it: NaN and Infinity are not JSON."""

    def refuse(constant: str) -> NoReturn:
        raise ValueError(f"{constant} in JSON output")

    return json.loads(text, parse_constant=refuse)


def json_of(result: Result) -> Any:
    assert result.exit_code == 0, result.output
    return strict_json(result.stdout)


def api(db: Path) -> Project:
    return Project.open(db)


def test_eval_json_rows_equal_the_leaderboard(studio: Studio, db: Path, collection: Collection) -> None:
    runs, human, _ = collection
    rows = json_of(studio("eval", "--qrels", "human", "-m", "nDCG@10", "-m", "P(rel=2)@5", "--format", "json"))
    measures = ("nDCG@10", "P(rel=2)@5")
    assert {(r["run"], r["measure"]) for r in rows} == {(run, m) for run in RUN_NAMES for m in measures}
    with api(db) as project:
        for row in rows:
            assert set(row) == {"run", "measure", "value", "topics"}
            assert row["value"] == project.leaderboard("human", row["measure"])[row["run"]]
            oracle = trec_eval_means(runs, human, row["measure"])[row["run"]]
            assert row["value"] == pytest.approx(oracle, abs=1e-12)


def test_eval_defaults_to_five_measures(studio: Studio) -> None:
    rows = json_of(studio("eval", "--qrels", "llm", "--format", "json"))
    assert {r["measure"] for r in rows} == {"nDCG@10", "AP", "P@10", "RR", "R@100"}
    assert len(rows) == 5 * len(RUN_NAMES)


def test_eval_per_topic_json_rows_carry_the_topic(studio: Studio, db: Path) -> None:
    rows = json_of(studio("eval", "--qrels", "human", "-m", "AP", "--per-topic", "--format", "json"))
    with api(db) as project:
        assert rows == project.evaluate("human", ["AP"], per_topic=True)
    assert all("topic" in r for r in rows)


def test_correlate_json_equals_the_api(studio: Studio, db: Path) -> None:
    result = json_of(studio("correlate", "--ref", "human", "--qrels", "llm", "--measure", "AP", "--format", "json"))
    assert {"ref", "qrels", "measure", "runs", "kendall_tau", "spearman_rho", "tau_ap"} <= set(result)
    with api(db) as project:
        assert result == project.correlation("human", "llm", "AP")


def test_agree_json_equals_the_api(studio: Studio, db: Path) -> None:
    result = json_of(studio("agree", "--ref", "human", "--qrels", "llm", "--format", "json"))
    assert {
        "ref",
        "qrels",
        "pairs",
        "kappa_binary",
        "kappa_graded",
        "krippendorff_alpha",
        "confusion",
        "alignment",
    } <= set(result)
    with api(db) as project:
        assert result == json.loads(json.dumps(project.agreement(AgreementSpec("human", "llm"))))


def test_agree_json_has_null_for_undefined_alignment_rates(tmp_path: Path) -> None:
    # Every pair the reference judges has the same grade: no Unacceptable or Acceptable documents.
    db = tmp_path / "tiny.duckdb"
    files = {
        "r.run": "1 Q0 a 1 2 r\n1 Q0 b 2 1 r\n",
        "human.txt": "1 0 a 1\n1 0 b 1\n",
        "llm.txt": "1 0 a 1\n1 0 b 0\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    for args in (["run", "r.run"], ["qrels", "human.txt", "--name", "human"], ["qrels", "llm.txt", "--name", "llm"]):
        imported = cli(db, "import", args[0], tmp_path / args[1], *args[2:])
        assert imported.exit_code == 0, imported.output
    result = json_of(cli(db, "agree", "--ref", "human", "--qrels", "llm", "--format", "json"))
    assert result["alignment"]["best_vs_unacceptable"] == {"pairs": 0, "agree": None, "tie": None, "disagree": None}


def test_disagreements_json_equals_the_api(studio: Studio, db: Path) -> None:
    rows = json_of(studio("disagreements", "--ref", "human", "--qrels", "llm", "--format", "json"))
    with api(db) as project:
        assert rows == project.disagreements("human", "llm")
    assert rows


def test_label_history_and_undo(studio: Studio, db: Path) -> None:
    with api(db) as project:
        before = project.leaderboard("human", "nDCG@10")
    event = json_of(studio("label", "1", "999", "2", "--qrels", "human", "--note", "x", "--format", "json"))
    assert (event["qid"], event["docid"], event["grade"], event["note"]) == ("1", "999", 2.0, "x")
    history = json_of(studio("history", "--format", "json"))
    assert history[0]["event"] == event["event"] and history[0]["note"] == "x"
    assert history[0]["origin"] == "person" and history[0]["qrels"] == "human"
    undone = json_of(studio("undo", "--format", "json"))
    assert undone["undoes"] == event["event"]
    assert json_of(studio("history", "--format", "json"))[0]["origin"] == "undo"
    with api(db) as project:
        assert project.leaderboard("human", "nDCG@10") == before


def test_label_none_removes_the_label(studio: Studio, db: Path, collection: Collection) -> None:
    _, human, _ = collection
    docid = next(iter(human["2"]))
    json_of(studio("label", "2", docid, "none", "--qrels", "human", "--format", "json"))
    with api(db) as project:
        assert project.label_history()[0]["grade"] is None


def test_undo_with_nothing_to_undo_says_so_on_stderr(studio: Studio) -> None:
    result = studio("undo")
    assert result.exit_code == 0
    assert result.stdout == ""
    assert "nothing to undo" in result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["eval", "--qrels", "nope"],
        ["correlate", "--ref", "human", "--qrels", "nope"],
        ["agree", "--ref", "nope", "--qrels", "llm"],
        ["disagreements", "--ref", "human", "--qrels", "nope"],
        ["label", "1", "a", "2", "--qrels", "nope"],
    ],
)
def test_unknown_label_set_exits_2_naming_it(studio: Studio, args: list[str]) -> None:
    result = studio(*args)
    assert result.exit_code == 2
    assert "nope" in result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize(
    "args",
    [
        ["eval", "--qrels", "human", "-m", "Foo@3"],
        ["eval", "--qrels", "human", "-m", "P"],
        ["correlate", "--ref", "human", "--qrels", "llm", "--measure", "Rprec@5"],
        ["disagreements", "--ref", "human", "--qrels", "llm", "--measure", "Compat(p=2)"],
    ],
)
def test_bad_measure_name_exits_2(studio: Studio, args: list[str]) -> None:
    result = studio(*args)
    assert result.exit_code == 2
    assert "error" in result.stderr.lower()


def test_grade_that_is_not_a_number_exits_2(studio: Studio, db: Path) -> None:
    result = studio("label", "1", "a", "high", "--qrels", "human")
    assert result.exit_code == 2
    with api(db) as project:
        assert project.label_history() == []
