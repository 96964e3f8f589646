"""`studio answers --labels SET`: each system's score under each method equals a computation by hand
(numpy) from the verdict files, with the seeded percentile bootstrap over topics; significance between
systems equals scipy's paired t-test; τ between two methods' orders equals scipy's; `--qrels` still
prints what it did."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from answers.genir_project import VERDICT_FILES, file_values
from helpers import cli
from scipy.stats import kendalltau, ttest_rel

from studio import Project
from studio.domain.judging import JudgeConfig


@pytest.fixture
def project(genir_db: Path) -> Path:
    return genir_db


def by_hand(values: dict[str, float], seed: int, resamples: int = 1000) -> tuple[float, float, float]:
    """Mean and the 2.5/97.5 percentiles of 1,000 resampled means (topics in byte order)."""
    ordered = np.array([values[q] for q in sorted(values, key=str.encode)])
    rng = np.random.default_rng(seed)
    means = ordered[rng.integers(0, len(ordered), size=(resamples, len(ordered)))].mean(axis=1)
    return float(ordered.mean()), float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def gains(values: dict[str, float], gain: str) -> dict[str, float]:
    return {q: 2.0**v - 1 if gain == "exp" else v for q, v in values.items()}


@pytest.mark.parametrize("seed", [0, 7])
@pytest.mark.parametrize(
    ("layout", "gain"),
    [("binary", "exp"), ("graded", "exp"), ("graded", "linear"), ("subtopics", "exp"), ("preferences", "exp")],
)
def test_scores_and_intervals_equal_a_hand_computation(project: Path, layout: str, gain: str, seed: int) -> None:
    done = cli(project, "answers", "--labels", layout, "--gain", gain, "--seed", seed, "-f", "json")
    assert done.exit_code == 0, done.stderr
    rows = json.loads(done.stdout)
    assert [list(row)[:6] for row in rows] == [["system", "method", "score", "low", "high", "topics"]] * 2
    for row in rows:
        values = file_values(layout, row["system"])
        values = gains(values, gain) if layout == "graded" else values
        score, low, high = by_hand(values, seed=seed)
        assert (row["method"], row["topics"]) == (layout, 4)
        assert row["score"] == pytest.approx(score, abs=1e-12)
        assert (row["low"], row["high"]) == (pytest.approx(low, abs=1e-12), pytest.approx(high, abs=1e-12))
    assert [r["system"] for r in rows] == sorted(VERDICT_FILES[layout], key=lambda s: -by_hand(
        gains(file_values(layout, s), gain) if layout == "graded" else file_values(layout, s), 7)[0])  # fmt: skip


def test_the_paper_numbers_of_the_fixture(project: Path) -> None:
    """The fixture's verdicts were written so: each method orders gpt-4 above its liar version."""
    rows = json.loads(cli(project, "answers", "--labels", "binary", "--labels", "graded", "-f", "json").stdout)
    assert [(r["label_set"], r["system"], r["score"]) for r in rows] == [
        ("binary", "gpt-4", 0.75),
        ("binary", "lier-gpt-4", 0.25),
        ("graded", "gpt-4", 4.5),  # gains 7, 3, 1, 7
        ("graded", "lier-gpt-4", 1.0),  # gains 0, 1, 3, 0
    ]


def test_significance_between_systems_is_the_paired_t_test(project: Path) -> None:
    done = cli(project, "answers", "significance", "--labels", "graded", "--gain", "linear", "-f", "json")
    result = json.loads(done.stdout)
    (pair,) = result["pairs"]
    a, b = file_values("graded", "gpt-4"), file_values("graded", "lier-gpt-4")
    qids = sorted(a, key=str.encode)
    expected = ttest_rel([a[q] for q in qids], [b[q] for q in qids])
    assert (pair["run_a"], pair["run_b"], pair["topics"]) == ("gpt-4", "lier-gpt-4", 4)
    assert pair["delta"] == pytest.approx(np.mean([a[q] - b[q] for q in qids]))
    assert pair["p_value"] == pytest.approx(expected.pvalue)


def test_tau_between_two_methods_orders_of_three_systems(tmp_path: Path) -> None:
    db = tmp_path / "p.duckdb"
    with Project.sample(db) as project:
        for name, method in (("bin", "binary"), ("umb", "umbrela")):
            for _ in project.judge(_config(method, name)):
                pass
        agreement = project.answer_agreement("bin", "umb", gain="linear")
        scores = {
            name: {r["system"]: r["score"] for r in project.answer_scores([name], gain="linear")}
            for name in ("bin", "umb")
        }
    systems = sorted(scores["bin"])
    expected = kendalltau([scores["bin"][s] for s in systems], [scores["umb"][s] for s in systems]).statistic
    assert agreement["systems"] == 3 and agreement["topics"] == 10
    assert agreement["kendall_tau"] == pytest.approx(expected)
    assert agreement["order_a"] == sorted(systems, key=lambda s: (-scores["bin"][s], s))


def _config(method: str, name: str) -> JudgeConfig:
    return JudgeConfig(method=method, backend="simulated", name=name, answers=True, kappa=0.5)


def test_compare_command_names_both_methods(project: Path) -> None:
    result = json.loads(
        cli(project, "answers", "compare", "--labels", "binary", "--labels", "preferences", "-f", "json").stdout
    )
    (pair,) = result["pairs"]
    assert (pair["method_a"], pair["method_b"], pair["systems"], pair["kendall_tau"]) == (
        "binary",
        "preferences",
        2,
        1.0,
    )


def test_the_older_qrels_option_prints_what_it_did_and_says_it_is_deprecated(project: Path) -> None:
    done = cli(project, "answers", "--qrels", "graded", "-f", "json")
    assert done.exit_code == 0
    assert "--qrels is deprecated" in done.stderr and "--labels graded --gain linear" in done.stderr
    rows = json.loads(done.stdout)
    assert [(r["system"], r["mean"]) for r in rows] == [("gpt-4", 2.25), ("lier-gpt-4", 0.75)]
    new = json.loads(cli(project, "answers", "--labels", "graded", "--gain", "linear", "-f", "json").stdout)
    assert [r["score"] for r in new] == [r["mean"] for r in rows]


def test_a_set_without_answers_and_no_set_are_refused(project: Path) -> None:
    refused = cli(project, "answers", "--labels", "human")
    assert refused.exit_code == 2 and "labels no generated answer" in refused.stderr
    assert cli(project, "answers").exit_code == 2
