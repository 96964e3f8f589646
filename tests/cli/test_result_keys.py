"""The JSON keys of the judge, bank and label-set commands, pinned (DESIGN §4: add keys freely,
never rename), and the TypedDict each result is typed as declares exactly what is printed, nested
rows included: a key renamed in the code or in its type fails here, not in a script downstream.

One project for the module: the commands run once, in order, each on what the previous made.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from embedding_helpers import HashEmbedder
from fake_openai_server import FakeOpenAIServer
from helpers import cli, copy_project

from studio import Project
from studio.domain.answer_results import AnswerRow
from studio.domain.bank_results import (
    BankReport,
    CoverLeaderboard,
    CoverRow,
    GeneratedBank,
    ItemCoverage,
    ItemEffect,
    NuggetizedBank,
    NuggetizedTopic,
    StaleCellRow,
    UncoveredDocument,
)
from studio.domain.embedding_results import FdLeaderboard, FdRow
from studio.domain.judge_results import JudgeSummaryDict, ProbeRun, ReparseCounts, VerificationRow
from studio.domain.label_set_results import BankScoreMade, CalibrationMade, CalibrationMapDict, CurveBin, EnsembleMade
from studio.domain.prompt_study import StudyReport, StudyRunSummary
from studio.services.rubric.editing import BankEditor

# What each command prints (JSON), made once: {name: parsed stdout}.
Printed = dict[str, Any]

COMMANDS: dict[str, list[str]] = {
    "ensemble": ["ensemble", "--qrels", "sim", "--qrels", "umbrela-smol", "--how", "mean", "--name", "E"],
    "calibrate": ["calibrate", "--qrels", "umbrela-smol", "--gold", "human", "--name", "cal", "--folds", "3"],
    "exam": [
        *("judge", "--method", "exam-question", "--backend", "simulated", "--name", "exam"),
        *("--bank", "questions", "--topic", "1009", "--limit", "6"),
    ],
    "derive": ["derive", "--from", "exam", "--bank", "questions", "--score", "exam-binary", "--name", "eb"],
    "bank report": ["bank", "report", "questions", "--from", "exam"],
    "bank cover": ["bank", "cover", "questions", "--from", "exam"],
    "bank stale": ["bank", "stale", "--from", "exam"],  # after an edit of one item (see `printed`)
    "stale judge": ["judge", "--name", "exam", "--backend", "simulated", "--stale"],
    "reparse": ["judges", "reparse", "sim"],
    "verify": ["judges", "verify", "exam"],
    "probe": ["probe", "--qrels", "sim", "--limit", "6"],
    "sensitivity": [
        *("sensitivity", "--method", "binary", "--backend", "simulated", "--name", "sens"),
        *("--prompt", "binary", "--prompt", "binary-human", "--topic", "1001"),
    ],
    "responses": ["judge", "--backend", "simulated", "--name", "answers", "--pool", "responses"],
    "answers": ["answers", "--qrels", "answers"],
}


@pytest.fixture(scope="module")
def printed(simulated_sample_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Printed:
    db = copy_project(simulated_sample_template, tmp_path_factory.mktemp("result-keys"))
    found: Printed = {}
    for name, args in COMMANDS.items():
        if name == "bank stale":
            with Project.open(db) as project:
                editor = BankEditor(project.db, "questions", person="ana")
                item = editor.items("1009")[0]
                editor.edit(item["item_id"], text=item["text"] + " exactly")
        result = cli(db, *args, "-f", "json")
        assert result.exit_code == 0, (name, result.stderr)
        found[name] = json.loads(result.stdout)
    with Project.open(db) as project:
        found["fd"] = project.fd_leaderboard("human", k=5, embedder=HashEmbedder())
    return found


def keys(found: Mapping[str, object], typed: Any, pinned: list[str]) -> None:
    """`found` has the pinned keys in order, which `typed` (a TypedDict) declares, and no other."""
    assert list(found) == pinned
    required, optional = typed.__required_keys__, typed.__optional_keys__
    assert required <= set(pinned) <= required | optional, typed.__name__


JUDGE = ["label_set", "method", "backend", "model", "pairs", "calls", "cache_hits", "failures", "seconds"]
JUDGE += ["prompt_tokens", "completion_tokens", "judge_run", "failed_calls", "first_failure"]


def test_judge(printed: Printed) -> None:
    keys(printed["exam"], JudgeSummaryDict, [*JUDGE, "derived_updated"])  # a rubric method scores itself
    stale = printed["stale judge"]
    keys(stale, JudgeSummaryDict, [*JUDGE, "derived_updated", "stale_cells", "deleted_cells", "kept_cells"])
    assert stale["derived_updated"] == ["eb"] and stale["stale_cells"] > 0


def test_judges_reparse_and_verify(printed: Printed) -> None:
    keys(printed["reparse"], ReparseCounts, ["judgments", "changed", "failures"])
    keys(printed["verify"][0], VerificationRow, ["item_id", "qid", "docid", "grade", "answer"])


def test_ensemble(printed: Printed) -> None:
    made = ["label_set", "how", "members", "topics", "labels", "events", "pairs_members_disagree"]
    assert list(printed["ensemble"]) == [*made, "ref", "measure", "scores"]  # the command adds its scores
    keys({k: printed["ensemble"][k] for k in made}, EnsembleMade, made)


def test_calibrate(printed: Printed) -> None:
    [done] = printed["calibrate"]
    figures = ["pairs", "topics", "folds", "expected_values", "labels", "fitted_on_all", "kappa_raw"]
    figures += ["kappa_calibrated", "kappa_linear_raw", "kappa_linear_calibrated", "tau_raw", "tau_calibrated"]
    figures += ["mean_gold", "mean_raw", "mean_calibrated"]
    keys(done, CalibrationMade, ["label_set", "qrels", "gold", "method", "seed", "measure", *figures, "curve", "map"])
    keys(done["curve"][0], CurveBin, ["low", "high", "pairs", "mean_llm", "mean_gold", "fitted"])
    keys(done["map"], CalibrationMapDict, ["method", "levels", "xs", "ys", "params"])


def test_derive(printed: Printed) -> None:
    pinned = ["label_set", "score", "source", "bank", "min_grade", "topics", "labels", "events"]
    keys(printed["derive"], BankScoreMade, pinned)


def test_bank_report(printed: Printed) -> None:
    report = printed["bank report"]
    pinned = ["bank", "source", "ref", "min_grade", "relevant_at", "items", "spurious", "uncovered_relevant"]
    keys(report, BankReport, [*pinned, "measure", "tau_all_items", "item_effect", "grid"])
    coverage = ["qid", "item_id", "kind", "importance", "text", "covered", "covered_relevant"]
    keys(report["items"][0], ItemCoverage, [*coverage, "covered_nonrelevant", "nonrelevant_docs"])
    keys(report["item_effect"][0], ItemEffect, ["qid", "item_id", "text", "tau_without", "tau_change"])
    assert report["uncovered_relevant"], "the simulated exam judge leaves a relevant document uncovered"
    keys(report["uncovered_relevant"][0], UncoveredDocument, ["qid", "docid", "ref_grade", "best_item_grade"])


def test_bank_cover_and_stale(printed: Printed) -> None:
    cover = ["measure", "source", "bank", "topics", "leaderboard", "ref", "ref_measure", "kendall_tau", "ref_topics"]
    keys(printed["bank cover"], CoverLeaderboard, cover)
    keys(printed["bank cover"]["leaderboard"][0], CoverRow, ["run", "value"])
    keys(printed["bank stale"][0], StaleCellRow, ["qid", "docid", "item_id", "reason"])
    assert {cell["reason"] for cell in printed["bank stale"]} == {"edited"}


def test_probe_and_sensitivity(printed: Printed) -> None:
    probe = ["label_set", "method", "model", "documents", "failures", "mean_original", "mean_perturbed"]
    probe += ["mean_shift", "moved_up", "became_relevant", "relevant_at", "calls", "cache_hits"]
    keys(printed["probe"][0], ProbeRun, probe)
    summary = printed["sensitivity"]  # a study of templates prints what `sensitivity run` prints
    keys(summary, StudyRunSummary, ["label_sets", "calls", "cache_hits", "failures", "report"])
    keys(
        summary["report"],
        StudyReport,
        [
            *("ref", "variance", "ref_relevant", "relevant", "binarise_ref", "pool_collections"),
            *("cells", "groups", "table", "alpha", "lexical_diversity"),
        ],
    )


def test_answers_and_fd(printed: Printed) -> None:
    keys(printed["answers"][0], AnswerRow, ["system", "mean", "low", "high", "topics"])
    fd = ["qrels", "measure", "k", "model", "relevant", "ref_measure", "rows", "kendall_tau", "relevant_documents"]
    keys(printed["fd"], FdLeaderboard, fd)
    keys(printed["fd"]["rows"][0], FdRow, ["run", "value", "documents"])


# -- making banks: a model writes them (the fake OpenAI server here) -------------------------------


def nuggets_or_questions(body: dict[str, Any]) -> str:
    """Generation asks for questions; AutoNuggetizer for a nugget list, then their importance."""
    user = str(body["messages"][-1]["content"])
    if "Initial Nugget List:" in user:
        return "['the one fact']"
    if "Nugget List:" in user:
        return "['vital']"
    return json.dumps({"questions": ["What is it?", "Why?"]})


@pytest.fixture
def writer(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(answer=nuggets_or_questions) as running:
        monkeypatch.setenv("OPENAI_API_KEY", "not-a-real-key")
        yield running


@pytest.mark.server
def test_bank_generate_prints_what_was_made(sample: Path, writer: FakeOpenAIServer) -> None:
    model = ["--backend", "openai", "--model", "fake", "--base-url", writer.base_url]
    result = cli(sample, "bank", "generate", "gen", *model, "--topic", "1001", "--topic", "1002", "-f", "json")
    assert result.exit_code == 0, result.stderr
    made = json.loads(result.stdout)
    pinned = ["bank", "kind", "backend", "model", "topics", "items", "calls", "cache_hits", "topics_without_items"]
    keys(made, GeneratedBank, pinned)
    assert (made["bank"], made["topics"], made["items"], made["calls"]) == ("gen", 2, 4, 2)


@pytest.mark.server
def test_bank_nuggetize_prints_the_bank_not_the_last_topic(sample: Path, writer: FakeOpenAIServer) -> None:
    model = ["--backend", "openai", "--model", "fake", "--base-url", writer.base_url]
    result = cli(sample, "bank", "nuggetize", "auto", *model, "--topic", "1001", "--topic", "1002", "-f", "json")
    assert result.exit_code == 0, result.stderr
    made = json.loads(result.stdout)
    assert list(made) == list(NuggetizedBank.__dataclass_fields__)
    assert list(made) == ["bank", "topics", "items", "calls", "cache_hits", "failures"]
    assert "topic" not in made and set(NuggetizedTopic.__dataclass_fields__) != set(made)
    assert (made["bank"], made["topics"], made["items"], made["failures"]) == ("auto", 2, 2, 0)
