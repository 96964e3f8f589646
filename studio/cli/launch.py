"""`studio demo | tui`: open the studio (the Textual app) on the sample project or on a project."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from studio.cli.context import open_project, options
from studio.cli.errors import handles_errors
from studio.cli.listing import print_overview
from studio.cli.output import OutputFormat, stderr_console
from studio.domain.choices import ScreenName
from studio.services.project import Project

commands = typer.Typer()


@commands.command()
@handles_errors
def demo(
    ctx: typer.Context,
    db: Annotated[Path | None, typer.Option("--db", help="Where to build it (default: the user data folder).")] = None,
    no_tui: Annotated[bool, typer.Option("--no-tui", help="Print the overview and exit.")] = False,
    rebuild: Annotated[bool, typer.Option("--rebuild", help="Build it afresh, dropping edits.")] = False,
    fmt: Annotated[OutputFormat, typer.Option("--format", "-f")] = OutputFormat.table,
) -> None:
    """Build the bundled sample project (once) and open the studio on it."""
    path = Project.demo_path(db or options(ctx).project_file)
    fresh = rebuild or not path.exists()
    project = Project.sample(path, rebuild=rebuild)
    stderr_console().print(f"{'built' if fresh else 'opened'} the sample project at {path}")
    if no_tui:
        with project:
            print_overview(project.overview(), fmt)
        return
    _run_tui(project, screen=ScreenName.review)


@commands.command()
@handles_errors
def tui(
    ctx: typer.Context,
    screen: Annotated[ScreenName, typer.Option(help="Screen to open.")] = ScreenName.overview,
    ref: Annotated[str | None, typer.Option(help="Reference label set (default: human).")] = None,
    qrels: Annotated[str | None, typer.Option(help="Audited label set (default: the newest LLM one).")] = None,
    person: Annotated[str | None, typer.Option(envvar="STUDIO_PERSON", help="Who reviews.")] = None,
    audit: Annotated[
        str | None, typer.Option(help="Grade this audit's sample blind, in its random order (see `studio audit plan`).")
    ] = None,
) -> None:
    """Open the studio on the project."""
    _run_tui(open_project(ctx), screen=screen, ref=ref, qrels=qrels, person=person, audit=audit)


def _run_tui(
    project: Project,
    *,
    screen: ScreenName,
    ref: str | None = None,
    qrels: str | None = None,
    person: str | None = None,
    audit: str | None = None,
) -> None:
    # Imported here so that headless commands never load Textual.
    from studio.tui.app import run_studio

    run_studio(project, screen=screen.value, ref=ref, qrels=qrels, person=person, audit=audit)
