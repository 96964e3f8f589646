"""Grades given on the command line, read as the file formats read them (`studio.domain.numbers`):
`1_0`, `٣`, `nan` or `inf` are no grade here either. Options take it as their `parser`."""

from __future__ import annotations

import typer

from studio.domain.numbers import read_decimal, why_not_decimal


def grade(text: str | float) -> float:
    """A finite ASCII-decimal grade; anything else is a bad value of its parameter (exit 2)."""
    if isinstance(text, float | int):  # an option's default, converted like a value given
        return float(text)
    value = read_decimal(text)
    if value is None:
        raise typer.BadParameter(f"{text!r} {why_not_decimal(text)}")
    return value
