"""`studio judge -f json` prints the judge summary's fields, in their order: the DESIGN §4 keys
always, and the keys of what applies to some runs only (stale cells, samples, followers, cost) when
it applies. The TypedDict the summary is typed as and the dataclass's fields are one list."""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path
from typing import get_type_hints

import pytest
from helpers import cli
from judge_helpers import SUMMARY_KEYS

from studio.domain.judge_results import JudgeSummaryDict
from studio.domain.judging import SOMETIMES_SHOWN, JudgeSummary

ALWAYS = [f.name for f in fields(JudgeSummary) if f.name not in SOMETIMES_SHOWN]


def summary(**given: object) -> JudgeSummary:
    """A summary with the DESIGN fields filled in and `given` on top."""
    base = JudgeSummary("s", "umbrela", "simulated", "m", 2, 2, 0, 0, 0.1, 10, 2)
    for name, value in given.items():
        setattr(base, name, value)
    return base


def test_the_typed_dict_and_the_fields_are_one_list_in_one_order() -> None:
    assert list(get_type_hints(JudgeSummaryDict)) == [f.name for f in fields(JudgeSummary)]
    sometimes = {"derived_updated", "stale_cells", "deleted_cells", "kept_cells", "samples", "self_consistency"}
    answers = {"topics_without_subtopics"}
    assert sometimes | {"ensembles_updated", "derived_blocked", "cost", "ref"} | answers == SOMETIMES_SHOWN


def test_a_key_that_is_sometimes_shown_is_its_field_without_none() -> None:
    hints = get_type_hints(JudgeSummary)
    for name, typed in get_type_hints(JudgeSummaryDict).items():
        # None is how a field says "not shown": its key's type is the field's without None.
        assert hints[name] == (typed | None if name in SOMETIMES_SHOWN else typed), name


def test_unset_fields_are_left_out_and_set_ones_shown_in_field_order() -> None:
    assert list(summary().as_dict()) == ALWAYS
    shown = summary(cost=0.5, stale_cells=3, deleted_cells=0, kept_cells=4, derived_updated=[]).as_dict()
    assert list(shown) == [*ALWAYS, "derived_updated", "stale_cells", "deleted_cells", "kept_cells", "cost"]
    # Empty or zero is set: a method that scores its own grades says that nothing followed.
    assert (shown["derived_updated"], shown["deleted_cells"]) == ([], 0)
    assert summary().as_dict()["first_failure"] is None  # always there, None or not


def test_the_json_keys_of_a_simulated_judge_are_the_summary_s_fields(sample: Path) -> None:
    judge = ["judge", "--method", "umbrela", "--backend", "simulated", "--name", "sim", "--limit", "20"]
    result = cli(sample, *judge, "-f", "json")
    assert result.exit_code == 0, result.stderr
    printed = json.loads(result.stdout)
    assert list(printed) == ALWAYS
    assert set(printed) >= SUMMARY_KEYS  # DESIGN §4
    assert (printed["label_set"], printed["backend"], printed["pairs"]) == ("sim", "simulated", 20)


@pytest.mark.parametrize(
    ("options", "more"),
    [
        (["--samples", "3"], {"samples": 3, "self_consistency": "samples"}),
        (["--price-input", "1"], {"cost": 0.0}),  # the simulated judge costs nothing
    ],
)
def test_what_applies_to_a_run_adds_its_keys_in_field_order(
    sample: Path, options: list[str], more: dict[str, object]
) -> None:
    judge = ["judge", "--method", "umbrela", "--backend", "simulated", "--name", "s", "--limit", "4"]
    result = cli(sample, *judge, *options, "-f", "json")
    assert result.exit_code == 0, result.stderr
    printed = json.loads(result.stdout)
    assert list(printed) == [*ALWAYS, *more] and {key: printed[key] for key in more} == more
