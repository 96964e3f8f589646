"""`studio significance`: the JSON contract and the table on the sample project (golden files),
the decision agreement with --ref, and the usage it refuses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli.cli_helpers import RUNNER_PARAMS, RUNNERS, assert_matches_golden, run_clirunner

CONTRACT_KEYS = {"qrels", "measure", "test", "correction", "alpha", "runs", "pairs"}
PAIR_KEYS = {"run_a", "run_b", "delta", "p_value", "p_adjusted", "significant"}


@pytest.mark.parametrize("runner", RUNNER_PARAMS)
def test_json_holds_the_contract_and_matches_its_golden_file(runner: str, demo_project: Path, tmp_path: Path) -> None:
    args = ["--db", str(demo_project), "significance", "--qrels", "human", "--test", "t", "--correction", "holm"]
    result = RUNNERS[runner]([*args, "--alpha", "0.05", "--format", "json"], tmp_path)
    assert result.code == 0, result.stderr
    found = json.loads(result.stdout)
    assert set(found) >= CONTRACT_KEYS and found["runs"] == 6
    assert len(found["pairs"]) == 15  # each unordered pair once
    assert len({frozenset((p["run_a"], p["run_b"])) for p in found["pairs"]}) == 15
    for pair in found["pairs"]:
        assert set(pair) >= PAIR_KEYS
        assert pair["significant"] == (pair["p_adjusted"] <= 0.05)
    assert_matches_golden("significance_t_holm.json", result.stdout)


def test_decision_agreement_with_a_reference_matches_its_golden_file(demo_project: Path, tmp_path: Path) -> None:
    args = ["--db", str(demo_project), "significance", "--ref", "human", "--qrels", "umbrela-smol"]
    result = run_clirunner(
        [*args, "--test", "randomization", "--resamples", "2000", "--seed", "3", "--format", "json"], tmp_path
    )
    assert result.code == 0, result.stderr
    found = json.loads(result.stdout)
    counts = found["agreement"]
    classes = [p["decision"] for p in found["pairs"]]
    assert {k: classes.count(k) for k in ("both", "opposite", "ref_only", "qrels_only", "neither")} == {
        k: counts[k] for k in ("both", "opposite", "ref_only", "qrels_only", "neither")
    }
    assert set(found["top_k_tau"]) == {"5", "10", "20"} and found["top_k_tau"]["10"] is None  # 6 runs
    assert_matches_golden("significance_agreement_randomization.json", result.stdout)


def test_the_table_lists_the_pairs_and_the_decisions(demo_project: Path, tmp_path: Path) -> None:
    args = ["--db", str(demo_project), "significance", "--ref", "human", "--qrels", "umbrela-smol"]
    result = run_clirunner([*args, "--runs", "rerank-strong,dense-good,lexical-bm25"], tmp_path)
    assert result.code == 0, result.stderr
    assert_matches_golden("significance_agreement_table.txt", result.stdout)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--test", "tukey"], "use --correction none"),
        (["--runs", "rerank-strong,nobody"], "no run named 'nobody'"),
        (["--runs", "rerank-strong"], "at least two runs"),
        (["--ref", "human"], "two different label sets"),
    ],
)
def test_usage_it_refuses_exits_2_with_a_reason(
    extra: list[str], message: str, demo_project: Path, tmp_path: Path
) -> None:
    result = run_clirunner(["--db", str(demo_project), "significance", "--qrels", "human", *extra], tmp_path)
    assert result.code == 2
    assert message in result.stderr
    assert result.stdout == ""
