"""Calibrated label sets: the map undoes a known bias, κ and τ are cross-fitted beside the raw
set's, and the set follows its sources."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from sklearn.isotonic import IsotonicRegression
from typer.testing import CliRunner

from studio.cli.app import app
from studio.domain.errors import UsageError
from studio.domain.specs import AgreementSpec, CalibrationSpec
from studio.metrics import calibration as cal
from studio.services.project import Project

RUNS = 5


def _biased_project(tmp_path: Path) -> Project:
    """Gold grades 0–2 for 12 topics × 20 documents; the LLM grades each one higher; five
    runs of different quality, so the leaderboards have an order to keep."""
    rng = np.random.default_rng(7)
    gold_lines: list[str] = []
    llm_lines: list[str] = []
    run_lines: list[list[str]] = [[] for _ in range(RUNS)]
    for t in range(12):
        qid = str(100 + t)
        grades = rng.integers(0, 3, 20)
        for d, g in enumerate(grades.tolist()):
            gold_lines.append(f"{qid} 0 d{t}-{d} {g}")
            llm_lines.append(f"{qid} 0 d{t}-{d} {g + 1}")
        for r in range(RUNS):
            noise = rng.normal(0, 1.0 + r, 20)
            scores = grades + noise
            for rank, d in enumerate(np.argsort(-scores).tolist()):
                run_lines[r].append(f"{qid} Q0 d{t}-{d} {rank + 1} {float(-rank):.1f} run{r}")
    (tmp_path / "gold.txt").write_text("\n".join(gold_lines) + "\n")
    (tmp_path / "llm.txt").write_text("\n".join(llm_lines) + "\n")
    for r, lines in enumerate(run_lines):
        (tmp_path / f"run{r}.txt").write_text("\n".join(lines) + "\n")
    project = Project.open(tmp_path / "p.duckdb")
    project.import_qrels(tmp_path / "gold.txt", name="gold")
    project.import_qrels(tmp_path / "llm.txt", name="llm", kind="llm")
    project.import_runs(sorted(tmp_path.glob("run*.txt")))
    return project


def test_pava_matches_a_brute_force_monotone_fit() -> None:
    x = np.array([0.0, 1, 1, 2, 3, 3])
    y = np.array([1.0, 0, 2, 0, 3, 2])
    xs, ys = cal.pava(x, y)
    assert xs.tolist() == [0, 1, 2, 3]
    assert ys.tolist() == pytest.approx([0.75, 0.75, 0.75, 2.5])  # x 0–2 pooled (y 1, 0, 2, 0), x 3 alone
    rng = np.random.default_rng(3)
    x, y = rng.normal(size=300).round(1), rng.integers(0, 4, 300).astype(float)
    xs, ys = cal.pava(x, y)
    assert ys == pytest.approx(IsotonicRegression().fit(x, y).predict(xs))


@pytest.mark.parametrize("method", cal.METHODS)
def test_a_judge_that_grades_one_higher_is_undone(tmp_path: Path, method: str) -> None:
    with _biased_project(tmp_path) as project:
        done = project.calibrate(CalibrationSpec("llm", "gold", "llm-cal", method=method, folds=4))
        assert done["pairs"] == 240 and done["folds"] == 4 and done["topics"] == 12
        assert done["kappa_raw"] is not None and done["kappa_raw"] < 0.3
        assert done["kappa_calibrated"] == 1.0  # the map learnt on the other folds undoes the bias exactly
        assert abs(done["mean_calibrated"] - done["mean_gold"]) < abs(done["mean_raw"] - done["mean_gold"]) / 3
        assert done["tau_calibrated"] is not None and done["tau_raw"] is not None
        assert done["tau_calibrated"] >= done["tau_raw"]
        # The stored set holds the out-of-fold grades: `agree` shows the reported κ.
        assert project.agreement(AgreementSpec("gold", "llm-cal"))["kappa_graded"] == pytest.approx(
            done["kappa_calibrated"], abs=1e-4
        )
        fitted = cal.CalibrationMap.from_dict(done["map"])
        assert fitted.grade(np.array([1.0, 2, 3])).tolist() == [0, 1, 2]
        kinds = {row["name"]: row["kind"] for row in project.label_sets()}
        assert kinds["llm-cal"] == "derived"
        [stored] = project.calibrations()
        assert stored["figures"]["kappa_calibrated"] == done["kappa_calibrated"] and stored["method"] == method


def test_topics_stay_in_one_fold_and_folds_are_held_out(tmp_path: Path) -> None:
    folds = cal.topic_folds([str(q) for q in range(10)], 3, seed=1)
    assert sorted(np.bincount(list(folds.values())).tolist()) == [3, 3, 4]
    # A map fitted on a fold that never saw grade 0 cannot predict it: the held-out fold is not fitted on.
    x = np.array([1.0, 1, 2, 2, 1, 1])
    y = np.array([0.0, 0, 1, 1, 1, 1])
    predicted = cal.cross_fit("isotonic", x, y, np.array([0, 0, 0, 0, 1, 1]))
    assert predicted[:4].tolist() == [1, 1, 1, 1] and predicted[4:].tolist() == [0, 0]


def test_pairs_outside_the_gold_set_get_the_map_of_all_gold_pairs(tmp_path: Path) -> None:
    with _biased_project(tmp_path) as project:
        project.set_label("llm", "100", "extra-doc", 2)
        done = project.calibrate(CalibrationSpec("llm", "gold", "llm-cal", folds=3))
        assert done["fitted_on_all"] == 1 and done["labels"] == 241
        assert project.engine.evaluator("llm-cal").labels["100"].judged["extra-doc"] == 1.0


def test_the_calibrated_set_follows_an_edit_of_its_source_and_refuses_to_overwrite(tmp_path: Path) -> None:
    with _biased_project(tmp_path) as project:
        project.calibrate(CalibrationSpec("llm", "gold", "llm-cal", folds=3))
        llm = project.engine.evaluator("llm").labels["100"].judged["d0-0"]
        new = 1.0 if llm == 3 else 3.0
        project.set_label("llm", "100", "d0-0", new)  # the map of the other folds: LLM grade − 1
        assert project.engine.evaluator("llm-cal").labels["100"].judged["d0-0"] == new - 1
        edited = project.calibrations()[0]["figures"]["kappa_calibrated"]
        assert edited is not None and edited < 1.0
        project.undo("llm")
        assert project.engine.evaluator("llm-cal").labels["100"].judged["d0-0"] == llm - 1
        assert project.calibrations()[0]["figures"]["kappa_calibrated"] == 1.0
        with pytest.raises(UsageError):
            project.calibrate(CalibrationSpec("llm", "gold", "gold"))
        with pytest.raises(UsageError):
            project.calibrate(CalibrationSpec("llm", "gold", "llm-cal"))  # exists: --replace
        project.import_qrels(tmp_path / "gold.txt", name="copy")
        with pytest.raises(UsageError, match="not a calibrated set"):
            project.calibrate(CalibrationSpec("llm", "gold", "copy", replace=True))  # never over people's labels


def test_sample_project_calibration_reports_cross_fitted_kappa_beside_raw(sample: Path) -> None:
    with Project.open(sample) as project:
        done = project.calibrate(CalibrationSpec("umbrela-smol", "human", "smol-cal"))
        raw = project.agreement(AgreementSpec("human", "umbrela-smol"))["kappa_graded"]
    assert done["expected_values"] == done["pairs"] == 280  # the judge's label distributions are used
    assert done["kappa_raw"] == pytest.approx(raw, abs=1e-4)
    assert done["kappa_calibrated"] is not None and done["kappa_raw"] is not None
    assert done["kappa_calibrated"] > done["kappa_raw"]
    assert done["tau_calibrated"] is not None and done["tau_raw"] is not None
    assert sum(b["pairs"] for b in done["curve"]) == 280


def test_cli_calibrate_prints_the_figures_and_list_shows_it_derived(sample: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(
        app,
        [
            "--db",
            str(sample),
            "calibrate",
            "--qrels",
            "umbrela-smol",
            "--gold",
            "human",
            "--name",
            "smol-ord",
            "--method",
            "ordinal",
            "--folds",
            "3",
            "-f",
            "json",
        ],
    )
    assert result.exit_code == 0, result.output
    [done] = json.loads(result.stdout)
    assert done["method"] == "ordinal" and done["folds"] == 3 and "kappa_calibrated" in done
    listed = runner.invoke(app, ["--db", str(sample), "list", "qrels", "-f", "json"])
    row = next(r for r in json.loads(listed.stdout) if r["name"] == "smol-ord")
    assert row["kind"] == "derived" and row["source"].startswith("calibrate:ordinal(umbrela-smol -> human")
