"""`studio estimate` and `studio audit simulate` on the sample project: the estimates against the
formula written out, the refusals, and coverage of the human leaderboard by simulation."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from helpers import cli
from scipy import stats

from studio.domain.rows import EstimateRun
from studio.domain.specs import AuditDrawSpec
from studio.metrics.names import parse_measure
from studio.services.audit.estimates import advice, within_range
from studio.services.project import Project

GOLD_TOPICS = 6


def _partial_gold(project: Project, folder: Path, topics: int = GOLD_TOPICS, seed: int = 4) -> list[str]:
    """A gold label set `gold`: the human labels of `topics` random topics."""
    human = project.engine.evaluator("human")
    qids = sorted(q for q, t in human.labels.items() if t.judged)
    chosen = sorted(np.random.default_rng(seed).choice(qids, size=topics, replace=False).tolist())
    lines = [f"{q} 0 {d} {g:g}\n" for q in chosen for d, g in human.labels[q].judged.items()]
    path = folder / "gold.txt"
    path.write_text("".join(lines))
    project.import_qrels(path, name="gold")
    return chosen


def test_topic_estimates_are_the_ppi_formula(sample: Path, tmp_path: Path) -> None:
    with Project.open(sample) as project:
        chosen = _partial_gold(project, tmp_path)
    result = json.loads(
        cli(
            sample, "estimate", "--qrels", "umbrela-smol", "--gold", "gold", "--estimator", "ppi", "--format", "json"
        ).stdout
    )
    with Project.open(sample) as project:
        m = parse_measure("nDCG@10")
        llm_eval, human = project.engine.evaluator("umbrela-smol"), project.engine.evaluator("human")
        f = llm_eval.per_topic(m)
        y = human.per_topic(m)
        rows = [llm_eval.row[q] for q in chosen]
        hrows = [human.row[q] for q in chosen]
        n, big_n = len(chosen), len(llm_eval.qids)
        rectifier = y[hrows] - f[rows]
        estimate = f.mean(axis=0) + rectifier.mean(axis=0)
        # One pseudo-topic (the topic design's): the LLM values' spread over all topics as one
        # more squared residual of the rectifier (λ = 1).
        spread = rectifier.var(axis=0, ddof=1) + f.var(axis=0, ddof=1) / (n - 1)
        half = stats.t.ppf(0.975, n - 1) * np.sqrt((1 - n / big_n) * spread / n)
        gold_half = stats.t.ppf(0.975, n - 1) * np.sqrt((1 - n / big_n) * y[hrows].var(axis=0, ddof=1) / n)
        by_run = {row["run"]: row for row in result["runs"]}

        def clip(value: float) -> float:  # the measure's range: the true value lies in it
            return min(max(value, 0.0), 1.0)

        for r, run in enumerate(llm_eval.runs):
            assert by_run[run]["estimate"] == pytest.approx(clip(estimate[r]))
            assert by_run[run]["low"] == pytest.approx(clip(estimate[r] - half[r]))
            assert by_run[run]["high"] == pytest.approx(clip(estimate[r] + half[r]))
            assert by_run[run]["llm"] == pytest.approx(project.leaderboard("umbrela-smol")[run])
            assert by_run[run]["gold_low"] == pytest.approx(clip(y[hrows, r].mean() - gold_half[r]))
    assert result["units"] == big_n and result["gold_units"] == n
    assert "gold's judges would give if they judged every topic umbrela-smol or gold labels" in result["covers"]
    assert len(result["pairs"]) == len(by_run) * (len(by_run) - 1) // 2
    unclipped = dict(zip(llm_eval.runs, estimate.tolist(), strict=True))
    for pair in result["pairs"]:  # differences of the estimates before clipping
        assert pair["difference"] == pytest.approx(unclipped[pair["run_a"]] - unclipped[pair["run_b"]])
        assert pair["settled"] == (pair["low"] > 0)
    assert -1 <= result["kendall_tau_vs_llm"] <= 1


def test_text_output_says_what_the_interval_covers(sample: Path, tmp_path: Path) -> None:
    with Project.open(sample) as project:
        _partial_gold(project, tmp_path)
    out = cli(sample, "estimate", "--qrels", "umbrela-smol", "--gold", "gold", "--estimator", "ppi++").stdout
    assert "Settled run pairs" in out and "Kendall τ" in out
    assert "each interval holds the run's mean nDCG@10" in " ".join(out.split())


def test_pairs_design_refuses_average_precision_and_estimates_precision(sample: Path, tmp_path: Path) -> None:
    with Project.open(sample) as project:
        _partial_gold(project, tmp_path)
    refused = cli(sample, "estimate", "--qrels", "umbrela-smol", "--gold", "gold", "--design", "pairs", "-m", "AP")
    assert refused.exit_code == 2 and "--design topics" in refused.stderr
    result = json.loads(
        cli(
            sample,
            "estimate",
            "--qrels",
            "umbrela-smol",
            "--gold",
            "gold",
            "--design",
            "pairs",
            "-m",
            "P@10",
            "--format",
            "json",
        ).stdout
    )
    with Project.open(sample) as project:
        llm = project.leaderboard("umbrela-smol", "P@10")
    for row in result["runs"]:
        assert row["llm"] == pytest.approx(llm[row["run"]])
        assert row["low"] <= row["estimate"] <= row["high"]


def test_gold_covering_every_topic_gives_the_human_leaderboard(sample: Path) -> None:
    result = json.loads(
        cli(sample, "estimate", "--qrels", "umbrela-smol", "--gold", "human", "--format", "json").stdout
    )
    with Project.open(sample) as project:
        human = project.leaderboard("human")
    for row in result["runs"]:
        assert row["estimate"] == pytest.approx(human[row["run"]])
        assert row["high"] - row["low"] == pytest.approx(0, abs=1e-9)


def test_simulated_audits_cover_the_human_leaderboard(sample: Path) -> None:
    """The sample project's real SmolLM2 labels, human as the truth: 5 of its 10 topics (half the
    population, so the correction matters) and 120 of its 280 pairs."""
    topics = json.loads(
        cli(
            sample,
            "audit",
            "simulate",
            "--ref",
            "human",
            "--qrels",
            "umbrela-smol",
            "--budget",
            5,
            "--trials",
            2000,
            "--format",
            "json",
        ).stdout
    )
    pairs = json.loads(
        cli(
            sample,
            "audit",
            "simulate",
            "--ref",
            "human",
            "--qrels",
            "umbrela-smol",
            "--budget",
            120,
            "--design",
            "pairs",
            "-m",
            "P@10",
            "--trials",
            2000,
            "--format",
            "json",
        ).stdout
    )
    # 2000 trials × 6 runs: the Monte-Carlo error of a coverage near 0.95 is about 0.002–0.005.
    # Five gold topics are too few to fit the LLM's weight: the default is the gold sample alone,
    # which covers 91% here (ten topics, skewed per-topic values), never wider than itself.
    assert topics["estimator"] == "cross-fit" and topics["mean_lambda"] == 0.0
    assert topics["width_ratio"] == pytest.approx(1.0) and topics["coverage"] == topics["gold_coverage"] >= 0.90
    assert pairs["coverage"] >= 0.93 and pairs["min_run_coverage"] >= 0.92
    assert pairs["width_ratio"] < 0.9  # 120 pairs: the folds find the labels' worth (λ ≈ 0.6)
    assert len(topics["per_run"]) == 6


def test_an_audit_brings_its_design_and_inclusion_probabilities(sample: Path, tmp_path: Path) -> None:
    """A pair audit of umbrela-smol graded with the human labels: the estimate uses the stored π
    (here n/N, so the same as a simple random sample) and refuses the topics design."""
    from studio.store import audits as audit_store

    with Project.open(sample) as project:
        project.plan_audit(AuditDrawSpec("umbrela-smol", name="au", budget=60, design="pairs", seed=3))
        con = project.db.cursor()
        row = audit_store.audit(con, "au")
        assert row is not None
        sampled = audit_store.units(con, row["audit_id"])
        human = project.engine.evaluator("human").labels
        lines = [
            f"{u['qid']} 0 {u['docid']} {human[u['qid']].judged[u['docid']]:g}\n"
            for u in sampled
            if u["docid"] in human[u["qid"]].judged
        ]
        (tmp_path / "au.txt").write_text("".join(lines))
        project.import_audit("au", tmp_path / "au.txt")
    refused = cli(sample, "estimate", "--qrels", "umbrela-smol", "--gold", "au", "--design", "topics")
    assert refused.exit_code == 2 and "--design pairs" in refused.stderr
    result = json.loads(
        cli(
            sample,
            "estimate",
            "--qrels",
            "umbrela-smol",
            "--gold",
            "au",
            "--design",
            "pairs",
            "-m",
            "P@10",
            "--format",
            "json",
        ).stdout
    )
    assert result["gold_units"] == len(lines) and result["units"] == 280
    for row in result["runs"]:
        assert row["low"] <= row["estimate"] <= row["high"]


def test_intervals_stay_in_the_measures_range_and_a_worse_than_gold_judge_is_named() -> None:
    rows: list[EstimateRun] = [
        {
            "run": "a",
            "estimate": 1.03,
            "low": 0.81,
            "high": 1.25,
            "llm": 1.1,
            "gold": 0.99,
            "gold_low": 0.95,
            "gold_high": 1.02,
            "lambda": 1.0,
        },
        {
            "run": "b",
            "estimate": 0.40,
            "low": -0.05,
            "high": 0.85,
            "llm": 0.5,
            "gold": 0.4,
            "gold_low": 0.3,
            "gold_high": 0.5,
            "lambda": 1.0,
        },
    ]
    within_range(rows)
    assert [(r["estimate"], r["low"], r["high"], r["gold_high"]) for r in rows] == [
        (1.0, 0.81, 1.0, 1.0),
        (0.4, 0.0, 0.85, 0.5),
    ]
    said = advice(rows, "umbrela-smol")
    assert said is not None and said.startswith("umbrela-smol's labels widen the intervals here")
    narrow: list[EstimateRun] = [{**r, "low": r["gold_low"], "high": r["gold_high"]} for r in rows]
    assert advice(narrow, "umbrela-smol") is None
