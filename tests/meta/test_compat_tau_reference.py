"""`studio compare`'s compatibility τ on runs with tied scores equals the reference pipeline of
Arabzadeh & Clarke (2025): the reference's Compat(p=0.9) per topic (tests/compat_reference.py),
its mean per run, and Kendall τ-b against the nDCG@10 leaderboard (trec_eval via pytrec_eval)."""

from __future__ import annotations

import json
from pathlib import Path

import compat_reference as reference
import pytest
import pytrec_eval
from helpers import cli
from scipy import stats

from benchmarks.workload import generate, noisy_qrels


def rows_of(path: Path) -> list[list[str]]:
    return [line.split() for line in path.read_text().splitlines() if line.strip()]


def test_compat_tau_on_tied_runs_equals_the_reference_pipeline(tmp_path: Path) -> None:
    # Scores rounded to two decimals: many exact ties, broken by docid ascending in the reference.
    workload = generate(tmp_path / "data", runs=8, topics=6, depth=60, judged_per_topic=40, corpus_per_topic=120)
    llm = noisy_qrels(workload, tmp_path / "data")
    db = tmp_path / "p.duckdb"
    assert cli(db, "import", "qrels", str(workload.qrels), "--name", "human").exit_code == 0
    assert cli(db, "import", "qrels", str(llm), "--name", "llm", "--kind", "llm").exit_code == 0
    assert cli(db, "import", "run", *map(str, workload.runs)).exit_code == 0
    [row] = json.loads(
        cli(db, "compare", "--ref", "human", "--qrels", "llm", "--resamples", "10", "--format", "json").stdout
    )

    human: dict[str, dict[str, int]] = {}
    for qid, _, docid, grade in rows_of(workload.qrels):
        human.setdefault(qid, {})[docid] = int(grade)
    llm_rows = [(qid, docid, float(grade)) for qid, _, docid, grade in rows_of(llm)]
    ndcg, compat = [], []
    for path in workload.runs:
        run: dict[str, dict[str, float]] = {}
        for qid, _, docid, _, score, _ in rows_of(path):
            run.setdefault(qid, {})[docid] = float(score)
        per_topic = pytrec_eval.RelevanceEvaluator(human, {"ndcg_cut.10"}).evaluate(run)
        ndcg.append(sum(v["ndcg_cut_10"] for v in per_topic.values()) / len(per_topic))
        values = reference.per_topic(llm_rows, run, 0.9)
        compat.append(sum(values.values()) / len(values))
    expected = stats.kendalltau(ndcg, compat).statistic
    assert row["compat_tau"] == pytest.approx(expected, abs=1e-12)
