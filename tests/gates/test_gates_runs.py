"""A run that no topic of a comparison evaluates has no place in either ranking: it is left out of
the comparison and named, never ranked at 0.0 where it ties every such run."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from evaluation_builders import write_qrels, write_run
from helpers import cli

from studio import Project
from studio.domain.significance import SignificancePlan
from studio.domain.specs import ComparisonSpec
from studio.metrics.correlation import kendall_tau_b

DOCS = ["d1", "d2", "d3", "d4"]
REVERSED = ["r1", "r2", "r3"]
ELSEWHERE = ["s1", "s2", "s3"]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """Three runs whose order the LLM reverses on the judged topics, three that retrieved only a
    topic nobody judged."""
    runs = {
        name: {qid: {doc: float(len(DOCS) - abs(i - d)) for d, doc in enumerate(DOCS)} for qid in ("t1", "t2")}
        for i, name in enumerate(REVERSED)
    }
    runs |= {name: {"t9": {doc: float(i + d) for d, doc in enumerate(DOCS)}} for i, name in enumerate(ELSEWHERE)}
    people = {qid: {"d1": 3, "d2": 2, "d3": 1, "d4": 0} for qid in ("t1", "t2")}
    llm = {qid: {"d1": 0, "d2": 1, "d3": 2, "d4": 3} for qid in ("t1", "t2")}
    path = tmp_path / "p.duckdb"
    with Project.open(path) as opened:
        opened.import_runs([write_run(tmp_path / f"{n}.run", n, run) for n, run in runs.items()])
        opened.import_qrels(write_qrels(tmp_path / "people.txt", people), name="people")
        opened.import_qrels(write_qrels(tmp_path / "llm.txt", llm), name="llm", kind="llm")
    return path


def test_correlate_leaves_out_runs_no_topic_evaluates_and_names_them(project: Path) -> None:
    result = cli(project, "correlate", "--ref", "people", "--qrels", "llm", "-m", "nDCG@10", "-f", "json")
    assert result.exit_code == 0, result.stderr
    found = json.loads(result.stdout)
    with Project.open(project) as opened:
        people, llm = opened.leaderboard("people", "nDCG@10"), opened.leaderboard("llm", "nDCG@10")
    judged = np.array([people[r] for r in REVERSED]), np.array([llm[r] for r in REVERSED])
    expected = kendall_tau_b(*judged)  # the three judged runs alone
    assert found["kendall_tau"] == pytest.approx(expected) and found["kendall_tau"] < 0
    assert found["runs"] == 3 and found["frame"]["runs_left_out"] == ELSEWHERE
    assert sorted(row["run"] for row in found["leaderboard"]) == REVERSED
    assert "3 runs with no topic evaluated on a side left out (s1, s2, s3)" in result.stderr


def test_compare_and_reviews_tau_leave_them_out_too(project: Path) -> None:
    with Project.open(project) as opened:
        compared = opened.compare(ComparisonSpec("people", ["llm"], resamples=20))[0]
        correlated = opened.correlation("people", "llm", "nDCG@10", details=False)
        session = opened.review("people", "llm")
        session.load()
        assert compared["kendall_tau"] == correlated["kendall_tau"] == session.stats().tau
        frame = compared["frame"]
        assert frame is not None and frame["runs_left_out"] == ELSEWHERE


def test_trec_eval_c_keeps_every_run(project: Path) -> None:
    with Project.open(project) as opened:
        found = opened.correlation("people", "llm", "nDCG@10", details=False, complete=True)
        # trec_eval -c gives a run 0 on every labelled topic it skipped: it has a value, and stays
        assert found["runs"] == 6 and "runs_left_out" not in (found["frame"] or {})


@pytest.mark.parametrize("test", ["t", "tukey"])
def test_significance_tests_only_the_runs_a_topic_evaluates(project: Path, test: str) -> None:
    with Project.open(project) as opened:
        found = opened.significance(
            "llm", "nDCG@10", SignificancePlan(test, "none" if test == "tukey" else "holm", 0.05), ref="people"
        )
    assert found["runs"] == 3 and len(found["pairs"]) == 3
    assert {p["run_a"] for p in found["pairs"]} | {p["run_b"] for p in found["pairs"]} == set(REVERSED)
    assert found["frame"] is not None and found["frame"].get("runs_left_out") == ELSEWHERE
    agreement = found["agreement"]
    assert sum(agreement[k] for k in ("both", "opposite", "ref_only", "qrels_only", "neither")) == 3
