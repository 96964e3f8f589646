"""Prompt sensitivity: one method, several prompts, each into its own label set; κ per prompt,
their mean and variance, and Krippendorff's α between the prompts."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from fakes import ScriptedBackend, prompt_of
from helpers import cli

from studio import Project
from studio.domain.errors import UsageError
from studio.domain.judge_results import SensitivityReport
from studio.domain.judging import JudgeConfig, JudgeProgress
from studio.judges.backend import ChatRequest
from studio.judges.methods import get_method
from studio.metrics.agreement import cohen_kappa
from studio.metrics.reliability import krippendorff_alpha
from studio.services.sensitivity.templates import expand_prompts, label_set_name, prompt_sensitivity

PROMPTS = ["binary", "binary-human", "binary-llm"]
Study = tuple[Project, SensitivityReport]  # the project and the report of a study of PROMPTS


def wording_matters(request: ChatRequest) -> str:
    """Says relevant when the passage shares a word with the query — unless the prompt is the
    LLM-written one, which also calls every passage longer than 400 characters relevant."""
    text = prompt_of(request)
    marker = "Query: " if "Query: " in text else "Question: "  # FagB says Question
    query = text.split(marker)[1].split("\n")[0].lower().split()
    passage = text.split("Passage: ")[1].lower()
    relevant = any(len(w) > 3 and w in passage for w in query)
    if "Respond with 1 or 0" in text and len(passage) > 400:
        relevant = True
    yes, no = request.labels
    return request.answer_prefix + (yes if relevant else no)


@pytest.fixture()
def result(simulated_sample: Path) -> Iterator[Study]:
    with Project.open(simulated_sample) as project:
        config = JudgeConfig(method="binary", backend="wording", name="sens", topics=["1001", "1003", "1008"])
        backend = ScriptedBackend(wording_matters, name="wording", model="wording")
        *_, report = prompt_sensitivity(project.engine, config, PROMPTS, backend=backend)
        assert not isinstance(report, JudgeProgress)
        yield project, report


def test_every_prompt_writes_its_own_label_set_with_its_own_answer_words(result: Study) -> None:
    project, report = result
    assert [r["label_set"] for r in report["prompts"]] == ["sens-binary", "sens-binary-human", "sens-binary-llm"]
    assert [r["prompt"] for r in report["prompts"]] == ["binary/v1", "binary-human/v1", "binary-llm/v1"]
    assert all(r["pairs"] == 84 and r["failures"] == 0 for r in report["prompts"])
    assert get_method("binary", "binary-human").labels == ("1", "0")
    labels = {r["label_set"]: project.engine.evaluator(r["label_set"]).labels for r in report["prompts"]}
    assert all({g for t in by_topic.values() for g in t.judged.values()} <= {0.0, 1.0} for by_topic in labels.values())


def test_kappa_per_prompt_and_its_spread(result: Study) -> None:
    project, report = result
    kappas: list[float] = []
    for row in report["prompts"]:
        assert row["kappa_graded"] == project.agreement("human", row["label_set"])["kappa_graded"]
        assert row["kappa_binary"] is not None
        kappas.append(row["kappa_binary"])
    spread = report["kappa_binary"]
    assert spread["mean"] == pytest.approx(np.mean(kappas))
    assert spread["variance"] == pytest.approx(np.var(kappas, ddof=1))
    assert (spread["min"], spread["max"]) == (min(kappas), max(kappas))
    assert spread["variance"] is not None and spread["variance"] > 0  # the LLM-written prompt judges differently


def test_alpha_between_prompts_is_the_multi_coder_alpha(result: Study) -> None:
    project, report = result
    sets = [r["label_set"] for r in report["prompts"]]
    coded = [
        {(q, d): g for q, t in project.engine.evaluator(s).labels.items() for d, g in t.judged.items()} for s in sets
    ]
    units = sorted(coded[0])
    data = np.array([[c[u] for u in units] for c in coded])
    assert report["alpha_level"] == "nominal"
    assert report["krippendorff_alpha"] == pytest.approx(krippendorff_alpha(data, "nominal"))
    # The two prompts that judge alike agree perfectly with each other.
    alpha = report["krippendorff_alpha"]
    assert cohen_kappa(data[0], data[1]) == 1.0 and alpha is not None and alpha < 1.0


def test_folders_expand_and_names_must_differ(tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "short.txt").write_text("Relevant? {query} {passage}", encoding="utf-8")
    (folder / "long.txt").write_text("Is this passage relevant to the query? {query}\n{passage}", encoding="utf-8")
    assert expand_prompts([str(folder)]) == [str(folder / "long.txt"), str(folder / "short.txt")]
    assert label_set_name("p", str(folder / "short.txt")) == "p-short"
    assert label_set_name("p", "binary-human/v1") == "p-binary-human"
    with pytest.raises(UsageError, match="at least two"):
        expand_prompts(["binary"])


def test_cli_with_the_simulated_judge(simulated_sample: Path) -> None:
    result = cli(
        simulated_sample,
        "sensitivity",
        "--method",
        "graded",
        "--prompt",
        "graded-human",
        "--prompt",
        "graded-llm",
        "--backend",
        "simulated",
        "--topic",
        "1002",
        "--name",
        "g",
        "-f",
        "json",
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert [r["label_set"] for r in report["prompts"]] == ["g-graded-human", "g-graded-llm"]
    assert report["alpha_level"] == "ordinal"
    # The simulated judge copies the reference whatever the wording: the prompts agree fully.
    assert report["krippendorff_alpha"] == 1.0
