"""`studio estimate --decisions [--ref R]` on the sample project: the run-pair decisions a partial
audit supports under a key of their own (golden), the estimate's other keys as without it, and
the usage it refuses.

To regenerate the golden file after an intended change of output:
    STUDIO_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/cli/test_estimate_decisions.py
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from cli.cli_helpers import assert_matches_golden, normalised, run_clirunner

from studio import Project

LLM = "umbrela-smol"
GOLD_TOPICS = 8
SEED = 5
DECISION_KEYS = {"run_a", "run_b", "difference", "se", "df", "p_value", "p_adjusted", "significant"}
REF_KEYS = {"ref_delta", "ref_p_adjusted", "ref_significant", "supported"}


def _import_gold(project: Project, folder: Path) -> None:
    """`gold`: the human grades of a seeded random sample of topics."""
    human = project.engine.evaluator("human").labels
    qids = sorted(q for q, t in human.items() if t.judged)
    chosen = set(np.random.default_rng(SEED).choice(qids, size=GOLD_TOPICS, replace=False).tolist())
    path = folder / "gold.txt"
    path.write_text(
        "".join(f"{q} 0 {d} {g:g}\n" for q in qids if q in chosen for d, g in sorted(human[q].judged.items()))
    )
    project.import_qrels(path, name="gold")


def _estimate(project: Path, home: Path, *args: str) -> str:
    result = run_clirunner(["--db", str(project), "estimate", "--qrels", LLM, "--gold", "gold", *args], home)
    assert result.code == 0, result.stderr
    return normalised(result.stdout, project)


def test_decisions_sit_under_their_own_key_and_match_the_golden_file(sample: Path, tmp_path: Path) -> None:
    with Project.open(sample) as project:
        _import_gold(project, tmp_path)
    plain = json.loads(_estimate(sample, tmp_path, "--format", "json"))
    out = _estimate(sample, tmp_path, "--decisions", "--ref", "human", "--correction", "holm", "--format", "json")
    found = json.loads(out)
    decisions = found.pop("decisions")
    assert found == plain  # the estimate's keys as they were
    assert decisions["ref"] == "human" and decisions["correction"] == "holm" and decisions["alpha"] == 0.05
    assert len(decisions["pairs"]) == len(plain["pairs"])
    assert all(set(row) >= DECISION_KEYS | REF_KEYS for row in decisions["pairs"])
    assert decisions["significant"] == sum(row["significant"] for row in decisions["pairs"])
    assert_matches_golden("estimate_decisions.json", out)


def test_the_table_lists_the_decisions_after_the_settled_pairs(sample: Path, tmp_path: Path) -> None:
    with Project.open(sample) as project:
        _import_gold(project, tmp_path)
    out = _estimate(sample, tmp_path, "--decisions", "--ref", "human", "--correction", "bonferroni")
    settled, decided = out.index("Settled run pairs"), out.index("Run pairs the audit decides")
    assert settled < decided
    assert "bonferroni correction" in out and "supported by human's own t test" in out


def test_a_reference_without_decisions_is_refused(sample: Path, tmp_path: Path) -> None:
    with Project.open(sample) as project:
        _import_gold(project, tmp_path)
    args = ["--db", str(sample), "estimate", "--qrels", LLM, "--gold", "gold", "--ref", "human"]
    result = run_clirunner(args, tmp_path)
    assert result.code == 2 and "--decisions" in result.stderr and result.stdout == ""
