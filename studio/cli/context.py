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
    wait: float = DEFAULT_WAIT_SECONDS


def options(ctx: typer.Context) -> Options:
    found = ctx.find_root().obj
    return found if isinstance(found, Options) else Options()


def open_project(ctx: typer.Context) -> Project:
    chosen = options(ctx)
    path = Project.locate(chosen.project_file)

    def tell(holder: LockHolder) -> None:
        stderr_console().print(
            f"waiting for {path}: {holder.describe()} is using it (up to {chosen.wait:g} s)",
            markup=False,
            highlight=False,
        )

    return Project.open(path, wait=chosen.wait, notice=tell)
