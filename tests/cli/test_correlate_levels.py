"""`studio correlate | agree | eval` with a binary label set beside people's graded labels: each
side's relevance level in the output, and the warning on stderr (and in the JSON) when a label
set's grades never reach its level.

To regenerate the golden file after an intended change of output:
    STUDIO_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/cli/test_correlate_levels.py
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli.cli_helpers import Result, assert_matches_golden, normalised, run_clirunner

from studio import Project

LLM = "umbrela-smol"
BINARY = "binary-judge"
MEASURE = "P(rel=2)@10"


@pytest.fixture
def project(sample: Path, tmp_path: Path) -> Path:
    """The sample project plus a 0/1 judge: the sample LLM's grades ≥ 2 as 1, the rest 0."""
    with Project.open(sample) as opened:
        llm = opened.engine.evaluator(LLM).labels
        lines = [f"{q} 0 {d} {int(g >= 2)}\n" for q in sorted(llm) for d, g in sorted(llm[q].judged.items())]
        path = tmp_path / "binary.txt"
        path.write_text("".join(lines))
        opened.import_qrels(path, name=BINARY, kind="llm")
    return sample


def studio(project: Path, home: Path, *args: str) -> Result:
    result = run_clirunner(["--db", str(project), *args], home)
    assert result.code == 0, result.stderr
    return result


def test_correlate_json_at_each_sides_level(project: Path, tmp_path: Path) -> None:
    result = studio(
        project, tmp_path, "correlate", "--ref", "human", "--qrels", BINARY, "-m", MEASURE, "--llm-relevant", "1",
        "--format", "json",
    )  # fmt: skip
    found = json.loads(result.stdout)
    assert found["levels"] == {"ref": 2.0, "qrels": 1.0}
    # At its own level the binary judge ranks runs: not every run tied at 0 (τ undefined).
    assert found["kendall_tau"] is not None and len({row["qrels"] for row in found["leaderboard"]}) > 1
    assert found["warnings"] == [] and result.stderr == ""
    assert_matches_golden("correlate_levels.json", normalised(result.stdout, project))


def test_correlate_warns_when_the_binary_set_is_read_at_peoples_level(project: Path, tmp_path: Path) -> None:
    result = studio(project, tmp_path, "correlate", "--ref", "human", "--qrels", BINARY, "-m", MEASURE)
    assert result.stderr.startswith(f"warning: {BINARY}'s grades reach at most 1: at relevance level 2")
    assert "--llm-relevant 1" in result.stderr
    assert f"human rel ≥ 2, {BINARY} rel ≥ 2" in result.stdout
    found = json.loads(
        studio(
            project, tmp_path, "correlate", "--ref", "human", "--qrels", BINARY, "-m", MEASURE, "--format", "json"
        ).stdout
    )
    assert len(found["warnings"]) == 1 and found["warnings"][0] in result.stderr


def test_agree_warns_of_a_threshold_above_the_sets_grades(project: Path, tmp_path: Path) -> None:
    args = ["agree", "--ref", "human", "--qrels", BINARY, "--format", "json"]
    fine = studio(project, tmp_path, *args)
    assert json.loads(fine.stdout)["warnings"] == [] and fine.stderr == ""
    above = studio(project, tmp_path, *args, "--llm-relevant", "2")
    found = json.loads(above.stdout)
    assert found["thresholds"] == {"ref": 2.0, "qrels": 2.0}
    assert len(found["warnings"]) == 1 and f"warning: {found['warnings'][0]}" in above.stderr


def test_eval_warns_on_stderr_and_keeps_stdout_data(project: Path, tmp_path: Path) -> None:
    result = studio(project, tmp_path, "eval", "--qrels", BINARY, "-m", MEASURE, "-m", "P@10", "--format", "json")
    rows = json.loads(result.stdout)
    assert {row["value"] for row in rows if row["measure"] == MEASURE} == {0.0}
    assert result.stderr.count("warning:") == 1 and MEASURE in result.stderr
    assert studio(project, tmp_path, "eval", "--qrels", "human", "-m", MEASURE).stderr == ""
