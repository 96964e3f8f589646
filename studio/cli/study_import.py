"""`studio import study FOLDER --pattern …`: a prompt study's folder of judgment files, and the
options the study's imports share (registered in `studio.cli.imports`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from studio.cli.context import open_project
from studio.cli.errors import handles_errors
from studio.cli.options import FormatOption, RefOption
from studio.cli.output import OutputFormat, emit_object, stderr_console
from studio.domain.choices import OnDuplicate, OutOfScale, StudyMethodChoice
from studio.domain.import_report import ImportReport

OutOfScaleOption = Annotated[
    OutOfScale,
    typer.Option(
        "--out-of-scale",
        help="A grade off its method's scale (binary 0/1, graded 0–3): error (naming the line) or skip it (warned).",
    ),
]
OnDuplicateAnswer = Annotated[
    OnDuplicate,
    typer.Option(help="A pair answered twice differently: error (naming both lines), or keep the first/last."),
]
Replace = Annotated[bool, typer.Option("--replace", help="Replace what is loaded under the same name.")]


def report_import(report: ImportReport, fmt: OutputFormat) -> None:
    for warning in report.warnings:
        stderr_console().print(f"warning: {warning}", markup=False)
    if fmt is OutputFormat.table:
        typer.echo(report.summary())
    else:
        emit_object(report.as_dict(), OutputFormat.json)


@handles_errors
def import_study(
    ctx: typer.Context,
    folder: Annotated[Path, typer.Argument(help="Folder of judgment files (searched below).", show_default=False)],
    pattern: Annotated[
        str,
        typer.Option(
            help="The files' names: {prompt}, {model}, {method}, {collection} and * (a '/' matches the path below).",
            show_default=False,
        ),
    ],
    prompts: Annotated[str | None, typer.Option(help="The prompt collection the prompt ids belong to.")] = None,
    model: Annotated[str | None, typer.Option(help="The judge model, when the pattern has no {model}.")] = None,
    method: Annotated[
        StudyMethodChoice | None, typer.Option(help="The method, when the pattern has no {method}.")
    ] = None,
    collection: Annotated[
        str | None, typer.Option(help="The test collection, when the pattern has no {collection}.")
    ] = None,
    prefix: Annotated[str, typer.Option(help="Start of every label set's name.")] = "",
    ref: RefOption = "human",
    on_duplicate: OnDuplicateAnswer = OnDuplicate.ERROR,
    out_of_scale: OutOfScaleOption = OutOfScale.ERROR,
    replace: Replace = False,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """A prompt study's judgment files, binary and graded qrels and pairwise preferences, in one
    process and one transaction: each file into a label set MODEL-METHOD-COLLECTION-PROMPT linked
    to its prompt, its name read by --pattern (the published study's:
    '{model}_{method}_{collection}_{prompt}.txt'). Files that do not match are named, not read."""
    with open_project(ctx, create=True) as project:
        report = project.import_study(
            folder,
            pattern=pattern,
            prompts=prompts,
            model=model,
            method=None if method is None else method.value,
            collection=collection,
            prefix=prefix,
            ref=ref,
            on_duplicate=on_duplicate,
            out_of_scale=out_of_scale,
            replace=replace,
        )
        report_import(report, fmt)
