"""Every option that is a grade reads its value as the file formats read grades: `1_0`, `٣`,
`nan` or `inf` exit 2 naming the option, where Python's `float()` would have taken them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import typer
from helpers import Studio

from studio.cli.app import app

GRADE_OPTIONS = {"--min-grade", "--relevant", "--threshold", "--ref-threshold"}


def grade_options() -> Iterator[tuple[list[str], str]]:
    """(command path, option) of every option of the command tree that is a grade."""

    def walk(command: Any, path: list[str]) -> Iterator[tuple[list[str], str]]:
        for param in command.params:
            for option in GRADE_OPTIONS & set(getattr(param, "opts", [])):
                yield path, option
        for name, sub in getattr(command, "commands", {}).items():
            yield from walk(sub, [*path, name])

    yield from walk(typer.main.get_command(app), [])


OPTIONS = sorted(grade_options())


def test_the_grade_options_are_found() -> None:
    found = {(" ".join(path), option) for path, option in OPTIONS}
    assert {("agree", "--threshold"), ("derive", "--min-grade"), ("fd", "--relevant")} <= found, found


@pytest.mark.parametrize(("path", "option"), OPTIONS, ids=[f"{' '.join(p)} {o}" for p, o in OPTIONS])
@pytest.mark.parametrize("value", ["1_0", "\u0663", "nan", "inf", "0x1"])
def test_every_grade_option_refuses_what_trec_eval_would_not_read(
    studio: Studio, path: list[str], option: str, value: str
) -> None:
    result = studio(*path, option, value)
    assert result.exit_code == 2, result.output
    assert f"Invalid value for '{option}'" in result.stderr and repr(value) in result.stderr
    assert "Traceback" not in result.stderr


def test_a_grade_option_takes_a_decimal_grade(studio: Studio) -> None:
    result = studio("agree", "--ref", "human", "--qrels", "umbrela-smol", "--threshold", "2.", "--relevant", "+1")
    assert result.exit_code == 0, result.output
