"""`studio audit plan --budget N` (no --name) recommends a design; `studio audit simulate --design
pairs-uncertainty | topics-neyman` sets it beside the uniform design: golden output on the sample project.

To regenerate the golden files after an intended change of output:
    STUDIO_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/cli/test_audit_designs_cli.py
"""

from __future__ import annotations

import json
from pathlib import Path

from cli.cli_helpers import assert_matches_golden, normalised, run_clirunner

LLM = "umbrela-smol"


def studio(project: Path, home: Path, *args: str) -> tuple[int, str, str]:
    result = run_clirunner(["--db", str(project), *args], home)
    return result.code, result.stdout, result.stderr


def test_plan_recommends_a_design_at_the_budget(sample: Path, tmp_path: Path) -> None:
    args = ("audit", "plan", "--qrels", LLM, "--budget", "60", "--pilot", "human", "--trials", "50", "--seed", "1")
    code, out, err = studio(sample, tmp_path, *args, "--format", "json")
    assert code == 0, err
    assert_matches_golden("audit_plan_recommend.json", normalised(out, sample))
    found = json.loads(out)
    assert [r["design"] for r in found["designs"]] == ["topics", "topics-neyman", "pairs", "pairs-uncertainty"]
    code, out, err = studio(sample, tmp_path, *args)
    assert code == 0 and f"Recommended: {found['recommended']}" in err


def test_simulate_sets_each_adaptive_design_beside_the_uniform(sample: Path, tmp_path: Path) -> None:
    for design, budget, golden in (
        ("pairs-uncertainty", "80", "audit_simulate_pairs_uncertainty.json"),
        ("topics-neyman", "6", "audit_simulate_topics_neyman.json"),
    ):
        code, out, err = studio(
            sample,
            tmp_path,
            *("audit", "simulate", "--ref", "human", "--qrels", LLM, "--design", design, "--budget", budget),
            *("--trials", "50", "--seed", "1", "-m", "P(rel=2)@10", "--format", "json"),
        )
        assert code == 0, err
        assert_matches_golden(golden, normalised(out, sample))
        found = json.loads(out)
        assert found["design"] == design and found["width_vs_uniform"] > 0 and found["draws"]
