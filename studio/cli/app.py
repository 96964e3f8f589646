"""The `studio` command line.

Every command module defines its own `typer.Typer` named `commands`; this module adds each one
the same way. A module's Typer with a name (`import`, `export`, `bank`, `judges`) becomes a
command group; one without a name has its commands merged into the top level (typer merges an
unnamed Typer's commands into its parent). The order below is the order of `studio --help`.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from studio import __version__
from studio.cli import (
    answers,
    assess,
    audit,
    bank,
    calibrate,
    check,
    doctor,
    embeddings,
    ensemble,
    estimate,
    evaluate,
    export,
    imports,
    init,
    judge,
    judges,
    launch,
    listing,
    meta,
    report,
    sensitivity,
    significance,
    sync,
    team,
    validate,
)
from studio.cli.context import Options
from studio.cli.errors import reported_errors
from studio.cli.output import silence_arithmetic_warnings
from studio.domain.project_file import DEFAULT_WAIT_SECONDS

app = typer.Typer(
    name="studio",
    help="Relevance Assessment Studio: audit LLM relevance labels against people's.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)

COMMAND_MODULES: tuple[typer.Typer, ...] = (
    launch.commands,  # demo, tui
    init.commands,  # init
    imports.commands,  # import …
    listing.commands,  # list
    check.commands,  # check
    doctor.commands,  # doctor
    evaluate.commands,  # eval, correlate, agree, disagreements, label, undo, history
    answers.commands,  # answers [compare | significance | tournament | runs]
    validate.commands,  # validate
    embeddings.commands,  # fd
    judge.commands,  # judge, derive
    ensemble.commands,  # ensemble
    calibrate.commands,  # calibrate
    judges.commands,  # judges …
    meta.commands,  # compare, probe
    sensitivity.commands,  # sensitivity [run | report]
    significance.commands,  # significance
    estimate.commands,  # estimate
    report.commands,  # report
    export.commands,  # export …
    bank.commands,  # bank …
    audit.commands,  # audit …
    team.commands,  # team …
    sync.commands,  # sync
    assess.commands,  # assess …
)
for module_commands in COMMAND_MODULES:
    app.add_typer(module_commands)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"studio {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    ctx: typer.Context,
    db: Annotated[
        Path | None,
        typer.Option("--db", envvar="STUDIO_DB", help="Project file (default: ./studio.duckdb)."),
    ] = None,
    wait: Annotated[
        float,
        typer.Option(
            "--wait",
            envvar="STUDIO_WAIT",
            min=0.0,
            metavar="SECONDS",
            help="How long to wait for the project file while another studio process writes to it.",
        ),
    ] = DEFAULT_WAIT_SECONDS,
    read_only: Annotated[
        bool,
        typer.Option(
            "--read-only",
            envvar="STUDIO_READ_ONLY",
            help="Open the project file read-only (as when it or its folder cannot be written): writes are refused.",
        ),
    ] = False,
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version.")
    ] = False,
) -> None:
    silence_arithmetic_warnings()
    source = ctx.get_parameter_source("db")  # typer's own click: its enum, told by name
    from_environment = source is not None and source.name == "ENVIRONMENT"
    ctx.obj = Options(project_file=db, project_from_environment=from_environment, wait=wait, read_only=read_only)


def run() -> None:
    """The `studio` program. Output refused outside a command (`--help`, `--version` into a full
    disk) ends as it does inside one (see `cli/errors.py`)."""
    try:
        with reported_errors():
            app()
    except typer.Exit as done:
        sys.exit(done.exit_code)
