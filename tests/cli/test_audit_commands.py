"""`studio audit plan | pairs | import | list | show` on the sample project: golden output of a
drawn sample and of a budget plan, the sample listed for grading elsewhere, and an import refused
with its file and line, nothing changed.

To regenerate the golden files after an intended change of output:
    STUDIO_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/cli/test_audit_commands.py
"""

from __future__ import annotations

import json
from pathlib import Path

from cli.cli_helpers import assert_matches_golden, normalised, run_clirunner

from studio import Project
from studio.services.audit.samples import audit_pairs

LLM = "umbrela-smol"


def studio(project: Path, home: Path, *args: str) -> tuple[int, str, str]:
    result = run_clirunner(["--db", str(project), *args], home)
    return result.code, result.stdout, result.stderr


def test_plan_prints_the_sample_and_its_strata(sample: Path, tmp_path: Path) -> None:
    code, out, err = studio(
        sample,
        tmp_path,
        "audit",
        "plan",
        "--qrels",
        LLM,
        "--budget",
        "24",
        "--design",
        "stratified",
        "--strata",
        "grade",
        "--pilot",
        "human",
        "--seed",
        "4",
        "--name",
        "a",
    )
    assert code == 0, err
    assert "neyman allocation from the pilot (human, 280 pairs)" in err
    assert_matches_golden("audit_plan_stratified.txt", normalised(out, sample))
    code, out, err = studio(
        sample,
        tmp_path,
        "audit",
        "plan",
        "--qrels",
        LLM,
        "--budget",
        "10",
        "--design",
        "stratified",
        "--strata",
        "confidence",
        "--name",
        "b",
    )
    assert code == 0, err
    assert "proportional allocation (no pilot" in err


def test_budget_plan_table_and_json(sample: Path, tmp_path: Path) -> None:
    args = ("audit", "plan", "--qrels", LLM, "--pilot", "human", "--target-width", "0.2", "-m", "nDCG@10")
    code, out, err = studio(sample, tmp_path, *args)
    assert code == 0, err
    assert_matches_golden("audit_budget_plan.txt", normalised(out, sample))
    code, out, err = studio(sample, tmp_path, *args, "--format", "json")
    plan = json.loads(out)
    designs = [d["design"] for d in plan["designs"]]
    assert designs == ["topics", "pairs", "stratified (grade)", "topics-neyman", "pairs-uncertainty"]
    assert {"stratum", "pairs", "pilot_pairs", "sd", "neyman", "proportional", "sample"} == set(plan["strata"][0])
    assert sum(row["topics"] for row in plan["topic_strata"]) == plan["designs"][0]["population"]
    assert plan["uncertainty_from"].startswith("label distributions")
    code, out, err = studio(sample, tmp_path, "audit", "plan", "--qrels", LLM, "--target-width", "0.2")
    assert code == 2 and "--pilot" in err


def test_import_refuses_a_pair_outside_the_sample_then_list_and_show(sample: Path, tmp_path: Path) -> None:
    code, out, err = studio(
        sample,
        tmp_path,
        "audit",
        "plan",
        "--qrels",
        LLM,
        "--budget",
        "2",
        "--design",
        "topics",
        "--seed",
        "1",
        "--name",
        "t",
        "--format",
        "json",
    )
    assert code == 0, err
    code, out, err = studio(sample, tmp_path, "audit", "show", "t", "--format", "json")
    shown = json.loads(out)
    assert shown["design"] == "topics" and shown["done"] == 0 and shown["total"] > 0
    assert [row["inclusion"] for row in shown["per_stratum"]] == [0.2]
    code, out, err = studio(sample, tmp_path, "export", "qrels", LLM, "--out", "-")
    lines = out.splitlines()
    code, listed, err = studio(sample, tmp_path, "audit", "list", "--format", "json")
    [audit] = json.loads(listed)
    assert audit["audit"] == "t" and audit["units"] == 2 and audit["population"] == 10
    code, out, err = studio(sample, tmp_path, "audit", "pairs", "t", "--format", "json")
    listed_pairs = json.loads(out)
    with Project.open(sample) as project:  # the list to grade elsewhere is the sample, in its walk order
        assert [(r["qid"], r["docid"]) for r in listed_pairs] == [
            (q, d) for q, d, _ in audit_pairs(project.db.cursor(), "t")
        ]
    assert {r["inclusion"] for r in listed_pairs} == {0.2} and {r["gold"] for r in listed_pairs} == {None}
    sampled = {(r["qid"], r["docid"]) for r in listed_pairs}
    inside = [line for line in lines if (line.split()[0], line.split()[2]) in sampled]
    outside = next(line for line in lines if (line.split()[0], line.split()[2]) not in sampled)
    bad = tmp_path / "gold.qrels"
    bad.write_text("\n".join([*inside[:3], outside, *inside[3:]]) + "\n")
    code, out, err = studio(sample, tmp_path, "audit", "import", "t", str(bad))
    assert code == 2 and f"{bad}:4" in err and "not in audit 't'" in err
    assert json.loads(studio(sample, tmp_path, "audit", "show", "t", "-f", "json")[1])["done"] == 0
    good = tmp_path / "good.qrels"
    good.write_text("\n".join(inside) + "\n")
    code, out, err = studio(sample, tmp_path, "audit", "import", "t", str(good), "--format", "json")
    assert code == 0, err
    done = json.loads(out)
    assert done["done"] == done["total"] == len(inside) == shown["total"]
    grades = {(line.split()[0], line.split()[2]): float(line.split()[3]) for line in inside}
    code, out, err = studio(sample, tmp_path, "audit", "pairs", "t", "--format", "json")
    assert {(r["qid"], r["docid"]): r["gold"] for r in json.loads(out)} == grades
    code, out, err = studio(sample, tmp_path, "audit", "pairs", "t", "--remaining", "--format", "json")
    assert json.loads(out) == []
    code, out, err = studio(sample, tmp_path, "list", "qrels", "--format", "json")
    [gold] = [row for row in json.loads(out) if row["name"] == "t"]
    assert gold["kind"] == "human" and gold["pairs"] == gold["events"] == len(inside)
