"""`studio compare`: every column equals the statistic computed on its own from the Project API,
the bootstrap intervals contain what they should, and the output shapes hold."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from helpers import cli, known

from studio import Project
from studio.domain.comparisons import MethodComparison
from studio.domain.specs import AgreementSpec, ComparisonSpec
from studio.metrics import correlation as corr


@pytest.fixture(scope="module")
def rows(simulated_sample_template: Path) -> list[MethodComparison]:
    with Project.open(simulated_sample_template) as project:
        return project.compare(ComparisonSpec("human", ["sim", "umbrela-smol"], "nDCG@10", resamples=200))


def test_label_columns_are_those_of_agree(rows: list[MethodComparison], simulated_sample_template: Path) -> None:
    with Project.open(simulated_sample_template) as project:
        for row in rows:
            agreement = project.agreement(AgreementSpec("human", row["qrels"]))
            for key in (
                "pairs",
                "kappa_binary",
                "kappa_graded",
                "krippendorff_alpha",
                "alignment",
                "more_lenient",
                "stricter",
            ):
                assert row[key] == agreement[key], key


def test_leaderboard_columns_and_compatibility_tau(
    rows: list[MethodComparison], simulated_sample_template: Path
) -> None:
    with Project.open(simulated_sample_template) as project:
        reference = project.leaderboard("human", "nDCG@10")
        runs = sorted(reference)
        x = np.array([reference[r] for r in runs])
        for row in rows:
            audited = project.leaderboard(row["qrels"], "nDCG@10")
            y = np.array([audited[r] for r in runs])
            assert row["kendall_tau"] == pytest.approx(corr.kendall_tau_b(x, y))
            assert row["tau_ap"] == pytest.approx(corr.tau_ap(x, y))
            compat = project.leaderboard(row["qrels"], "Compat(p=0.9)")
            assert row["compat_tau"] == pytest.approx(corr.kendall_tau_b(x, np.array([compat[r] for r in runs])))
            assert known(row["kendall_tau_low"]) <= known(row["kendall_tau_high"])
            assert known(row["tau_ap_low"]) <= known(row["tau_ap_high"])


def test_the_simulated_judge_beats_the_tiny_model_on_every_count(rows: list[MethodComparison]) -> None:
    sim, smol = rows
    assert sim["qrels"] == "sim" and smol["qrels"] == "umbrela-smol"
    for key in ("kappa_binary", "kappa_graded", "krippendorff_alpha", "kendall_tau", "compat_tau"):
        assert known(sim[key]) > known(smol[key]), key


def test_cli_json_and_tsv(simulated_sample: Path) -> None:
    result = cli(
        simulated_sample,
        "compare",
        "--ref",
        "human",
        "--qrels",
        "sim",
        "--qrels",
        "umbrela-smol",
        "--resamples",
        "100",
        "-f",
        "json",
    )
    assert result.exit_code == 0, result.output
    parsed = json.loads(result.stdout)
    assert [r["qrels"] for r in parsed] == ["sim", "umbrela-smol"]
    assert {
        "kappa_binary",
        "kappa_graded",
        "krippendorff_alpha",
        "alignment",
        "kendall_tau",
        "kendall_tau_low",
        "kendall_tau_high",
        "tau_ap",
        "tau_ap_low",
        "tau_ap_high",
        "compat_tau",
        "more_lenient",
        "stricter",
    } <= set(parsed[0])
    tsv = cli(simulated_sample, "compare", "--ref", "human", "--qrels", "sim", "--resamples", "100", "-f", "tsv")
    header = tsv.stdout.splitlines()[0].split("\t")
    assert "best_vs_unacceptable_agree" in header and "compat_tau" in header
    refused = cli(simulated_sample, "compare", "--ref", "human", "--qrels", "human")
    assert refused.exit_code == 2 and "reference" in refused.stderr
