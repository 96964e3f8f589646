"""`studio significance --ref R --qrels Q --pair A B`: one pair's decision under both label sets
and the labels it hangs on; the JSON contract (golden), agreement with the whole-matrix command
and with `Project.decision_labels`, and the usage it refuses.

To regenerate the golden files after an intended change of output:
    STUDIO_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/cli/test_significance_pair.py
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli.cli_helpers import assert_matches_golden, run_clirunner

from studio import Project

RUN_A, RUN_B = "rerank-strong", "lexical-bm25"
BASE = ["significance", "--ref", "human", "--qrels", "umbrela-smol"]
CONTRACT_KEYS = {"ref", "qrels", "measure", "run_a", "run_b", "decision", "qrels_decision", "ref_decision", "labels"}
DECISION_KEYS = {"delta", "p_value", "p_adjusted", "significant"}
LABEL_KEYS = {"qid", "docid", "grade", "ref_grade", "change"}


def _json(project: Path, home: Path, *args: str) -> Any:
    result = run_clirunner(["--db", str(project), *BASE, *args, "--format", "json"], home)
    assert result.code == 0, result.stderr
    return json.loads(result.stdout)


def test_json_holds_the_contract_and_matches_its_golden_file(demo_project: Path, tmp_path: Path) -> None:
    result = run_clirunner(
        ["--db", str(demo_project), *BASE, "--pair", RUN_A, RUN_B, "--limit", "5", "--format", "json"], tmp_path
    )
    assert result.code == 0, result.stderr
    found = json.loads(result.stdout)
    assert set(found) >= CONTRACT_KEYS and (found["run_a"], found["run_b"]) == (RUN_A, RUN_B)
    assert set(found["qrels_decision"]) >= DECISION_KEYS and set(found["ref_decision"]) >= DECISION_KEYS
    assert len(found["labels"]) == 5 < found["labels_total"]
    assert all(set(row) >= LABEL_KEYS for row in found["labels"])
    changes = [abs(row["change"]) for row in found["labels"]]
    assert changes == sorted(changes, reverse=True)
    assert_matches_golden("significance_pair.json", result.stdout)


def test_the_table_shows_both_decisions_above_the_labels(demo_project: Path, tmp_path: Path) -> None:
    result = run_clirunner(["--db", str(demo_project), *BASE, "--pair", RUN_A, RUN_B, "--limit", "3"], tmp_path)
    assert result.code == 0, result.stderr
    assert_matches_golden("significance_pair_table.txt", result.stdout)


@pytest.mark.parametrize("test", ["t", "randomization"])
def test_the_decision_is_the_pairs_row_of_the_whole_matrix(test: str, demo_project: Path, tmp_path: Path) -> None:
    options = ["--test", test, "--resamples", "500", "--seed", "2", "--correction", "bh"]
    matrix = _json(demo_project, tmp_path, *options)
    row = next(p for p in matrix["pairs"] if {p["run_a"], p["run_b"]} == {RUN_A, RUN_B})
    # Named the other way round from the matrix's row: the deltas turn sign, the p-values stay.
    first, second = (row["run_b"], row["run_a"])
    found = _json(demo_project, tmp_path, *options, "--pair", first, second)
    assert found["decision"] == row["decision"] and found["topics"] == row["topics"]
    assert found["qrels_decision"] == {
        "delta": pytest.approx(-row["delta"]),
        "p_value": row["p_value"],
        "p_adjusted": row["p_adjusted"],
        "significant": row["significant"],
    }
    assert found["ref_decision"] == {
        "delta": pytest.approx(-row["ref_delta"]),
        "p_value": row["ref_p_value"],
        "p_adjusted": row["ref_p_adjusted"],
        "significant": row["ref_significant"],
    }


def test_the_labels_are_decision_labels(demo_project: Path, tmp_path: Path) -> None:
    found = _json(demo_project, tmp_path, "--pair", RUN_A, RUN_B)
    with Project.open(demo_project, read_only=True) as project:
        behind = project.decision_labels("human", "umbrela-smol", RUN_A, RUN_B)
    assert found["labels"] == behind["labels"] and found["labels_total"] == len(behind["labels"])


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--pair", RUN_A, RUN_B, "--ref", "umbrela-smol"], "two different label sets"),
        (["--pair", RUN_A, "nobody"], "no run named 'nobody'"),
        (["--pair", RUN_A, RUN_A], "two different runs"),
        (["--pair", RUN_A, RUN_B, "--runs", f"{RUN_A},dense-good"], "--runs leaves out 'lexical-bm25'"),
        (["--limit", "3"], "--limit counts the labels behind a --pair"),
    ],
)
def test_usage_it_refuses_exits_2_with_a_reason(
    extra: list[str], message: str, demo_project: Path, tmp_path: Path
) -> None:
    args = ["--db", str(demo_project), "significance", "--qrels", "umbrela-smol"]
    result = run_clirunner([*args, *(["--ref", "human"] if "--ref" not in extra else []), *extra], tmp_path)
    assert result.code == 2
    assert message in result.stderr
    assert result.stdout == ""


def test_a_pair_without_a_reference_is_refused(demo_project: Path, tmp_path: Path) -> None:
    args = ["--db", str(demo_project), "significance", "--qrels", "umbrela-smol", "--pair", RUN_A, RUN_B]
    result = run_clirunner(args, tmp_path)
    assert result.code == 2 and "--ref" in result.stderr and result.stdout == ""
