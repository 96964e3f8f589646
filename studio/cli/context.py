"""The state every command shares: which project file the user asked for."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import typer

from studio.cli.output import stderr_console
from studio.services.locations import project_path
from studio.services.project import Project
from studio.store.database import DEFAULT_WAIT_SECONDS
from studio.store.file_lock import LockHolder


@dataclass
class Options:
    db: Path | None = None
    wait: float = DEFAULT_WAIT_SECONDS


def options(ctx: typer.Context) -> Options:
    found = ctx.find_root().obj
    return found if isinstance(found, Options) else Options()


def open_project(ctx: typer.Context) -> Project:
    chosen = options(ctx)
    path = project_path(chosen.db)

    def tell(holder: LockHolder) -> None:
        stderr_console().print(
            f"waiting for {path}: {holder.describe()} is using it (up to {chosen.wait:g} s)",
            markup=False,
            highlight=False,
        )

    return Project.open(path, wait=chosen.wait, notice=tell)
