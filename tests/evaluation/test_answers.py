"""Leaderboards of generative systems from a label set's grades of their answers."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from fakes import ScriptedBackend
from helpers import cli, judge_all

from studio import Project
from studio.domain.judging import JudgeConfig
from studio.judges.backend import ChatRequest
from studio.metrics.answers import answer_leaderboard


def test_means_and_bootstrap_intervals() -> None:
    grades = {"a": {"1": 3.0, "2": 2.0, "3": 1.0}, "b": {"1": 0.0, "2": 0.0, "3": 0.0}}
    rows = answer_leaderboard(grades, resamples=500, seed=3)
    assert [r["system"] for r in rows] == ["a", "b"]
    assert rows[0]["mean"] == 2.0 and rows[0]["topics"] == 3
    low, high = rows[0]["low"], rows[0]["high"]
    assert isinstance(low, float) and isinstance(high, float)
    assert 1.0 <= low <= 2.0 <= high <= 3.0
    assert rows[1]["low"] == rows[1]["high"] == 0.0
    # the interval is the percentile bootstrap of the topic mean, reproducible by seed
    rng = np.random.default_rng(3)
    values = np.array([3.0, 2.0, 1.0])
    means = values[rng.integers(0, 3, size=(500, 3))].mean(axis=1)
    assert rows[0]["low"] == float(np.percentile(means, 2.5))
    assert answer_leaderboard(grades, resamples=500, seed=3) == rows


def system_of(request: ChatRequest) -> str:
    """The system that wrote the judged answer (docid `answer/<system>`)."""
    return request.subject[1].removeprefix("answer/")


def grade_by_system(request: ChatRequest) -> str:
    """Grades an answer by the system that wrote it: what a perfect judge of the sample would say."""
    return "##final score: " + {"solid": "3", "terse": "2", "liar": "0"}[system_of(request)]


def test_answers_command_ranks_the_systems_of_the_sample(sample: Path) -> None:
    db = sample  # a copy of the sample project, built once per test process
    with Project.sample(db) as project:
        config = JudgeConfig(method="umbrela", backend="by-system", name="answers", pool="responses")
        judge_all(project.db, config, ScriptedBackend(grade_by_system, name="by-system", model="by-system"))
    result = cli(db, "answers", "--qrels", "answers", "-f", "json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert [(r["system"], r["mean"], r["topics"]) for r in rows] == [
        ("solid", 3.0, 10),
        ("terse", 2.0, 10),
        ("liar", 0.0, 10),
    ]
    refused = cli(db, "answers", "--qrels", "human")
    assert refused.exit_code == 2 and "grades no generated answer" in refused.stderr
    with Project.open(db) as project:
        assert project.answer_leaderboard("answers")[0]["system"] == "solid"


def assign_by_system(request: ChatRequest) -> str:
    """Nugget assignments by the system that wrote the answer: all supported by the solid one,
    partially by the terse one, none by the liar."""
    _, docid, *items = request.subject
    assert request.unit == "window" and docid.startswith("answer/")
    label = {"solid": "support", "terse": "partial_support", "liar": "not_support"}[system_of(request)]
    return repr([label] * len(items))


def test_nugget_assignment_of_generated_answers_ranks_the_systems(sample: Path) -> None:
    db = sample  # a copy of the sample project, built once per test process
    with Project.sample(db) as project:
        config = JudgeConfig(
            method="nugget-assign", backend="assign-by-system", name="assign", pool="responses", bank="nuggets"
        )
        judge_all(
            project.db, config, ScriptedBackend(assign_by_system, name="assign-by-system", model="assign-by-system")
        )
    derived = cli(
        db,
        "derive",
        "--from",
        "assign",
        "--bank",
        "nuggets",
        "--score",
        "nugget-vital-strict",
        "--name",
        "vital-strict",
    )
    assert derived.exit_code == 0, derived.output
    for label_set, want in (("assign", [1.0, 0.5, 0.0]), ("vital-strict", [1.0, 0.0, 0.0])):
        result = cli(db, "answers", "--qrels", label_set, "-f", "json")
        assert result.exit_code == 0, result.output
        rows = json.loads(result.stdout)
        assert {r["system"]: r["mean"] for r in rows} == dict(zip(["solid", "terse", "liar"], want, strict=True))
        assert all(r["low"] <= r["mean"] <= r["high"] for r in rows)
