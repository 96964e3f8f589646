"""`studio init [PATH]`: create an empty project file.

Only this command, the imports and `studio demo` create a project file; every other command on a
missing file exits 2 naming it, so that a mistyped `--db` never leaves an empty project behind.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from studio.cli.context import open_project
from studio.cli.errors import handles_errors
from studio.cli.options import FormatOption
from studio.cli.output import OutputFormat, emit_object

commands = typer.Typer()


@commands.command("init")
@handles_errors
def init_command(
    ctx: typer.Context,
    path: Annotated[
        Path | None,
        typer.Argument(help="The project file (default: --db, $STUDIO_DB, ./studio.duckdb).", show_default=False),
    ] = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Create an empty project file. A studio project already there is kept as it is (upgraded to
    this studio's schema); any other file is refused untouched (exit 2)."""
    with open_project(ctx, create=True, path=path) as project:
        result = {"path": project.path, "created": project.created, "schema_version": project.schema_version()}
    if fmt is OutputFormat.table:
        done = "created the project" if project.created else "kept the studio project already at"
        typer.echo(f"{done} {project.path} (schema version {result['schema_version']})")
    else:
        emit_object(result, fmt)
