"""The state every command shares: which project file the user asked for."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import typer

from studio.cli.output import stderr_console
from studio.domain.project_file import DEFAULT_WAIT_SECONDS, LockHolder
from studio.services.project import Project


@dataclass
class Options:
    project_file: Path | None = None  # --db
    project_from_environment: bool = False  # --db came from $STUDIO_DB
    wait: float = DEFAULT_WAIT_SECONDS
    read_only: bool = False  # --read-only


def options(ctx: typer.Context) -> Options:
    found = ctx.find_root().obj
    return found if isinstance(found, Options) else Options()


def open_project(ctx: typer.Context, *, create: bool = False, path: Path | None = None) -> Project:
    """The project the command names (`path`, else --db, else $STUDIO_DB, else ./studio.duckdb).
    Only the commands that create one pass `create` (`studio init`, the imports): any other exits
    2 on a missing file instead of creating an empty project there."""
    chosen = options(ctx)
    path = Project.locate(path or chosen.project_file)

    def tell(holder: LockHolder) -> None:
        stderr_console().print(
            f"waiting for {path}: {holder.describe()} is using it (up to {chosen.wait:g} s)",
            markup=False,
            highlight=False,
        )

    return Project.open(path, wait=chosen.wait, notice=tell, create=create, read_only=chosen.read_only)
