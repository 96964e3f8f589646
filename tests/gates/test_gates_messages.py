"""Messages that say what was meant: a negative grade is a grade, not an unknown option, and a
`--pool` is read strictly (no empty label set standing for the default, no blanks in a depth, no
depth beyond a 64-bit integer ending in a database traceback). Every refusal exits 2, names the
option and what is wrong, and changes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gates.conftest import fingerprint
from gates.conftest import refused_saying as refused
from helpers import Studio

from studio.domain.errors import UsageError
from studio.domain.pools import Pool, PoolKind, parse_pool

# -- negative grades ----------------------------------------------------------------------------------


@pytest.mark.parametrize("grade", ["-1", "-1.5", "-.5", "-2e-1", "-0"])
def test_label_takes_a_negative_grade_without_a_double_dash(studio: Studio, grade: str) -> None:
    """`-1` said "No such option: -1" (only `-- 1001 d -1` worked, written nowhere)."""
    result = studio("label", "--qrels", "human", "1001", "p1001-01", grade, "-f", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["grade"] == float(grade)


def test_a_negative_grade_may_come_before_the_options(studio: Studio) -> None:
    result = studio("label", "1001", "p1001-01", "-1", "--qrels", "human", "--note", "spam", "-f", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["grade"] == -1.0


def test_label_still_refuses_what_is_no_grade_nor_option(studio: Studio, project: Path) -> None:
    before = fingerprint(project)
    refused(studio("label", "--qrels", "human", "1001", "p1001-01", "-x"), "grade '-x' is not a number")
    refused(studio("label", "--qrels", "human", "1001", "p1001-01", "1", "--nte", "x"), "unexpected extra argument")
    assert fingerprint(project) == before


def test_audit_adjudicate_takes_a_negative_grade(studio: Studio, project: Path) -> None:
    """The grade is read (no 'No such option'); the audit named does not exist."""
    before = fingerprint(project)
    result = studio("audit", "adjudicate", "nowhere", "1001", "p1001-01", "-1")
    assert "No such option" not in result.stderr
    refused(result, "nowhere")
    assert fingerprint(project) == before


# -- --pool --------------------------------------------------------------------------------------------

BAD_POOLS = {
    "runs:99999999999999999999": "the depth 99999999999999999999 is beyond a 64-bit integer",
    "holes:9223372036854775808": "is beyond a 64-bit integer",
    "qrels:": "name the label set whose pairs are judged, e.g. qrels:human",
    "qrels": "name the label set whose pairs are judged",
    "runs: 5": "the depth ' 5' is not a whole number in ASCII digits",
    "runs:5 ": "the depth '5 ' is not a whole number",
    "runs:-5": "at least 1",
    "runs:1_0": "the depth '1_0' is not a whole number",
    "runs:\u0665": "is not a whole number",
    "runs:": "give a depth, e.g. runs:10",
    "holes:0": "at least 1",
    "responses:all": "responses takes nothing after it",
    "qrels: human": "label set name ' human' has blanks around it",
    "judged": "unknown pool 'judged'",
}


@pytest.mark.parametrize(("pool", "reason"), BAD_POOLS.items(), ids=list(BAD_POOLS))
def test_judge_refuses_a_pool_it_cannot_read(studio: Studio, project: Path, pool: str, reason: str) -> None:
    before = fingerprint(project)
    result = studio("judge", "--method", "umbrela", "--backend", "simulated", "--name", "j", "--pool", pool)
    refused(result, "Invalid value for '--pool'", reason)
    assert fingerprint(project) == before


@pytest.mark.parametrize("command", [["judge"], ["sensitivity", "--prompt", "x"], ["judges", "export-batch", "x"]])
def test_every_pool_option_is_read_alike(studio: Studio, project: Path, command: list[str]) -> None:
    before = fingerprint(project)
    refused(studio(*command, "--pool", "runs: 5"), "Invalid value for '--pool'", "is not a whole number")
    assert fingerprint(project) == before


def test_a_deep_pool_takes_every_ranked_document(studio: Studio) -> None:
    """The largest depth is every document some run ranks, not a database error."""
    deep = studio("judge", "--method", "umbrela", "--backend", "simulated", "--name", "deep", "--pool", "runs:1000")
    deepest = studio(
        "judge", "--method", "umbrela", "--backend", "simulated", "--name", "deepest", "--pool",
        "runs:9223372036854775807",
    )  # fmt: skip
    assert deep.exit_code == 0 and deepest.exit_code == 0, deepest.output
    sets = {row["name"]: row["pairs"] for row in json.loads(studio("list", "qrels", "-f", "json").stdout)}
    assert sets["deep"] == sets["deepest"] > 0


@pytest.mark.parametrize(
    ("text", "pool"),
    [
        ("qrels:human", Pool(PoolKind.qrels, label_set="human")),
        ("runs:10", Pool(PoolKind.runs, depth=10)),
        ("holes:007", Pool(PoolKind.holes, depth=7)),
        ("responses", Pool(PoolKind.responses)),
    ],
)
def test_a_pool_reads_as_a_typed_value(text: str, pool: Pool) -> None:
    assert parse_pool(text) == pool


def test_a_bad_pool_given_to_the_python_api_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="name the label set"):
        parse_pool("qrels:")
