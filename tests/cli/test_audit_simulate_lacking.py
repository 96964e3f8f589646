"""`studio audit simulate` with an LLM label set that lacks a few of the pool's pairs: they stay
in the population (their own stratum, no LLM prediction, the gold grade speaks for them), two of
them are drawn into every audit, and every figure is a number; a budget that cannot give an
interval is refused (exit 2), never answered with figures that are no number."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli.cli_helpers import run_clirunner

from studio import Project

LLM = "umbrela-smol"
LACKED = 4  # of the sample pool's 280 pairs


def no_constant(name: str) -> float:
    raise AssertionError(f"{name} in the JSON: not a number JSON has")


@pytest.fixture()
def lacking(sample: Path, tmp_path: Path) -> Path:
    """The sample project with `binary`: the LLM's grades at 2 and above as 1, without four pairs."""
    with Project.open(sample) as project:
        project.export_qrels(LLM, tmp_path / "llm.txt")
        rows = [line.split() for line in (tmp_path / "llm.txt").read_text().splitlines()][LACKED:]
        (tmp_path / "binary.txt").write_text("".join(f"{q} {i} {d} {int(float(g) >= 2)}\n" for q, i, d, g in rows))
        project.import_qrels(tmp_path / "binary.txt", name="binary", kind="llm")
    return sample


@pytest.mark.parametrize(
    ("measure", "extra"), [("nDCG@10", ()), ("P(rel=2)@10", ("--llm-relevant", "1"))], ids=["ndcg", "precision"]
)
def test_pairs_the_llm_lacks_are_estimated_by_their_gold_grades(
    lacking: Path, tmp_path: Path, measure: str, extra: tuple[str, ...]
) -> None:
    args = ["--db", str(lacking), "audit", "simulate", "--ref", "human", "--qrels", "binary", "--design", "pairs"]
    done = run_clirunner([*args, "--budget", "100", "--trials", "40", "-m", measure, *extra, "-f", "json"], tmp_path)
    assert done.code == 0, done.stderr
    assert "Warning" not in done.stderr
    found = json.loads(done.stdout, parse_constant=no_constant)
    assert found["units_qrels_lacks"] == LACKED
    assert found["coverage"] > 0.8 and found["width"] > 0 and found["gold_width"] > 0
    for run in found["per_run"]:
        assert run["coverage"] > 0.5 and run["width"] > 0 and run["gold_width"] > 0, run


def test_a_budget_that_leaves_no_interval_is_refused(lacking: Path, tmp_path: Path) -> None:
    args = ["--db", str(lacking), "audit", "simulate", "--ref", "human", "--qrels", "binary", "--design", "pairs"]
    done = run_clirunner([*args, "--budget", "3", "--trials", "5", "-f", "json"], tmp_path)
    assert done.code == 2, done.stdout
    assert done.stdout == "" and "--budget 3" in done.stderr and "Warning" not in done.stderr
    assert "these 2 strata take 4" in done.stderr
    args[args.index("binary")] = LLM  # one stratum: two pairs give ppi++'s fitted λ no degree of freedom
    done = run_clirunner([*args, "--budget", "2", "--trials", "5", "--estimator", "ppi++", "-f", "json"], tmp_path)
    assert done.code == 2 and "no degree of freedom" in done.stderr, done.stderr


@pytest.mark.parametrize(("design", "budget"), [("topics", "5"), ("topics-neyman", "7")])
def test_topics_the_llm_lacks_are_a_stratum_of_two_drawn_topics(
    sample: Path, tmp_path: Path, design: str, budget: str
) -> None:
    """Three of the ten topics unlabelled by the LLM: their stratum gets two of the audit's topics
    (a proportional share of 1.5, or what Neyman's strata of the LLM's topics leave, would give one)."""
    with Project.open(sample) as project:
        project.export_qrels(LLM, tmp_path / "llm.txt")
        rows = (tmp_path / "llm.txt").read_text().splitlines()
        (tmp_path / "gappy.txt").write_text(
            "".join(f"{r}\n" for r in rows if r.split()[0] not in ("1008", "1009", "1010"))
        )
        project.import_qrels(tmp_path / "gappy.txt", name="gappy", kind="llm")
    args = ["--db", str(sample), "audit", "simulate", "--ref", "human", "--qrels", "gappy", "--design", design]
    done = run_clirunner([*args, "--budget", budget, "--trials", "40", "--pilot", "human", "-f", "json"], tmp_path)
    assert done.code == 0, done.stderr
    found = json.loads(done.stdout, parse_constant=no_constant)
    assert found["units_qrels_lacks"] == 3 and "Warning" not in done.stderr
    assert all(run["width"] is not None and run["width"] > 0 for run in found["per_run"]), found["per_run"]
    assert found["coverage"] > 0.5
