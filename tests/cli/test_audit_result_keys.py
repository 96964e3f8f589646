"""The JSON of every `studio audit` command that prints a result has the keys of its result type
(`studio/domain/audit_results.py`, `audit_designs.py`) in the order the type declares them, its
nested rows too: a key renamed on one side only fails here, beside mypy's check of the readers."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cli.cli_helpers import run_clirunner

from studio.domain import audit_designs as designs
from studio.domain import audit_results as results

LLM = "umbrela-smol"


def studio(project: Path, home: Path, *args: str) -> Any:
    """The command's JSON output (it must succeed)."""
    result = run_clirunner(["--db", str(project), *args, "--format", "json"], home)
    assert result.code == 0, result.stderr
    return json.loads(result.stdout)


def keys_of(row: type) -> list[str]:
    """A TypedDict's keys in the order it declares them (a base's first)."""
    return list(vars(row)["__annotations__"])


def assert_shape(found: Mapping[str, object], row: type) -> None:
    """`found` has every key `row` requires and no key it lacks, in `row`'s order."""
    required: frozenset[str] = vars(row)["__required_keys__"]
    assert required <= set(found), f"{row.__name__} lacks {sorted(required - set(found))}"
    assert list(found) == [key for key in keys_of(row) if key in found], row.__name__


def assert_rows(rows: list[Mapping[str, object]], row: type) -> None:
    assert rows, f"no {row.__name__} to check"
    for found in rows:
        assert_shape(found, row)


def test_simulate_prints_the_simulation_keys(sample: Path, tmp_path: Path) -> None:
    args = ("audit", "simulate", "--ref", "human", "--qrels", LLM, "--trials", "5", "--seed", "1")
    uniform = studio(sample, tmp_path, *args, "--design", "topics", "--budget", "4")
    assert set(uniform) == vars(designs.AuditSimulation)["__required_keys__"]  # a uniform design: no optional key
    assert_shape(uniform, designs.AuditSimulation)
    beside = studio(sample, tmp_path, *args, "--design", "pairs-uncertainty", "--budget", "80", "-m", "P(rel=2)@10")
    assert list(beside) == keys_of(designs.AuditSimulation)  # every key, the optional ones too
    assert_rows(beside["per_run"], designs.RunCoverage)


def test_plan_prints_the_draw_and_the_plans_keys(sample: Path, tmp_path: Path) -> None:
    plan = ("audit", "plan", "--qrels", LLM, "--seed", "3")
    drawn = studio(sample, tmp_path, *plan, "--name", "p", "--budget", "20")
    assert list(drawn) == [k for k in keys_of(results.AuditPlan) if k not in ("pilot", "pilot_pairs")]
    assert drawn["strata_rows"] == []
    stratified = ("--design", "stratified", "--strata", "grade", "--pilot", "human")
    drawn = studio(sample, tmp_path, *plan, "--name", "s", "--budget", "20", *stratified)
    assert list(drawn) == keys_of(results.AuditPlan)
    assert_rows(drawn["strata_rows"], results.StratumDraw)
    drawn = studio(sample, tmp_path, *plan, "--name", "u", "--budget", "20", "--design", "pairs-uncertainty")
    assert_shape(drawn, results.AuditPlan)
    assert_rows(drawn["strata_rows"], results.UncertaintyDraw)
    drawn = studio(sample, tmp_path, *plan, "--name", "n", "--budget", "6", "--design", "topics-neyman")
    assert_rows(drawn["strata_rows"], results.TopicStratumDraw)
    sized = studio(sample, tmp_path, *plan, "--pilot", "human", "--target-width", "0.2")
    assert list(sized) == keys_of(designs.BudgetPlan)
    assert_rows(sized["designs"], designs.DesignSize)
    assert_rows(sized["strata"], designs.StratumAllocation)
    assert_rows(sized["topic_strata"], designs.TopicStratumSize)
    recommended = studio(sample, tmp_path, *plan, "--budget", "60", "--pilot", "human", "--trials", "5")
    assert list(recommended) == keys_of(designs.DesignRecommendation)
    assert_rows(recommended["designs"], designs.SimulatedDesign)


def test_the_assessor_commands_print_their_results_keys(sample: Path, tmp_path: Path) -> None:
    studio(sample, tmp_path, "audit", "plan", "--qrels", LLM, "--name", "g", "--budget", "12", "--seed", "2")
    assigned = studio(sample, tmp_path, "audit", "assign", "g", "--assessors", "alice,bob", "--overlap", "1")
    assert list(assigned) == keys_of(results.Assignment)
    assert_rows(assigned["per_assessor"], results.AssessorShare)
    for offset, name in enumerate(("alice", "bob")):  # every pair graded by both, differently
        pairs = studio(sample, tmp_path, "audit", "pairs", "g", "--assessor", name)
        (tmp_path / name).write_text("".join(f"{p['qid']} 0 {p['docid']} {offset}\n" for p in pairs))
        done = studio(sample, tmp_path, "audit", "import", "g", str(tmp_path / name), "--assessor", name)
        assert list(done) == keys_of(results.GoldImport)
    agreement = studio(sample, tmp_path, "audit", "agreement", "g")
    assert list(agreement) == keys_of(results.AssessorAgreement)
    assert_rows(agreement["couples"], results.CoupleAgreement)
    assert_rows(agreement["conflicts"], results.Conflict)
    conflict = agreement["conflicts"][0]
    settled = studio(sample, tmp_path, "audit", "adjudicate", "g", conflict["qid"], conflict["docid"], "1")
    assert list(settled) == keys_of(results.Adjudication)
    studio(sample, tmp_path, "audit", "plan", "--qrels", LLM, "--name", "h", "--budget", "3", "--seed", "2")
    pairs = studio(sample, tmp_path, "audit", "pairs", "h")
    (tmp_path / "h").write_text("".join(f"{p['qid']} 0 {p['docid']} 1\n" for p in pairs))
    done = studio(sample, tmp_path, "audit", "import", "h", str(tmp_path / "h"))
    assert list(done) == [key for key in keys_of(results.GoldImport) if key != "assessor"]
