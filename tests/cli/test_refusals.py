"""Requests the studio cannot carry out end in exit 2 and one line saying why, never a traceback:
an unusable prompt, a κ outside [0, 1], a limit below 1, a pool of depth below 1. Comparisons with
a label set that gives no run a topic answer with nulls (exit 0), not with numbers of leaderboards
tied at 0."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
from helpers import Studio, cli, copy_project
from typer.testing import Result

from studio.cli.app import app
from studio.cli.errors import ExitCode


@pytest.fixture
def project(demo_project: Path, tmp_path: Path) -> Path:
    return copy_project(demo_project, tmp_path)


@pytest.fixture
def studio(project: Path) -> Studio:
    def invoke(*args: object) -> Result:
        return cli(project, *args)

    return invoke


def refused(result: Result, *fragments: str) -> None:
    """Exit 2, nothing on stdout, and on stderr an error naming every fragment (no traceback)."""
    assert result.exit_code == ExitCode.BAD_INPUT, result.output
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    for fragment in fragments:
        assert fragment in result.stderr, result.stderr


def label_sets(studio: Studio) -> set[str]:
    return {row["name"] for row in json.loads(studio("list", "qrels", "--format", "json").stdout)}


# -- prompts -------------------------------------------------------------------------------------


def test_a_prompt_file_that_is_not_utf8_exits_2_naming_it(studio: Studio, tmp_path: Path) -> None:
    prompt = tmp_path / "prompt.txt"
    prompt.write_bytes(b"\xff\xfe Query: {query} Passage: {passage}")
    before = label_sets(studio)
    result = studio("judge", "--backend", "simulated", "--name", "p", "--prompt", prompt)
    refused(result, f"prompt file {prompt}", "not UTF-8")
    assert label_sets(studio) == before


def test_a_prompt_folder_without_user_txt_exits_2_naming_it(studio: Studio, tmp_path: Path) -> None:
    folder = tmp_path / "my-prompt"
    folder.mkdir()
    refused(studio("judge", "--backend", "simulated", "--prompt", folder), f"prompt folder {folder}", "user.txt")


# -- option ranges -------------------------------------------------------------------------------


@pytest.mark.parametrize("kappa", ["5", "-0.1", "1.01"])
def test_kappa_outside_0_1_exits_2(studio: Studio, kappa: str) -> None:
    refused(studio("judge", "--backend", "simulated", "--kappa", kappa), "Invalid value for '--kappa'")


def commands_with(option: str) -> Iterator[tuple[str, Any]]:
    """(command path, parameter) of every command of the tree taking `option`."""

    def walk(command: Any, path: str) -> Iterator[tuple[str, Any]]:
        for param in command.params:
            if option in getattr(param, "opts", []):
                yield path, param
        for name, sub in getattr(command, "commands", {}).items():
            yield from walk(sub, f"{path} {name}".strip())

    yield from walk(typer.main.get_command(app), "")


LIMITED = sorted(path for path, _ in commands_with("--limit"))


def test_the_commands_with_a_limit_are_found() -> None:
    assert {"history", "judge", "disagreements", "bank history", "judges export-batch"} <= set(LIMITED), LIMITED


@pytest.mark.parametrize("path", LIMITED)
def test_every_limit_is_at_least_1(path: str) -> None:
    """A new command with --limit shows up here and must take the same range."""
    (param,) = [p for where, p in commands_with("--limit") if where == path]
    assert param.min == 1 and param.max is None, path


@pytest.mark.parametrize(
    "args",
    [
        ["history", "--limit", "-1"],
        ["history", "--qrels", "human", "--limit", "0"],
        ["judge", "--backend", "simulated", "--limit", "-1"],
        ["disagreements", "--ref", "human", "--qrels", "umbrela-smol", "--limit", "-1"],
        ["bank", "history", "questions", "--limit", "-5"],
    ],
)
def test_a_limit_below_1_exits_2(studio: Studio, args: list[str]) -> None:
    refused(studio(*args), "Invalid value for '--limit'", "greater than or equal to 1")


@pytest.mark.parametrize("pool", ["runs:-5", "runs:0", "holes:0"])
def test_a_pool_of_depth_below_1_exits_2(studio: Studio, pool: str) -> None:
    before = label_sets(studio)
    refused(studio("judge", "--backend", "simulated", "--name", "d", "--pool", pool), pool, "at least 1")
    assert label_sets(studio) == before


def test_a_limit_judges_that_many_pairs(studio: Studio) -> None:
    result = studio("judge", "--backend", "simulated", "--name", "three", "--limit", "3", "--format", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["pairs"] == 3


# -- comparisons with nothing to compare ---------------------------------------------------------


@pytest.fixture
def topicless(studio: Studio) -> str:
    """A label set that labels no topic a run retrieved: a judge of a topic the project lacks."""
    result = studio("judge", "--backend", "simulated", "--name", "topicless", "--topic", "no-such-topic")
    assert result.exit_code == 0, result.output
    return "topicless"


@pytest.mark.parametrize("order", ["ref-first", "ref-second"])
def test_correlating_with_a_set_without_topics_gives_nulls(studio: Studio, topicless: str, order: str) -> None:
    ref, qrels = ("human", topicless) if order == "ref-first" else (topicless, "human")
    result = studio("correlate", "--ref", ref, "--qrels", qrels, "--format", "json")
    assert result.exit_code == 0, result.output
    found = json.loads(result.stdout)
    statistics = ["kendall_tau", "kendall_tau_a", "spearman_rho", "tau_ap", "rbo", "per_topic_tau", "pooled_tau"]
    assert {name: found[name] for name in statistics} == dict.fromkeys(statistics)
    assert (found["topics"], found["swaps"], found["runs"]) == (0, 0, 6)
    assert set(found["bootstrap"].values()) >= {None} and found["bootstrap"]["low"] is None
    assert all(sub["mean"] is None and sub["topics"] == 0 for sub in found["subsampling"])


def test_correlating_with_a_set_without_topics_prints_a_table(studio: Studio, topicless: str) -> None:
    result = studio("correlate", "--ref", "human", "--qrels", topicless)
    assert result.exit_code == 0, result.output
    assert "bootstrap_95    │ [n/a, n/a]" in result.stdout


def test_agreement_with_a_set_without_topics_gives_nulls(studio: Studio, topicless: str) -> None:
    result = studio("agree", "--ref", "human", "--qrels", topicless, "--format", "json")
    assert result.exit_code == 0, result.output
    found = json.loads(result.stdout)
    assert found["pairs"] == 0 and found["kappa_graded"] is None and found["krippendorff_alpha"] is None


def test_a_leaderboard_under_a_set_without_topics_counts_no_topic(studio: Studio, topicless: str) -> None:
    result = studio("eval", "--qrels", topicless, "--format", "json")
    assert result.exit_code == 0, result.output
    assert {row["topics"] for row in json.loads(result.stdout)} == {0}
