"""Systems against each other: a pairwise tournament between answers (`studio judge --answers --method
pairwise --tournament`), O(n log n) calls a topic, fitted by Bradley–Terry with Elo beside it."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from fakes import ScriptedBackend
from helpers import cli, copy_project

from studio import Project
from studio.domain.judging import JudgeConfig, JudgeSummary
from studio.judges.backend import ChatRequest
from studio.judges.pair_sampling import tournament_budget

STRENGTH = {f"s{i:02d}": i for i in range(12)} | {"liar": -3, "terse": -2, "solid": -1}  # the higher, always


def by_strength(request: ChatRequest) -> str:
    _, first, second = request.subject
    return "1" if STRENGTH[first.removeprefix("answer/")] > STRENGTH[second.removeprefix("answer/")] else "2"


@pytest.fixture(scope="module")
def template(sample_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Ten topics of the sample project answered by twelve systems besides its three."""
    tmp_path = tmp_path_factory.mktemp("tournament")
    db: Path = copy_project(sample_template, tmp_path)
    for system, strength in STRENGTH.items():
        if strength < 0:  # one of the sample's own systems
            continue
        answers = tmp_path / f"{system}.tsv"
        answers.write_text("".join(f"{1001 + q}\tanswer {strength} to topic {q}\n" for q in range(10)))
        assert cli(db, "import", "responses", answers, "--system", system).exit_code == 0
    return db


@pytest.fixture
def project(template: Path, tmp_path: Path) -> Path:
    copied: Path = copy_project(template, tmp_path)
    return copied


def test_a_consistent_judge_ranks_the_systems_by_their_strength(project: Path) -> None:
    with Project.open(project) as opened:
        backend = ScriptedBackend(by_strength)
        config = JudgeConfig(method="pairwise", backend="scripted", name="t", answers=True, exemplars="none")
        summaries = [e for e in opened.judge(config, backend=backend) if isinstance(e, JudgeSummary)]
        result = opened.answer_tournament("t", seed=1)
    n = 15  # the twelve and the sample's solid, terse and liar
    calls_per_topic = {
        q: sum(r.subject[0] == q for r in backend.requests) for q in {r.subject[0] for r in backend.requests}
    }
    assert max(calls_per_topic.values()) <= 2 * n * math.ceil(math.log2(n)) < 2 * n * (n - 1) // 2
    assert result["calls_per_topic_bound"] == 2 * tournament_budget(n)
    assert summaries[-1].calls == sum(calls_per_topic.values())
    order = [row["system"] for row in result["rows"]]
    assert order == sorted(STRENGTH, key=lambda s: -STRENGTH[s])
    assert all(row["ties"] == 0 for row in result["rows"])  # the judge never contradicts itself
    top = result["rows"][0]
    assert top["elo_low"] <= top["elo"] <= top["elo_high"]
    assert result["matches"] == sum(r["wins"] + r["ties"] + r["losses"] for r in result["rows"]) // 2


def test_a_judge_that_always_picks_the_first_shown_ties_every_match(project: Path) -> None:
    done = cli(
        project, "judge", "--answers", "--method", "pairwise", "--tournament", "--backend", "simulated",
        "--position-bias", 1, "--name", "first",
    )  # fmt: skip
    assert done.exit_code == 0, done.stderr
    result = json.loads(cli(project, "answers", "tournament", "--labels", "first", "-f", "json").stdout)
    assert all(row["wins"] == row["losses"] == 0 and row["ties"] > 0 for row in result["rows"])
    assert {round(row["elo"], 9) for row in result["rows"]} == {1500.0}


def test_only_a_tournament_is_rated(project: Path) -> None:
    assert (
        cli(project, "judge", "--answers", "--method", "binary", "--backend", "simulated", "--name", "b").exit_code == 0
    )
    refused = cli(project, "answers", "tournament", "--labels", "b")
    assert refused.exit_code == 2 and "holds no tournament" in refused.stderr
    assert (
        cli(
            project,
            "judge",
            "--answers",
            "--method",
            "pairwise",
            "--tournament",
            "--backend",
            "simulated",
            "--name",
            "t",
        ).exit_code
        == 0
    )
    refused = cli(project, "answers", "--labels", "t")
    assert refused.exit_code == 2 and "studio answers tournament --labels t" in refused.stderr
