"""The `studio` command line."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from studio import __version__
from studio.cli import embeddings, evaluate, judge, meta, report
from studio.cli.bank import bank_app
from studio.cli.context import Options, open_project, options
from studio.cli.errors import handles_errors
from studio.cli.export import export_app
from studio.cli.imports import import_app
from studio.cli.listing import list_command, print_overview
from studio.cli.output import OutputFormat, stderr_console
from studio.services.locations import demo_project_path
from studio.services.sample_project import build_sample_project
from studio.services.views.overview import overview

app = typer.Typer(
    name="studio",
    help="Relevance Assessment Studio: audit LLM relevance labels against people's.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)
app.add_typer(import_app, name="import")
app.add_typer(export_app, name="export")
app.add_typer(bank_app, name="bank")
app.command("list")(list_command)
evaluate.register(app)
embeddings.register(app)
judge.register(app)
report.register(app)
meta.register(app)


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
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version.")
    ] = False,
) -> None:
    ctx.obj = Options(db=db)


@app.command()
@handles_errors
def demo(
    ctx: typer.Context,
    db: Annotated[
        Path | None, typer.Option("--db", help="Where to build it (default: the user data folder).")
    ] = None,
    no_tui: Annotated[bool, typer.Option("--no-tui", help="Print the overview and exit.")] = False,
    rebuild: Annotated[bool, typer.Option("--rebuild", help="Build it afresh, dropping edits.")] = False,
    fmt: Annotated[OutputFormat, typer.Option("--format", "-f")] = OutputFormat.table,
) -> None:
    """Build the bundled sample project (once) and open the studio on it."""
    path = demo_project_path(db or options(ctx).db)
    fresh = rebuild or not path.exists()
    project = build_sample_project(path, rebuild=rebuild)
    stderr_console().print(f"{'built' if fresh else 'opened'} the sample project at {path}")
    if no_tui:
        with project:
            print_overview(overview(project), fmt)
        return
    project.close()
    _run_tui(path, screen="review")


SCREENS = ("overview", "leaderboard", "review", "bank", "judges")


@app.command()
@handles_errors
def tui(
    ctx: typer.Context,
    screen: Annotated[str, typer.Option(help=f"Screen to open: {', '.join(SCREENS)}.")] = "overview",
    ref: Annotated[str | None, typer.Option(help="Reference label set (default: human).")] = None,
    qrels: Annotated[str | None, typer.Option(help="Audited label set (default: the newest LLM one).")] = None,
    person: Annotated[str | None, typer.Option(envvar="STUDIO_PERSON", help="Who reviews.")] = None,
) -> None:
    """Open the studio on the project."""
    if screen not in SCREENS:
        raise typer.BadParameter(f"screen must be one of {', '.join(SCREENS)}", param_hint="--screen")
    project = open_project(ctx)
    path = Path(project.path)
    project.close()
    _run_tui(path, screen=screen, ref=ref, qrels=qrels, person=person)


def _run_tui(path: Path, **options: str | None) -> None:
    # Imported here so that headless commands never load Textual.
    from studio.tui.app import run_studio

    run_studio(path, **options)  # type: ignore[arg-type]


def run() -> None:
    app()
