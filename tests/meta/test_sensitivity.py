"""A study of prompt templates (bare `studio sensitivity`): one method, several templates, each
judged into its own label set linked to its prompt; the study's report — agreement per prompt, its
mean and variance, Krippendorff's α between the prompts — the same as `sensitivity report` gives."""

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
from studio.domain.judging import JudgeConfig, JudgeProgress
from studio.domain.prompt_study import StudyRunSummary
from studio.judges.backend import ChatRequest
from studio.judges.methods import get_method
from studio.metrics.agreement import binary_kappa, cohen_kappa
from studio.metrics.reliability import krippendorff_alpha
from studio.services.sensitivity.templates import expand_prompts, label_set_name, template_study

PROMPTS = ["binary", "binary-human", "binary-llm"]
Study = tuple[Project, StudyRunSummary]  # the project and what a study of PROMPTS judged and reported


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
        *_, summary = template_study(project.engine, config, PROMPTS, backend=backend)
        assert not isinstance(summary, JudgeProgress)
        yield project, summary


def graded_pairs(project: Project, label_set: str) -> dict[tuple[str, str], float]:
    return {(q, d): g for q, t in project.engine.evaluator(label_set).labels.items() for d, g in t.judged.items()}


def test_every_prompt_writes_its_own_label_set_linked_to_its_prompt(result: Study) -> None:
    project, summary = result
    assert summary["label_sets"] == ["sens-binary", "sens-binary-human", "sens-binary-llm"]
    assert summary["failures"] == 0 and summary["calls"] == 3 * 84
    cells = summary["report"]["cells"]
    assert [(c["label_set"], c["prompt"], c["group"], c["method"], c["model"]) for c in cells] == [
        (name, name.removeprefix("sens-"), "templates", "binary", "wording") for name in summary["label_sets"]
    ]
    assert all(c["pairs"] == 84 for c in cells)
    held = project.collection_prompts("sens")
    assert [(p.prompt_id, p.method) for p in held] == [
        ("binary", "binary"),
        ("binary-human", "binary"),
        ("binary-llm", "binary"),
    ]
    assert "{query}" in held[1].user and "{passage}" in held[1].user
    assert get_method("binary", "binary-human").labels == ("1", "0")
    labels = [graded_pairs(project, name) for name in summary["label_sets"]]
    assert all(set(by_pair.values()) <= {0.0, 1.0} for by_pair in labels)


def test_agreement_per_prompt_and_its_spread(result: Study) -> None:
    project, summary = result
    human = graded_pairs(project, "human")
    kappas: list[float] = []
    for cell in summary["report"]["cells"]:
        mine = graded_pairs(project, cell["label_set"])
        shared = sorted(set(mine) & set(human))
        x = np.array([human[p] for p in shared])
        y = np.array([mine[p] for p in shared])
        assert cell["agreement"] == pytest.approx(binary_kappa(x, y, 2.0, 1.0))  # the reference relevant from 2
        assert cell["agreement"] is not None
        kappas.append(cell["agreement"])
    (group,) = summary["report"]["groups"]
    assert (group["group"], group["method"], group["cells"]) == ("templates", "binary", 3)
    assert group["mean"] == pytest.approx(np.mean(kappas))
    assert group["variance"] == pytest.approx(np.var(kappas, ddof=1))
    assert group["variance"] is not None and group["variance"] > 0  # the LLM-written prompt judges differently


def test_alpha_between_prompts_is_the_multi_coder_alpha(result: Study) -> None:
    project, summary = result
    coded = [graded_pairs(project, name) for name in summary["label_sets"]]
    units = sorted(coded[0])
    data = np.array([[c[u] for u in units] for c in coded])
    (alpha,) = summary["report"]["alpha"]
    assert (alpha["level"], alpha["prompts"], alpha["units"]) == ("nominal", 3, len(units))
    assert alpha["alpha"] == pytest.approx(krippendorff_alpha(data, "nominal"))
    # The two prompts that judge alike agree perfectly with each other; the third does not.
    assert cohen_kappa(data[0], data[1]) == 1.0 and alpha["alpha"] is not None and alpha["alpha"] < 1.0


def test_the_report_of_the_linked_label_sets_is_the_same_study(result: Study) -> None:
    project, summary = result
    again = project.study_report("human", collection="sens")
    assert again == summary["report"]


def test_a_prefix_naming_another_collection_is_refused_before_any_call(result: Study) -> None:
    project, _ = result
    config = JudgeConfig(method="binary", backend="wording", name="sens", topics=["1001"])
    asked: list[ChatRequest] = []

    def answer(request: ChatRequest) -> str:
        asked.append(request)
        return "1"

    backend = ScriptedBackend(answer, name="wording", model="wording")
    with pytest.raises(UsageError, match="holds other prompts"):
        list(template_study(project.engine, config, ["binary", "graded-human"], backend=backend))
    assert asked == [] and [p.prompt_id for p in project.collection_prompts("sens")] == [
        "binary",
        "binary-human",
        "binary-llm",
    ]


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
    summary = json.loads(result.stdout)
    assert summary["label_sets"] == ["g-graded-human", "g-graded-llm"]
    (alpha,) = summary["report"]["alpha"]
    assert alpha["level"] == "ordinal"
    # The simulated judge copies the reference whatever the wording: the prompts agree fully.
    assert alpha["alpha"] == 1.0
    table = cli(simulated_sample, "sensitivity", "report", "--ref", "human", "--prompts", "g")
    assert table.exit_code == 0, table.output
    assert "Krippendorff's α between the prompts of a group" in table.stdout and "g-graded-llm" in table.stdout
