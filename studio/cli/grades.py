"""Grades given on the command line, read as the file formats read them (`studio.domain.numbers`):
`1_0`, `٣`, `nan` or `inf` are no grade here either. Options take it as their `parser`."""

from __future__ import annotations

import typer

from studio.domain.numbers import read_grade, why_not_grade


def grade(text: str | float) -> float:
    """A finite ASCII-decimal grade within trec_eval's range; anything else is a bad value of its
    parameter (exit 2)."""
    if isinstance(text, float | int):  # an option's default, converted like a value given
        return float(text)
    value = read_grade(text)
    if value is None:
        raise typer.BadParameter(f"{text!r} {why_not_grade(text)}")
    return value
