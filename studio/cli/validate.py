"""`studio validate`: does a method order the reference's Best, Acceptable and Unacceptable passages as
they are, before it is trusted with generated answers (Arabzadeh & Clarke's Section 3)?"""

from __future__ import annotations

from typing import Annotated

import typer

from studio.cli.context import open_project
from studio.cli.errors import handles_errors
from studio.cli.options import FormatOption, RefOption, RelevantOption, SeedOption
from studio.cli.output import OutputFormat, emit_object, emit_records

commands = typer.Typer()


@commands.command("validate")
@handles_errors
def validate(
    ctx: typer.Context,
    labels: Annotated[
        str, typer.Option("--labels", help="Label set of the method (grades, preferences or embedding).")
    ],
    ref: RefOption = "human",
    relevant: RelevantOption = 1.0,  # the reference's lowest Acceptable grade
    seed: SeedOption = 0,  # of the exemplar draws (embedding)
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Does a method order the reference's Best (top grade), Acceptable (relevant below it) and
    Unacceptable passages as they are? Per category pair: the shares of passage pairs it orders
    alike, ties and orders the other way, with both categories' counts."""
    with open_project(ctx) as project:
        result = project.validate(labels, ref, relevant=relevant, seed=seed)
    if fmt is OutputFormat.json:
        emit_object(result, fmt)
        return
    title = f"{labels} ({result['how']}) on the categories of {ref}, {result['topics']} topics with a Best passage"
    emit_records(result["rows"], fmt, title=title)
